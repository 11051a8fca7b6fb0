'use strict'

// One segment's statistics (a layer of one operation: its durations and the dependencies it waited on), and
// which segments an operation shows, in path order.

const { DurationStats } = require('./duration-stats')

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

/**
 * An operation's segments in path order (by mean position, then by when each was first seen), each
 * `{ key, name, info, stats }`: its key and name with its occurrence, its layer's info, its statistics.
 */
function orderedSegments (operation) {
  return segmentViews(operation).sort((a, b) =>
    a.stats.positionSum / a.stats.count - b.stats.positionSum / b.stats.count || a.stats.firstSeen - b.stats.firstSeen)
}

module.exports = { SegmentStats, segmentViews, orderedSegments, MAX_DEPENDENCIES_PER_SEGMENT }
