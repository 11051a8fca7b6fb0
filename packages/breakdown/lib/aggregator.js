'use strict'

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

const SCHEMA_VERSION = 1
// The version of exportState()'s object, which only processes of the same nodebench exchange. 2: response
// times per status code.
const STATE_VERSION = 2

// Durations are recorded in whole microseconds: 1 µs .. 1 hour, 2 significant digits (percentiles within
// 1%). Plain 32-bit buckets: recordValue runs on every request for every segment, and measured ~110 ns
// against ~550 ns for 'packed' buckets; the price is 14 kB per histogram (3 digits would be 95 kB).
const HISTOGRAM_OPTIONS = Object.freeze({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 2,
  bitBucketSize: 32
})

const MAX_OPERATIONS_DEFAULT = 500

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

/**
 * One segment (a layer) of one operation. Its name, kind, file and line are its layer's, read from the layer's
 * info when a snapshot or state is made: the middleware names layers after they are first timed.
 */
class SegmentStats extends DurationStats {
  constructor (firstSeen) {
    super()
    // Sum of the positions in the request's path; the mean orders segments (a request that took
    // another path, e.g. the first one or an error, does not reorder them).
    this.positionSum = 0
    this.firstSeen = firstSeen
    // The dependencies it waited on (`system operation target` -> DependencyStats), made on its first call.
    this.dependencies = null
  }

  /**
   * Adds `calls` calls to a dependency and the time they took of this segment (their union, `ms`); `key` is
   * `system operation target` (the middleware's descriptions carry it made).
   */
  recordDependency (key, system, operation, target, calls, ms) {
    if (this.dependencies === null) this.dependencies = new Map()
    let stats = this.dependencies.get(key)
    if (stats === undefined) {
      // Bounded: a segment calling many hosts or collections folds the rest into one `other` entry.
      if (this.dependencies.size >= MAX_DEPENDENCIES_PER_SEGMENT - 1 && key !== OTHER_DEPENDENCY) {
        key = OTHER_DEPENDENCY
        stats = this.dependencies.get(key)
        system = operation = target = 'other'
      }
      if (stats === undefined) {
        stats = { system, operation, target, calls: 0, totalMs: 0 }
        this.dependencies.set(key, stats)
      }
    }
    stats.calls += calls
    stats.totalMs += ms
  }

  addDependencies (other) {
    if (other.dependencies === null) return
    for (const dependency of other.dependencies.values()) this.addDependencyState(dependency)
  }

  addDependencyState ({ system, operation, target, calls, totalMs }) {
    this.recordDependency(`${system} ${operation} ${target}`, system, operation, target, calls, totalMs)
  }

  /** Its dependencies as plain objects (a state's), or undefined when it has none. */
  dependencyStates () {
    if (this.dependencies === null) return undefined
    return Array.from(this.dependencies.values(), ({ system, operation, target, calls, totalMs }) =>
      ({ system, operation, target, calls, totalMs }))
  }
}

// Distinct dependencies kept per segment, the last of them `other other other`, where the rest are folded.
const MAX_DEPENDENCIES_PER_SEGMENT = 16
const OTHER_DEPENDENCY = 'other other other'

// Kinds whose entries contain segments rather than being one: a router or mounted app (Express), and a route
// whose handler runs a framework's own pipeline (NestJS: guards, interceptors, pipes, the controller method).
// Their own time is routing or the framework's glue: unattributed.
const CONTAINER_KINDS = new Set(['router', 'route'])

function isContainer (info) {
  // On every segment of every request: two comparisons rather than a Set look-up.
  const kind = info.kind
  return kind === 'router' || kind === 'route'
}

// Distinct path shapes kept per operation, from which a layer's occurrence among layers of the same key is read.
const MAX_SHAPES = 32

/**
 * Which segments an operation shows, read from its statistics when a snapshot or state is made. Segments are
 * kept per layer (its info object); a layer's key is `kind name file:line` once it is named. Two layers with
 * the same key are the same segment when they take each other's place (another layer running the same
 * function at the same position), and distinct segments when one request passes both (three validation chains
 * made by one factory): the second is `key #2`, named `name #2`, by its occurrence among the layers of that key
 * in the request paths the operation has seen.
 */
