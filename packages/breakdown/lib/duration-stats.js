'use strict'

// The distribution of one duration (a segment's, an operation's response time): exact count, sum and maximum,
// percentiles from an hdr histogram, and a state another process can merge exactly.

// hdr-histogram-js's JavaScript histograms and their V2 encoding, required by file: the package's index also
// loads its WebAssembly histograms through @assemblyscript/loader, whose `main` is an ES module: Jest 26 and 27,
// which read `main` and not the exports map's CommonJS build, fail to parse it in the test suite of an app that
// uses @nodebench/trace. The package has no exports map; its dist/ files are not a promise of semver, so
// the dependency is kept to 3.0.x, and test/aggregator.test.js checks these files against the index's and that
// the WebAssembly path stays unloaded.
// Requiring JsHistogram.encoding also gives JsHistogram its encodeIntoCompressedBase64 and decode.
const { default: Int32Histogram } = require('hdr-histogram-js/dist/Int32Histogram')
const { JsHistogram } = require('hdr-histogram-js/dist/JsHistogram')
const { decompress } = require('hdr-histogram-js/dist/JsHistogram.encoding')

// Durations are recorded in whole microseconds: 1 µs .. 1 hour, 2 significant digits (percentiles within
// 1%). Plain 32-bit buckets: recordValue runs on every request for every segment, and measured ~110 ns
// against ~550 ns for 'packed' buckets; the price is 14 kB per histogram (3 digits would be 95 kB).
const HISTOGRAM_OPTIONS = Object.freeze({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 2,
  bitBucketSize: 32
})

/**
 * hdr-histogram-js's Int32Histogram with the bucket of a value found by integer operations. The library
 * computes it with Math.log2 and two Math.pow per value (~140 ns a value, 13 values a request in a small
 * app); for whole values below 2^32 and a unit of 1 the same index is `31 - clz32(value)` and a shift
 * (~5 ns). Everything else (counts, percentiles, encoding, add) is the library's.
 */
class Int32IndexHistogram extends Int32Histogram {
  constructor (lowestDiscernibleValue, highestTrackableValue, numberOfSignificantValueDigits) {
    super(lowestDiscernibleValue, highestTrackableValue, numberOfSignificantValueDigits)
    if (this.unitMagnitude !== 0 || highestTrackableValue > 0xffffffff) {
      throw new RangeError('Int32IndexHistogram needs a lowest discernible value of 1 and a highest trackable value below 2^32')
    }
  }

  /** The library's countsArrayIndex for a whole value 0 <= value < 2^32 (unitMagnitude 0). */
  countsArrayIndex (value) {
    if (value < 0) throw new Error('Histogram recorded value cannot be negative.')
    return countsIndex(value, this.subBucketHalfCountMagnitude, this.subBucketHalfCount)
  }
}

/** The bucket array index of a whole value 0 <= value < 2^32 in a histogram of unit 1 and this sub-bucket layout. */
function countsIndex (value, halfCountMagnitude, halfCount) {
  // floor(log2(value)) is 31 - clz32(value) (and -1 for 0, which lands in bucket 0 like the library's).
  let bucketIndex = 31 - Math.clz32(value) - halfCountMagnitude
  if (bucketIndex < 0) bucketIndex = 0
  return ((bucketIndex + 1) << halfCountMagnitude) + (value >>> bucketIndex) - halfCount
}

function newHistogram () {
  return new Int32IndexHistogram(
    HISTOGRAM_OPTIONS.lowestDiscernibleValue,
    HISTOGRAM_OPTIONS.highestTrackableValue,
    HISTOGRAM_OPTIONS.numberOfSignificantValueDigits)
}

const HIGHEST_MICROS = HISTOGRAM_OPTIONS.highestTrackableValue
// Every histogram has the options above, so the same sub-bucket layout: DurationStats#record finds a value's
// bucket with these constants rather than reading them from its histogram (~20 instructions a segment).
const { subBucketHalfCountMagnitude: HALF_COUNT_MAGNITUDE, subBucketHalfCount: HALF_COUNT } = newHistogram()

