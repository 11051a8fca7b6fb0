'use strict'

// A segment's dependencies (DESIGN.md, "Timing semantics"): recorded per segment from the request's
// dependencyTimes(), in the snapshot, across processes (states, add) and as metrics; bounded per segment.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { BreakdownAggregator, breakdownMetrics, DEPENDENCY_METRIC, METRIC_ATTRIBUTES } = require('..')

const info = (name, kind = 'middleware') => ({ key: `${kind} ${name} app.js:1`, name, kind, file: '/app/app.js', line: 1 })
const AUTH = info('auth')
const ROUTER = info('router', 'router')
const LIST = info('listUsers', 'handler')
const FIND = { system: 'mongodb', operation: 'find', target: 'users' }
const API = { system: 'http', operation: 'GET', target: 'api.example:443' }

/** A request through auth, a router and listUsers; `times`: dependencyTimes()'s quadruples by entry index. */
function record (aggregator, request) {
  aggregator.recordRequest(request)
  if (request.dependencyCalls !== null) aggregator.recordDependencies(request)
}

function request (responseTimeMs, entries, times) {
  return {
    method: 'GET',
    route: '/users',
    format: 'json',
    responseTimeMs,
    errored: false,
    aborted: false,
    segmentCount: entries.length,
    segmentInfo: (i) => entries[i][0],
    segmentDurationMs: (i) => entries[i][1],
    dependencyCalls: times === null ? null : [],
    dependencyTimes: () => times
  }
}

function recordSome (aggregator, from = 0, to = 10) {
  for (let i = from; i < to; i++) {
    // Entry 0 auth, 1 the router (a container), 2 listUsers.
    record(aggregator, request(20, [[AUTH, 4], [ROUTER, 14], [LIST, 12]],
      i % 5 === 4 ? null : [0, FIND, 1, 2, 2, FIND, 2, 6, 2, API, 1, 3]))
  }
}

test('each segment lists its dependencies: calls and time per invocation, share of the response time', () => {
  const aggregator = new BreakdownAggregator({ service: 'svc' })
  recordSome(aggregator)
  const [operation] = aggregator.snapshot().operations
  const [auth, list] = operation.segments
  assert.equal(auth.name, 'auth')
  // 8 requests of 10 made calls.
  assert.deepEqual(auth.dependencies, [{ system: 'mongodb', operation: 'find', target: 'users', count: 0.8, meanMs: 1.6, totalMs: 16, share: 16 / 200 }])
  assert.deepEqual(list.dependencies.map((d) => [d.system, d.operation, d.target, d.count, d.meanMs, d.share]), [
    ['mongodb', 'find', 'users', 1.6, 4.8, 48 / 200],
    ['http', 'GET', 'api.example:443', 0.8, 2.4, 24 / 200]
  ])
  const segmentsAndRest = operation.segments.reduce((sum, s) => sum + s.share, operation.unattributedShare)
  assert.ok(Math.abs(segmentsAndRest - 1) < 1e-12, 'shares still sum to 1')
})

test('a segment that made no call has no dependencies entry', () => {
  const aggregator = new BreakdownAggregator()
  record(aggregator, request(10, [[AUTH, 4], [LIST, 5]], null))
  record(aggregator, request(10, [[AUTH, 4], [LIST, 5]], [1, API, 1, 2]))
  const [auth, list] = aggregator.snapshot().operations[0].segments
  assert.equal('dependencies' in auth, false)
  assert.equal(list.dependencies.length, 1)
})

test('dependencies merge exactly across processes (states through JSON) and aggregators (add)', () => {
  const whole = new BreakdownAggregator({ service: 'svc' })
  recordSome(whole, 0, 20)
  const workers = [new BreakdownAggregator({ service: 'svc' }), new BreakdownAggregator({ service: 'svc' })]
  recordSome(workers[0], 0, 7)
  recordSome(workers[1], 7, 20)
  const merged = new BreakdownAggregator({ service: 'svc' })
  for (const worker of workers) merged.mergeState(JSON.parse(JSON.stringify(worker.exportState())))
  const added = new BreakdownAggregator({ service: 'svc' })
  for (const worker of workers) added.add(worker)
  const dependenciesOf = (aggregator) => aggregator.snapshot().operations[0].segments.map((s) => s.dependencies)
  assert.deepEqual(dependenciesOf(merged), dependenciesOf(whole))
  assert.deepEqual(dependenciesOf(added), dependenciesOf(whole))
})