function segmentViews (operation) {
  const occurrences = operation.occurrences()
  const byKey = new Map()
  for (const [info, stats] of operation.segments) {
    const occurrence = occurrences.get(info) ?? 1
    const suffix = occurrence > 1 ? ` #${occurrence}` : ''
    const key = typeof info.key === 'string' ? info.key + suffix : info
    const known = byKey.get(key)
    if (known === undefined) {
      byKey.set(key, { key: typeof key === 'string' ? key : null, name: info.name === null ? null : info.name + suffix, info, stats })
    } else {
      known.stats = combinedSegment(known.stats, stats)
      if (stats.firstSeen < known.stats.firstSeen) known.info = info
    }
  }
  return Array.from(byKey.values())
}

function combinedSegment (a, b) {
  const combined = new SegmentStats(a.firstSeen <= b.firstSeen ? a.firstSeen : b.firstSeen)
  combined.add(a)
  combined.add(b)
  combined.positionSum = a.positionSum + b.positionSum
  combined.addDependencies(a)
  combined.addDependencies(b)
  return combined
}

/** One operation: method + route template + response format. */
class OperationStats {
  constructor (method, route, format) {
    this.method = method
    this.route = route
    this.format = format
    this.errors = 0
    this.aborted = 0
    // Response times per status code (0: unknown), the last one used at hand: an operation mostly answers
    // with one status, and exported metrics carry it (http.response.status_code).
    this.statuses = new Map()
    this.lastStatus = -1
    this.lastStatusStats = null
    // Segment statistics per layer (its info object, or one per key for segments merged from states).
    this.segments = new Map()
    this.segmentSeq = 0
    this.stateInfos = new Map()
    // The layers of the last request's path, by position, and their statistics: the requests of one
    // operation mostly take the same path, so a segment is found by comparing its layer with the one at
    // its position last time rather than by a look-up in `segments`. A path of another shape is kept in
    // `shapes` (segmentViews reads which layers of one key a request passes).
    this.pathInfos = []
    this.pathStats = []
    this.pathLength = 0
    this.shapeChanged = false
    this.shapes = []
  }

  responseTimeFor (status) {
    if (status === this.lastStatus) return this.lastStatusStats
    let stats = this.statuses.get(status)
    if (stats === undefined) {
      stats = new DurationStats()
      this.statuses.set(status, stats)
    }
    this.lastStatus = status
    this.lastStatusStats = stats
    return stats
  }

  /** The response times of every status together. */
  get responseTime () {
    if (this.statuses.size === 1) return this.lastStatusStats
    const all = new DurationStats()
    for (const stats of this.statuses.values()) all.add(stats)
    return all
  }

  /** The number of responses. */
  get count () {
    let count = 0
    for (const stats of this.statuses.values()) count += stats.count
    return count
  }

  segmentFor (info, position) {
    let stats
    if (this.pathInfos[position] === info) {
      stats = this.pathStats[position]
    } else {
      stats = this.segments.get(info)
      if (stats === undefined) {
        stats = new SegmentStats(this.segmentSeq++)
        this.segments.set(info, stats)
      }
      this.pathInfos[position] = info
      this.pathStats[position] = stats
      this.shapeChanged = true
    }
    stats.positionSum += position
    return stats
  }

  /** After a request: keeps the shape of its path (pathInfos up to `length`) when it is one not seen before. */
  notePath (length) {
    if (!this.shapeChanged && length === this.pathLength) return
    this.shapeChanged = false
    this.pathLength = length
    this.addShape(this.pathInfos.slice(0, length))
  }

  addShape (shape) {
    if (this.shapes.length >= MAX_SHAPES) return
    if (!this.shapes.some((known) => known.length === shape.length && known.every((info, i) => info === shape[i]))) {
      this.shapes.push(shape)
    }
  }

  /**
   * info -> its occurrence (2, 3, ...) among the distinct layers of its name and place (whatever their kind) in
   * one request, where above 1.
   */
  occurrences () {
    const occurrences = new Map()
    for (const shape of this.shapes) {
      const seen = new Map()
      for (const info of shape) {
        if (typeof info.key !== 'string') continue
        const place = `${info.name} ${info.file}:${info.line}`
        let infos = seen.get(place)
        if (infos === undefined) seen.set(place, (infos = []))
        if (!infos.includes(info)) infos.push(info)
        const occurrence = infos.indexOf(info) + 1
        if (occurrence > (occurrences.get(info) ?? 1)) occurrences.set(info, occurrence)
      }
    }
    return occurrences
  }

