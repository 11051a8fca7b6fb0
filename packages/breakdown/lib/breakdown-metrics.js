'use strict'

const { orderedSegments } = require('./aggregator')

// The breakdown as metrics: what an aggregator holds, as cumulative histograms whose sums keep every share
// exact across any set of processes and any window (sum of a segment's durations over sum of its operation's
// response times), and whose buckets give percentiles. One series per operation and status code for the
// response time, one per operation and segment for each segment, and one per operation for the time no
// segment covers (Express's routing, gaps, the socket's flush), so that the segments and the remainder add
// up to the response time. The names and attributes are those of OpenTelemetry's semantic conventions for
// HTTP servers, and nodebench's own for segments; `report --source prometheus` reads them back.

const REQUEST_METRIC = 'http.server.request.duration'
const SEGMENT_METRIC = 'nodebench.segment.duration'
// The time a segment waited on one dependency (overlapping calls counted once), one series per operation,
// segment and dependency: its count is the calls, its sum the time. As bounded as the breakdown's dependencies.
const DEPENDENCY_METRIC = 'nodebench.dependency.duration'

const ATTRIBUTES = Object.freeze({
  method: 'http.request.method',
  route: 'http.route',
  status: 'http.response.status_code',
  format: 'nodebench.format',
  segmentName: 'nodebench.segment.name',
  segmentKind: 'nodebench.segment.kind',
  segmentOrder: 'nodebench.segment.order',
  dependencySystem: 'nodebench.dependency.system',
  dependencyOperation: 'nodebench.dependency.operation',
  dependencyTarget: 'nodebench.dependency.target'
})

/** The remainder's segment name and kind: the time of a response no segment covers. */
const UNATTRIBUTED = 'unattributed'

// Bucket bounds in seconds: OpenTelemetry's advice for http.server.request.duration (5 ms to 10 s) with
// finer ones below, since most segments of a fast app take well under a millisecond.
const BOUNDARIES_SECONDS = Object.freeze([
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10
])
const BOUNDARIES_MICROS = Object.freeze(BOUNDARIES_SECONDS.map((seconds) => Math.round(seconds * 1e6)))

/** `stats` (a DurationStats) as a histogram in seconds: `{ count, sum, max, boundaries, counts }`. */
function histogramOf (stats) {
  const counts = new Array(BOUNDARIES_SECONDS.length + 1).fill(0)
  stats.addBucketCounts(BOUNDARIES_MICROS, counts)
  return {
    count: stats.count, sum: stats.totalMs / 1000, max: stats.maxMs / 1000, boundaries: BOUNDARIES_SECONDS, counts
  }
}

/**
 * The metrics of `aggregator`: `{ requests, segments, dependencies }`, each a list of `{ attributes,
 * histogram }` (a dependency's histogram has a count, its calls, and a sum only, as the remainder's). The
 * remainder is a segment whose histogram has a count and a sum only (its per-request durations are not
 * recorded; its share is what the sums give). Segment order is the snapshot's path order; the remainder
 * comes last.
 */
function breakdownMetrics (aggregator) {
  const requests = []
  const segments = []
  const dependencies = []
  for (const operation of aggregator.operations) {
    const base = {
      [ATTRIBUTES.method]: operation.method, [ATTRIBUTES.route]: operation.route, [ATTRIBUTES.format]: operation.format
    }
    let count = 0
    let totalMs = 0
    for (const [status, stats] of operation.statuses) {
      const attributes = status === 0 ? { ...base } : { ...base, [ATTRIBUTES.status]: status }
      requests.push({ attributes, histogram: histogramOf(stats) })
      count += stats.count
      totalMs += stats.totalMs
    }
    let attributedMs = 0
    const ordered = orderedSegments(operation)
    for (const [order, { name, info, stats }] of ordered.entries()) {
      attributedMs += stats.totalMs
      const attributes = {
        ...base,
        [ATTRIBUTES.segmentName]: name ?? '<unnamed>',
        [ATTRIBUTES.segmentKind]: info.kind,
        [ATTRIBUTES.segmentOrder]: order
      }
      segments.push({ attributes, histogram: histogramOf(stats) })
      if (stats.dependencies === null) continue
      for (const dependency of stats.dependencies.values()) {
        dependencies.push({
          attributes: {
            ...attributes,
            [ATTRIBUTES.dependencySystem]: dependency.system,
            [ATTRIBUTES.dependencyOperation]: dependency.operation,
            [ATTRIBUTES.dependencyTarget]: dependency.target
          },
          histogram: {
            count: dependency.calls, sum: dependency.totalMs / 1000, boundaries: [], counts: [dependency.calls]
          }
        })
      }
    }
    segments.push({
      attributes: {
        ...base,
        [ATTRIBUTES.segmentName]: UNATTRIBUTED,
        [ATTRIBUTES.segmentKind]: UNATTRIBUTED,
        [ATTRIBUTES.segmentOrder]: ordered.length
      },
      histogram: { count, sum: Math.max(0, totalMs - attributedMs) / 1000, boundaries: [], counts: [count] }
    })
  }
  return { requests, segments, dependencies }
}

module.exports = {
  REQUEST_METRIC, SEGMENT_METRIC, DEPENDENCY_METRIC, ATTRIBUTES, UNATTRIBUTED, BOUNDARIES_SECONDS, breakdownMetrics
}