test('a segment keeps at most 16 dependencies; the rest are folded into other', () => {
  const aggregator = new BreakdownAggregator()
  const times = []
  for (let i = 0; i < 40; i++) times.push(0, { system: 'http', operation: 'GET', target: `host${i}:443` }, 1, 1)
  record(aggregator, request(100, [[AUTH, 50]], times))
  const [auth] = aggregator.snapshot().operations[0].segments
  assert.equal(auth.dependencies.length, 16)
  const other = auth.dependencies.find((d) => d.system === 'other')
  assert.deepEqual([other.operation, other.target, other.count, other.meanMs], ['other', 'other', 25, 25])
  assert.equal(auth.dependencies.reduce((sum, d) => sum + d.count, 0), 40)
})

test('metrics: a dependency series per operation, segment and dependency, its count the calls and its sum the time', () => {
  const aggregator = new BreakdownAggregator()
  recordSome(aggregator)
  const { dependencies } = breakdownMetrics(aggregator)
  assert.equal(DEPENDENCY_METRIC, 'nodebench.dependency.duration')
  assert.equal(dependencies.length, 3)
  const api = dependencies.find((d) => d.attributes[METRIC_ATTRIBUTES.dependencySystem] === 'http')
  assert.equal(api.attributes[METRIC_ATTRIBUTES.segmentName], 'listUsers')
  assert.equal(api.attributes[METRIC_ATTRIBUTES.dependencyOperation], 'GET')
  assert.equal(api.attributes[METRIC_ATTRIBUTES.dependencyTarget], 'api.example:443')
  assert.equal(api.histogram.count, 8)
  assert.ok(Math.abs(api.histogram.sum - 0.024) < 1e-12)
})

test('terminal table: each segment\'s dependencies on the lines under it', () => {
  const { renderTable } = require('..')
  const aggregator = new BreakdownAggregator({ service: 'svc' })
  recordSome(aggregator)
  const lines = renderTable(aggregator.snapshot()).split('\n')
  const list = lines.findIndex((line) => line.includes('listUsers'))
  assert.match(lines[list + 1], /└ mongodb find users\s+│?\s*dependency\s+│?\s*1\.6 calls\s+│?\s*4\.800 .* 24\.00%/)
  assert.match(lines[list + 2], /└ http GET api\.example:443 .*dependency .*0\.8 calls .*2\.400 .*12\.00%/)
  assert.match(lines[list + 3], /unattributed/)
  const auth = lines.findIndex((line) => line.includes(' auth '))
  assert.match(lines[auth + 1], /└ mongodb find users/)
})

test('Markdown and HTML: each segment\'s dependencies on the rows under it, the bar its own share', () => {
  const { renderMarkdown, renderHtml } = require('..')
  const aggregator = new BreakdownAggregator({ service: 'svc' })
  recordSome(aggregator)
  const snapshot = aggregator.snapshot()
  const lines = renderMarkdown(snapshot).split('\n')
  const list = lines.findIndex((line) => line.includes('| listUsers |'))
  assert.match(lines[list + 1], /^\|\s*\|\s+└ mongodb find users \| dependency \| 1\.6 calls \| 4\.800 \|\s*\|\s*\|\s*\| 24\.00% \|$/)
  assert.match(lines[list + 2], /└ http GET api\.example:443 \| dependency \| 0\.8 calls \| 2\.400 \|/)
  assert.match(lines[list + 3], /\| unattributed \|/)
  const html = renderHtml(snapshot)
  assert.match(html, /<td class="c1"> {2}└ mongodb find users<\/td><td class="c2">dependency<\/td><td class="c3">1\.6 calls<\/td>.*?<span style="width:24(\.0+\d*)?%"><\/span>/)
})