  /** The info standing for a segment merged from another process's state: one per key in this operation. */
  stateInfo ({ key, name, kind, file, line, aliases }) {
    let info = this.stateInfos.get(key)
    if (info === undefined) {
      info = Object.freeze({ key, name, kind, file, line, aliases: aliasesOf(aliases) })
      this.stateInfos.set(key, info)
    }
    return info
  }

  segmentOf (info) {
    let stats = this.segments.get(info)
    if (stats === undefined) {
      stats = new SegmentStats(this.segmentSeq++)
      this.segments.set(info, stats)
    }
    return stats
  }
}

let compiled = false

/**
 * Runs the histogram code once, when the first aggregator is made (at the app's start): V8 compiles a
 * function when it first runs, and the first request's recordRequest() spent ~1 ms compiling
 * hdr-histogram-js (benchmarks/first-request.js in @nodebench/trace).
 */
function compileOnce () {
  if (compiled) return
  compiled = true
  const stats = new DurationStats()
  stats.record(1.5)
  stats.percentileMs(50)
}

/**
 * Folds per-request timings into per-operation statistics, and turns them into breakdown snapshots.
 * A request is described by a plain object (the middleware's request record, or one rebuilt from spans):
 *   { method, route, format, responseTimeMs, errored, aborted,
 *     segmentCount, segmentInfo(i) -> { key, name, kind, file, line }, segmentDurationMs(i) }
 * A segment info is kept, not copied: its name, file, line and key may be filled in later (key null until
 * then), and are read when a snapshot or state is made.
 */
class BreakdownAggregator {
  constructor ({ service = 'unknown', maxOperations = MAX_OPERATIONS_DEFAULT } = {}) {
    this.service = service
    this.maxOperations = maxOperations
    this.reset()
    compileOnce()
  }

  reset () {
    // route -> method -> format -> OperationStats: looked up without building a key string per request.
    this.byRoute = new Map()
    this.operations = []
    this.lastOperation = null
    this.since = new Date().toISOString()
    this.droppedOperations = 0
  }

  operationFor (method, route, format) {
    // The last request's operation, compared first: an app's requests mostly come in runs of one operation, and
    // its method, route and format strings are then the same strings (compared by identity).
    const last = this.lastOperation
    if (last !== null && last.route === route && last.method === method && last.format === format) return last
    const operation = this.lookUpOperation(method, route, format)
    if (operation !== undefined) this.lastOperation = operation
    return operation
  }