function toMicros (ms) {
  const micros = Math.round(ms * 1000)
  if (micros < 1) return 1
  if (micros > HIGHEST_MICROS) return HIGHEST_MICROS
  return micros
}

/**
 * Distribution of one duration: exact count, sum and max; percentiles from an hdr histogram.
 *
 * A value is counted straight into the histogram's bucket array (`_counts`, hdr-histogram-js's
 * TypedArrayHistogram): the library's recordValue() also keeps the histogram's total count, minimum and
 * maximum up to date on every value, ~430 instructions a value (benchmarks/README.md in @nodebench/trace),
 * against ~40 for the bucket alone. The library rebuilds those three from the counts
 * (establishInternalTackingValues) when the histogram is next read: `histogram` is only read through
 * synced(). The buckets, percentiles, encodings and merges are the library's, unchanged.
 */
class DurationStats {
  constructor () {
    this.count = 0
    this.totalMs = 0
    this.maxMs = 0
    this.histogram = newHistogram()
    this.counts = this.histogram._counts
    this.unsynced = false
  }

  record (ms) {
    this.count++
    this.totalMs += ms
    if (ms > this.maxMs) this.maxMs = ms
    let micros = Math.round(ms * 1000)
    if (micros < 1) micros = 1
    else if (micros > HIGHEST_MICROS) micros = HIGHEST_MICROS
    this.counts[countsIndex(micros, HALF_COUNT_MAGNITUDE, HALF_COUNT)]++
    this.unsynced = true
  }

  /** The histogram, its total count, minimum and maximum rebuilt from the counts recorded since last read. */
  synced () {
    if (this.unsynced) {
      this.unsynced = false
      this.histogram.establishInternalTackingValues()
    }
    return this.histogram
  }

  percentileMs (p) {
    if (this.count === 0) return 0
    // The histogram answers with its bucket's upper edge, which can lie above the exact maximum.
    return Math.min(this.synced().getValueAtPercentile(p) / 1000, this.maxMs)
  }

  /** Adds the counts of `values` with an upper bound of at most each of `boundsMicros` (ascending) to `counts`. */
  addBucketCounts (boundsMicros, counts) {
    if (this.count === 0) return
    const histogram = this.synced()
    const last = Math.min(histogram.countsArrayIndex(toMicros(this.maxMs)), histogram.countsArrayLength - 1)
    let bucket = 0
    for (let index = 0; index <= last; index++) {
      const n = histogram.getCountAtIndex(index)
      if (n === 0) continue
      // A value is counted in the first bound at or above its hdr bucket's highest value (1% resolution).
      const value = histogram.highestEquivalentValue(histogram.valueFromIndex(index))
      while (bucket < boundsMicros.length && boundsMicros[bucket] < value) bucket++
      counts[bucket] += n
    }
  }

  add (other) {
    this.count += other.count
    this.totalMs += other.totalMs
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs
    this.synced().add(other.synced())
  }

  /** A JSON-safe copy that another process can merge exactly (the histogram compressed, base64). */
  exportState () {
    return {
      count: this.count,
      totalMs: this.totalMs,
      maxMs: this.maxMs,
      histogram: this.synced().encodeIntoCompressedBase64()
    }
  }

  addState (state) {
    this.count += state.count
    this.totalMs += state.totalMs
    if (state.maxMs > this.maxMs) this.maxMs = state.maxMs
    this.synced().add(decodeHistogram(state.histogram))
  }
}

/**
 * A histogram from exportState()'s base64 text: hdr-histogram-js's decodeFromCompressedBase64 for JavaScript
 * histograms. A copy into a plain Uint8Array: the library's ByteBuffer reverses slices of it in place, and a
 * Buffer's slice is a view of the Buffer.
 */
function decodeHistogram (base64) {
  const compressed = new Uint8Array(Buffer.from(base64, 'base64'))
  return JsHistogram.decode(decompress(compressed), HISTOGRAM_OPTIONS.bitBucketSize)
}

module.exports = { DurationStats, newHistogram, toMicros }
