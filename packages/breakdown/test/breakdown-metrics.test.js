'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { BreakdownAggregator, breakdownMetrics, BOUNDARIES_SECONDS, METRIC_ATTRIBUTES: A, UNATTRIBUTED } = require('..')
const { DurationStats } = require('../lib/aggregator')

const info = (name, kind = 'middleware') => ({ key: `${kind} ${name} app.js:1`, name, kind, file: '/app/app.js', line: 1 })
const LOGGER = info('logger')
const VIEW = info('viewDocument', 'handler')

function request (route, responseTimeMs, statusCode, entries) {
  return {
    method: 'GET',
    route,
    format: 'html',
    responseTimeMs,
    statusCode,
    errored: statusCode >= 500,
    aborted: false,
    segmentCount: entries.length,
    segmentInfo: (i) => entries[i][0],
    segmentDurationMs: (i) => entries[i][1]
  }
}

test('bucket counts: each value in the first bound at or above it, cumulative nowhere, all counted', () => {
  const stats = new DurationStats()
  const values = [0.04, 0.3, 1.05, 1.2, 2.3, 7, 20000]
  for (const ms of values) stats.record(ms)
  const bounds = [50, 100, 250, 500, 1000, 2500, 5000, 10000]
  const counts = new Array(bounds.length + 1).fill(0)
  stats.addBucketCounts(bounds, counts)
  assert.deepEqual(counts, [1, 0, 0, 1, 0, 3, 0, 1, 1])
})

test('metrics: a series per operation and status, one per segment in path order, and the remainder last', () => {
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/items/:id', 10, 200, [[LOGGER, 1], [VIEW, 6]]))
  aggregator.recordRequest(request('/items/:id', 20, 200, [[LOGGER, 2], [VIEW, 15]]))
  aggregator.recordRequest(request('/items/:id', 4, 404, [[LOGGER, 1], [VIEW, 1]]))
  const { requests, segments } = breakdownMetrics(aggregator)
  assert.deepEqual(requests.map((r) => [r.attributes[A.status], r.histogram.count, r.histogram.sum]), [[200, 2, 0.03], [404, 1, 0.004]])
  assert.deepEqual(requests[0].attributes, { [A.method]: 'GET', [A.route]: '/items/:id', [A.format]: 'html', [A.status]: 200 })
  assert.equal(requests[0].histogram.boundaries, BOUNDARIES_SECONDS)
  assert.equal(requests[0].histogram.counts.reduce((a, b) => a + b), 2)
  assert.deepEqual(segments.map((s) => [s.attributes[A.segmentOrder], s.attributes[A.segmentName], s.attributes[A.segmentKind], s.histogram.count]),
    [[0, 'logger', 'middleware', 3], [1, 'viewDocument', 'handler', 3], [2, UNATTRIBUTED, UNATTRIBUTED, 3]])
  // Sums give the snapshot's shares exactly.
  const [operation] = aggregator.snapshot().operations
  const total = requests.reduce((sum, r) => sum + r.histogram.sum, 0)
  assert.ok(Math.abs(segments[1].histogram.sum / total - operation.segments[1].share) < 1e-12)
  assert.ok(Math.abs(segments[2].histogram.sum / total - operation.unattributedShare) < 1e-12)
  assert.deepEqual(segments[2].histogram.counts, [3])
  assert.deepEqual(segments[2].histogram.boundaries, [])
})

test('add(): another aggregator\'s figures, per status and segment, as mergeState() gives them', () => {
  const a = new BreakdownAggregator()
  const b = new BreakdownAggregator()
  a.recordRequest(request('/x', 10, 200, [[LOGGER, 1], [VIEW, 6]]))
  b.recordRequest(request('/x', 20, 500, [[LOGGER, 2], [VIEW, 15]]))
  b.recordRequest(request('/y', 5, 200, [[VIEW, 4]]))
  const viaAdd = new BreakdownAggregator()
  viaAdd.add(a)
  viaAdd.add(b)
  const viaState = new BreakdownAggregator()
  viaState.mergeState(a.exportState())
  viaState.mergeState(b.exportState())
  assert.deepEqual(viaAdd.snapshot({ pid: 1 }), { ...viaState.snapshot({ pid: 1 }), since: viaAdd.since })
  assert.deepEqual(breakdownMetrics(viaAdd), breakdownMetrics(viaState))
  assert.deepEqual(viaAdd.snapshot().operations.map((o) => [o.route, o.count, o.errors]), [['/x', 2, 1], ['/y', 1, 0]])
})