  lookUpOperation (method, route, format) {
    let byMethod = this.byRoute.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.byRoute.set(route, byMethod)
    }
    let byFormat = byMethod.get(method)
    if (byFormat === undefined) {
      byFormat = new Map()
      byMethod.set(method, byFormat)
    }
    let operation = byFormat.get(format)
    if (operation === undefined) {
      // Unbounded route cardinality (e.g. regexp routes) must not grow memory without bound.
      if (this.operations.length >= this.maxOperations) return undefined
      operation = new OperationStats(method, route, format)
      byFormat.set(format, operation)
      this.operations.push(operation)
    }
    return operation
  }

  recordRequest (request) {
    const operation = this.operationFor(request.method, request.route, request.format)
    if (operation === undefined) {
      this.droppedOperations++
      return
    }
    operation.responseTimeFor(request.statusCode | 0).record(request.responseTimeMs)
    if (request.errored) operation.errors++
    if (request.aborted) operation.aborted++
    let position = 0
    for (let i = 0; i < request.segmentCount; i++) {
      const info = request.segmentInfo(i)
      // A router, mounted app or framework route contains its layers' segments: its own time is unattributed.
      if (isContainer(info)) continue
      operation.segmentFor(info, position++).record(request.segmentDurationMs(i))
    }
    operation.notePath(position)
  }

  /**
   * After recordRequest(request): the time its segments waited on dependencies (`request.dependencyTimes()`),
   * called only for a request that made calls. Apart from recordRequest, which every request runs, so that
   * one stays what it was for the requests that make none (V8 inlines what it calls by its size).
   */
  recordDependencies (request) {
    const operation = this.operationFor(request.method, request.route, request.format)
    if (operation !== undefined) recordDependencies(operation, request)
  }

  /**
   * Everything this aggregator knows, as a JSON-safe object another process can merge exactly with
   * `mergeState()` (histograms included, compressed): how cluster workers' breakdowns become one.
   */
  exportState () {
    return {
      schema: STATE_VERSION,
      service: this.service,
      since: this.since,
      droppedOperations: this.droppedOperations,
      operations: this.operations.map((operation) => ({
        method: operation.method,
        route: operation.route,
        format: operation.format,
        errors: operation.errors,
        aborted: operation.aborted,
        responseTimes: Array.from(operation.statuses, ([status, stats]) => ({ status, ...stats.exportState() })),
        segments: segmentViews(operation).map((view) => ({
          key: view.key,
          name: view.name,
          kind: view.info.kind,
          file: view.info.file,
          line: view.info.line,
          aliases: aliasesOf(view.info.aliases),
          positionSum: view.stats.positionSum,
          dependencies: view.stats.dependencyStates(),
          ...view.stats.exportState()
        }))
      }))
    }
  }

  /** Adds a state from `exportState()` (of this or another process) to this aggregator. */
  mergeState (state) {
    if (state === null || typeof state !== 'object' || state.schema !== STATE_VERSION || !Array.isArray(state.operations)) {
      throw new TypeError(`mergeState: expected a breakdown state of schema ${STATE_VERSION} (from exportState() of the same ` +
        `nodebench); received ${state === null ? 'null' : typeof state === 'object' ? `schema ${state.schema}` : typeof state}`)
    }
    if (state.since < this.since) this.since = state.since
    this.droppedOperations += state.droppedOperations
    for (const operationState of state.operations) {
      const operation = this.operationFor(operationState.method, operationState.route, operationState.format)
      if (operation === undefined) {
        for (const responseTime of operationState.responseTimes) this.droppedOperations += responseTime.count
        continue
      }
      operation.errors += operationState.errors
      operation.aborted += operationState.aborted
      for (const responseTime of operationState.responseTimes) {
        operation.responseTimeFor(responseTime.status).addState(responseTime)
      }
      for (const segmentState of operationState.segments) {
        const segment = operation.segmentOf(operation.stateInfo(segmentState))
        segment.positionSum += segmentState.positionSum
        segment.addState(segmentState)
        if (Array.isArray(segmentState.dependencies)) {
          for (const dependency of segmentState.dependencies) segment.addDependencyState(dependency)
        }
      }
    }
  }

  /**
   * Adds everything `other` (another aggregator, of this process) holds to this one, as mergeState() does
   * with a state, without encoding it.
   */
  add (other) {
    if (other.since < this.since) this.since = other.since
    this.droppedOperations += other.droppedOperations
    for (const from of other.operations) {
      const operation = this.operationFor(from.method, from.route, from.format)
      if (operation === undefined) {
        this.droppedOperations += from.count
        continue
      }
      operation.errors += from.errors
      operation.aborted += from.aborted
      for (const [status, stats] of from.statuses) operation.responseTimeFor(status).add(stats)
      for (const shape of from.shapes) operation.addShape(shape)
      for (const view of segmentViews(from)) {
        // Named layers by their key (with its occurrence), as a state would carry them; a layer not named yet
        // (no key) as itself, so that it joins its key once it is.
        const info = view.key === null
          ? view.info
          : operation.stateInfo({ ...view.info, key: view.key, name: view.name })
        const into = operation.segmentOf(info)
        into.positionSum += view.stats.positionSum
        into.add(view.stats)
        into.addDependencies(view.stats)
      }
    }
  }

  /** The breakdown snapshot (schema 1). `dropped.spans` is filled in by the caller that exports spans. */
  snapshot ({ pid = process.pid, droppedSpans = 0 } = {}) {
    const operations = []
    for (const operation of this.operations) operations.push(operationSnapshot(operation))
    operations.sort(compareOperations)
    return {
      schema: SCHEMA_VERSION,
      service: this.service,
      pid,
      since: this.since,
      operations,
      dropped: { spans: droppedSpans, operations: this.droppedOperations }
    }
  }
}

const NO_ALIASES = Object.freeze([])

/**
 * The other names a segment's function is known by (`getUsers` beside `userController.getUsers`, `rateLimit`
 * beside `rateLimiter.authLimiter`): what a workload's `dominant` may name. Empty when none (or from a state
 * written before they existed).
 */
function aliasesOf (aliases) {
  return Array.isArray(aliases) && aliases.length > 0 ? aliases.filter((alias) => typeof alias === 'string') : NO_ALIASES
}

function operationSnapshot (operation) {
  const responseTime = operation.responseTime
  const totalMs = responseTime.totalMs
  const segments = orderedSegments(operation)
  let attributedMs = 0
  const segmentSnapshots = segments.map(({ name, info, stats: segment }, order) => {
    attributedMs += segment.totalMs
    const snapshot = {
      name,
      kind: info.kind,
      order,
      file: info.file,
      line: info.line,
      aliases: aliasesOf(info.aliases),
      count: segment.count,
      meanMs: round(segment.totalMs / segment.count),
      p50Ms: round(segment.percentileMs(50)),
      p95Ms: round(segment.percentileMs(95)),
      p99Ms: round(segment.percentileMs(99)),
      totalMs: round(segment.totalMs),
      share: totalMs > 0 ? segment.totalMs / totalMs : 0
    }
    if (segment.dependencies !== null) {
      snapshot.dependencies = dependencySnapshots(segment.dependencies.values(), segment.count, totalMs)
    }
    return snapshot
  })
  return {
    method: operation.method,
    route: operation.route,
    format: operation.format,
    count: responseTime.count,
    errors: operation.errors,
    aborted: operation.aborted,
    responseTimeMs: {
      mean: round(totalMs / responseTime.count),
      p50: round(responseTime.percentileMs(50)),
      p95: round(responseTime.percentileMs(95)),
      p99: round(responseTime.percentileMs(99)),
      max: round(responseTime.maxMs),
      total: round(totalMs)
    },
    unattributedShare: totalMs > 0 ? Math.max(0, totalMs - attributedMs) / totalMs : 0,
    segments: segmentSnapshots
  }
}

/**
 * A segment's dependencies (`{ system, operation, target, calls, totalMs }`, over its `invocations`), the longest
 * waited on first: calls per invocation of the segment (`count`), time per invocation (`meanMs`, overlapping
 * calls counted once) and share of the operation's response time.
 */
function dependencySnapshots (dependencies, invocations, operationTotalMs) {
  return Array.from(dependencies)
    .sort((a, b) => b.totalMs - a.totalMs || compareText(a.system, b.system) || compareText(a.operation, b.operation) ||
      compareText(a.target, b.target))
    .map(({ system, operation, target, calls, totalMs }) => ({
      system,
      operation,
      target,
      count: invocations > 0 ? round(calls / invocations) : 0,
      meanMs: invocations > 0 ? round(totalMs / invocations) : 0,
      totalMs: round(totalMs),
      share: operationTotalMs > 0 ? totalMs / operationTotalMs : 0
    }))
}

/**
 * Adds the dependency times of a request's segments (`request.dependencyTimes()`: flat [entry index,
 * dependency { system, operation, target }, calls, ms] quadruples) to the operation's segments, found as
 * recordRequest() found them: by their position among the request's segments.
 */
function recordDependencies (operation, request) {
  const times = request.dependencyTimes()
  if (times.length === 0) return
  // The quadruples come in the order of their segments: one walk counts the segments before each (no map per
  // request: with a JSON serialisation timed, nearly every request of an API has a dependency).
  let entry = 0
  let position = 0
  for (let at = 0; at < times.length; at += 4) {
    const index = times[at]
    if (index < entry) {
      entry = 0
      position = 0
    }
    for (; entry < index; entry++) if (!isContainer(request.segmentInfo(entry))) position++
    if (index >= request.segmentCount || isContainer(request.segmentInfo(index))) continue
    const segmentPosition = position
    const dependency = times[at + 1]
    const key = typeof dependency.key === 'string'
      ? dependency.key
      : `${dependency.system} ${dependency.operation} ${dependency.target}`
    operation.pathStats[segmentPosition].recordDependency(
      key, dependency.system, dependency.operation, dependency.target, times[at + 2], times[at + 3])
  }
}

/**
 * An operation's segments in path order (by mean position, then by when each was first seen), each
 * `{ key, name, info, stats }`: its key and name with its occurrence, its layer's info, its statistics.
 */
function orderedSegments (operation) {
  return segmentViews(operation).sort((a, b) =>
    a.stats.positionSum / a.stats.count - b.stats.positionSum / b.stats.count || a.stats.firstSeen - b.stats.firstSeen)
}

function compareOperations (a, b) {
  return compareText(a.route, b.route) || compareText(a.method, b.method) || compareText(a.format, b.format)
}

function compareText (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

function round (ms) {
  return Math.round(ms * 1000) / 1000
}

module.exports = {
  SCHEMA_VERSION,
  CONTAINER_KINDS,
  isContainer,
  STATE_VERSION,
  orderedSegments,
  BreakdownAggregator,
  DurationStats,
  newHistogram,
  toMicros,
  round,
  MAX_DEPENDENCIES_PER_SEGMENT,
  dependencySnapshots
}
