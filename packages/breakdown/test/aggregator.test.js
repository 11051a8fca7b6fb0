'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { BreakdownAggregator, SCHEMA_VERSION } = require('..')

const info = (name, kind = 'middleware') => ({ key: `${kind} ${name} app.js:1`, name, kind, file: '/app/app.js', line: 1 })
const LOGGER = info('logger')
const DATABASE = info('database', 'param')
const VIEW = info('viewDocument', 'handler')
const ROUTER = info('router', 'router')

/** A request as the middleware's record describes it: entries with their durations. */
function request (route, responseTimeMs, entries, extra = {}) {
  return {
    method: 'GET',
    route,
    format: 'json',
    responseTimeMs,
    errored: false,
    aborted: false,
    segmentCount: entries.length,
    segmentInfo: (i) => entries[i][0],
    segmentDurationMs: (i) => entries[i][1],
    ...extra
  }
}

test('shares are each segment\'s total time over the total response time, and sum to 1 with unattributed', () => {
  const aggregator = new BreakdownAggregator({ service: 'svc' })
  aggregator.recordRequest(request('/db/:database', 10, [[LOGGER, 1], [DATABASE, 4], [VIEW, 4]]))
  aggregator.recordRequest(request('/db/:database', 30, [[LOGGER, 1], [DATABASE, 20], [VIEW, 8]]))
  const snapshot = aggregator.snapshot({ pid: 7, droppedSpans: 3 })
  assert.equal(snapshot.schema, SCHEMA_VERSION)
  assert.equal(snapshot.service, 'svc')
  assert.equal(snapshot.pid, 7)
  assert.deepEqual(snapshot.dropped, { spans: 3, operations: 0 })
  const [operation] = snapshot.operations
  assert.equal(operation.count, 2)
  assert.equal(operation.responseTimeMs.mean, 20)
  assert.equal(operation.responseTimeMs.max, 30)
  assert.deepEqual(operation.segments.map((s) => [s.name, s.order, s.count, s.share]), [
    ['logger', 0, 2, 2 / 40], ['database', 1, 2, 24 / 40], ['viewDocument', 2, 2, 12 / 40]
  ])
  assert.equal(operation.unattributedShare, 2 / 40)
  const total = operation.segments.reduce((sum, s) => sum + s.share, operation.unattributedShare)
  assert.ok(Math.abs(total - 1) < 1e-12)
})

test('percentiles come from the histogram, within its 2 significant digits (1%)', () => {
  const aggregator = new BreakdownAggregator()
  for (let ms = 1; ms <= 100; ms++) aggregator.recordRequest(request('/x', ms, [[VIEW, ms / 2]]))
  const [operation] = aggregator.snapshot().operations
  assert.ok(Math.abs(operation.responseTimeMs.p50 - 50) <= 0.5, operation.responseTimeMs.p50)
  assert.ok(Math.abs(operation.responseTimeMs.p95 - 95) <= 0.95, operation.responseTimeMs.p95)
  assert.ok(Math.abs(operation.responseTimeMs.p99 - 99) <= 0.99, operation.responseTimeMs.p99)
  assert.ok(Math.abs(operation.segments[0].p50Ms - 25) <= 0.25, operation.segments[0].p50Ms)
  // A percentile never lies above the exact maximum, whatever the bucket's edge.
  const single = new BreakdownAggregator()
  single.recordRequest(request('/y', 6.037, [[VIEW, 6.037]]))
  const [one] = single.snapshot().operations
  assert.equal(one.responseTimeMs.p99, 6.037)
  assert.equal(one.segments[0].p95Ms, 6.037)
  // Means and maxima are exact, not from the histogram.
  assert.equal(operation.segments[0].meanMs, 25.25)
  assert.equal(operation.responseTimeMs.max, 100)
})

test('routers are containers: their time is not a segment', () => {
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/db/:database', 10, [[LOGGER, 1], [ROUTER, 8], [DATABASE, 3], [VIEW, 4]]))
  const [operation] = aggregator.snapshot().operations
  assert.deepEqual(operation.segments.map((s) => s.name), ['logger', 'database', 'viewDocument'])
  assert.equal(operation.unattributedShare, 2 / 10)
})

test('segments are ordered by their mean position, so a partial first request does not reorder them', () => {
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/x', 5, [[DATABASE, 1], [VIEW, 1]]))
  for (let i = 0; i < 3; i++) aggregator.recordRequest(request('/x', 5, [[LOGGER, 1], [DATABASE, 1], [VIEW, 1]]))
  assert.deepEqual(aggregator.snapshot().operations[0].segments.map((s) => s.name), ['logger', 'database', 'viewDocument'])
})

test('operations are keyed by method, route and format; errors and aborts are counted', () => {
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/x', 1, [], { format: 'html' }))
  aggregator.recordRequest(request('/x', 1, [], { format: 'json', errored: true }))
  aggregator.recordRequest(request('/x', 1, [], { method: 'POST', aborted: true }))
  const operations = aggregator.snapshot().operations
  assert.deepEqual(operations.map((o) => `${o.method} ${o.format} ${o.errors} ${o.aborted}`), ['GET html 0 0', 'GET json 1 0', 'POST json 0 1'])
})

test('the number of operations is bounded; what does not fit is counted', () => {
  const aggregator = new BreakdownAggregator({ maxOperations: 2 })
  for (let i = 0; i < 5; i++) aggregator.recordRequest(request(`/x/${i}`, 1, []))
  const snapshot = aggregator.snapshot()
  assert.equal(snapshot.operations.length, 2)
  assert.equal(snapshot.dropped.operations, 3)
})

test('reset clears the aggregates and restarts `since`', async () => {
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/x', 1, []))
  const before = aggregator.snapshot().since
  await new Promise((resolve) => setTimeout(resolve, 5))
  aggregator.reset()
  const after = aggregator.snapshot()
  assert.deepEqual(after.operations, [])
  assert.ok(after.since > before)
})

test('states exported by several aggregators merge into exactly the snapshot one aggregator would give', () => {
  const whole = new BreakdownAggregator({ service: 'svc' })
  const workers = [new BreakdownAggregator({ service: 'svc' }), new BreakdownAggregator({ service: 'svc' })]
  for (let i = 0; i < 200; i++) {
    const entries = [[LOGGER, 0.1 + (i % 7) / 10], [DATABASE, 1 + (i % 13)], [VIEW, 2 + (i % 5)]]
    const responseTimeMs = entries.reduce((sum, [, ms]) => sum + ms, 0.5)
    const extra = { errored: i % 50 === 0, aborted: i % 99 === 0, format: i % 3 === 0 ? 'html' : 'json' }
    whole.recordRequest(request('/db/:database', responseTimeMs, entries, extra))
    workers[i % 2].recordRequest(request('/db/:database', responseTimeMs, entries, extra))
  }
  const merged = new BreakdownAggregator({ service: 'svc' })
  // Through JSON, as the states travel between processes.
  for (const worker of workers) merged.mergeState(JSON.parse(JSON.stringify(worker.exportState())))
  const expected = whole.snapshot({ pid: 1 })
  const actual = merged.snapshot({ pid: 1 })
  assert.equal(actual.since <= workers[0].since, true)
  delete expected.since
  delete actual.since
  // Sums of floating-point durations differ in the last bits with the order of addition.
  const roundShares = (snapshot) => JSON.parse(JSON.stringify(snapshot, (key, value) =>
    typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(9)) : value))
  assert.deepEqual(roundShares(actual), roundShares(expected))
  assert.equal(actual.operations.length, 2)
  assert.equal(actual.operations.reduce((sum, o) => sum + o.count, 0), 200)
})

test('mergeState rejects what is not a state, and counts operations past maxOperations as dropped', () => {
  const aggregator = new BreakdownAggregator({ maxOperations: 1 })
  assert.throws(() => aggregator.mergeState({ schema: 99, operations: [] }), /expected a breakdown state of schema 2 \(from exportState\(\) of the same nodebench\); received schema 99/)
  assert.throws(() => aggregator.mergeState(null), /received null/)
  const other = new BreakdownAggregator()
  other.recordRequest(request('/a', 1, [[VIEW, 1]]))
  other.recordRequest(request('/b', 1, [[VIEW, 1]]))
  other.recordRequest(request('/b', 1, [[VIEW, 1]]))
  aggregator.mergeState(other.exportState())
  const snapshot = aggregator.snapshot()
  assert.deepEqual(snapshot.operations.map((o) => [o.route, o.count]), [['/a', 1]])
  assert.equal(snapshot.dropped.operations, 2)
})

test('the histogram finds each value\'s bucket as hdr-histogram-js does, from 0 to the highest trackable value', () => {
  const hdr = require('hdr-histogram-js')
  const { newHistogram } = require('../lib/aggregator')
  const ours = newHistogram()
  const library = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 2, bitBucketSize: 32, useWebAssembly: false })
  const values = []
  for (let value = 0; value <= 70_000; value++) values.push(value)
  // Both sides of every power of two (the bucket boundaries), and values spread over the whole range.
  for (let exponent = 1; exponent < 32; exponent++) values.push(2 ** exponent - 1, 2 ** exponent, 2 ** exponent + 1)
  for (let i = 0; i < 20_000; i++) values.push(Math.floor(Math.random() * 3_600_000_000))
  values.push(3_600_000_000)
  for (const value of values.filter((v) => v <= 3_600_000_000)) {
    const expected = library.countsArrayIndex(value)
    const actual = ours.countsArrayIndex(value)
    if (actual !== expected) assert.fail(`value ${value}: bucket index ${actual}, hdr-histogram-js ${expected}`)
  }
  for (const value of values.slice(0, 5000).concat(values.slice(-2000))) {
    if (value === 0 || value > 3_600_000_000) continue
    ours.recordValue(value)
    library.recordValue(value)
  }
  assert.equal(hdr.encodeIntoCompressedBase64(ours), hdr.encodeIntoCompressedBase64(library))
  for (const p of [50, 95, 99, 100]) assert.equal(ours.getValueAtPercentile(p), library.getValueAtPercentile(p))
})

test('a duration is counted in the bucket hdr-histogram-js records its microseconds in', () => {
  const hdr = require('hdr-histogram-js')
  const { DurationStats, toMicros } = require('../lib/aggregator')
  const stats = new DurationStats()
  const library = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 2, bitBucketSize: 32, useWebAssembly: false })
  const durations = [0, 0.0004, 0.0011, 0.127, 0.128, 0.1285, 0.255, 0.256, 1, 3.5, 1023.999, 65_536.5, 3_600_000, 5_000_000]
  for (let i = 0; i < 3000; i++) durations.push(Math.random() * 10 ** Math.floor(Math.random() * 7))
  for (const ms of durations) {
    stats.record(ms)
    library.recordValue(toMicros(ms))
  }
  assert.equal(hdr.encodeIntoCompressedBase64(stats.synced()), hdr.encodeIntoCompressedBase64(library))
})

test('a state\'s histogram is encoded and decoded as hdr-histogram-js\'s index does it, without loading its WebAssembly build', () => {
  const hdr = require('hdr-histogram-js')
  const { DurationStats } = require('../lib/aggregator')
  const stats = new DurationStats()
  for (let i = 0; i < 2000; i++) stats.record(Math.random() * 10 ** Math.floor(Math.random() * 6))
  const state = stats.exportState()
  assert.equal(state.histogram, hdr.encodeIntoCompressedBase64(stats.synced()))
  const merged = new DurationStats()
  merged.addState(state)
  merged.addState(JSON.parse(JSON.stringify(state)))
  const library = hdr.decodeFromCompressedBase64(state.histogram, 32, false)
  library.add(library)
  assert.equal(hdr.encodeIntoCompressedBase64(merged.synced()), hdr.encodeIntoCompressedBase64(library))
  for (const p of [1, 50, 99, 100]) assert.equal(merged.synced().getValueAtPercentile(p), library.getValueAtPercentile(p))

  // The files required by path are the ones the index exports (the package has no exports map to pin them).
  const { JsHistogram } = require('hdr-histogram-js/dist/JsHistogram')
  assert.equal(require('hdr-histogram-js/dist/Int32Histogram').default, hdr.Int32Histogram)
  assert.equal(JsHistogram, hdr.JsHistogram)
  // @assemblyscript/loader is an ES module: a runner that does not transform node_modules (Jest 27) cannot load it.
  const loaded = execFileSync(process.execPath, ['-e', `
    const { BreakdownAggregator } = require(${JSON.stringify(path.join(__dirname, '..'))})
    new BreakdownAggregator().exportState()
    console.log(JSON.stringify(Object.keys(require.cache)))`], { encoding: 'utf8' })
  const wasm = JSON.parse(loaded).filter((file) => /@assemblyscript|hdr-histogram-js[\\/]dist[\\/](wasm|index\.js)/.test(file))
  assert.deepEqual(wasm, [])
})

test('segments recorded before their layer is named are merged with the same layer\'s (and key\'s) once it is', () => {
  // The middleware names layers off the request path: a layer's info has key null until then.
  const unnamed = (kind) => ({ key: null, name: null, kind, file: null, line: null })
  const name = (layer, named) => Object.assign(layer, named)
  const logger = unnamed('middleware')
  const view = unnamed('handler')
  // Another layer running the same function at the same place: one segment, as before naming existed.
  const sameViewElsewhere = unnamed('handler')
  const named = new BreakdownAggregator()
  const lazy = new BreakdownAggregator()
  const requests = [[10, 1, 6], [20, 2, 15], [30, 3, 20]]
  requests.forEach(([total, loggerMs, viewMs], i) => {
    named.recordRequest(request('/docs/:id', total, [[LOGGER, loggerMs], [VIEW, viewMs]]))
    lazy.recordRequest(request('/docs/:id', total, [[logger, loggerMs], [i === 1 ? sameViewElsewhere : view, viewMs]]))
    if (i === 1) {
      // Named between the second and the third request, as a snapshot or an export would.
      for (const layer of [view, sameViewElsewhere]) name(layer, VIEW)
      name(logger, LOGGER)
    }
  })
  const expected = named.snapshot({ pid: 1 })
  const actual = lazy.snapshot({ pid: 1 })
  actual.since = expected.since
  assert.deepEqual(actual, expected)
  assert.deepEqual(lazy.exportState().operations[0].segments.map((s) => [s.key, s.responseTime === undefined ? s.count : null]),
    [[LOGGER.key, 3], [VIEW.key, 3]])
  // A state merged into another aggregator keeps one segment per key too.
  const merged = new BreakdownAggregator()
  merged.mergeState(lazy.exportState())
  merged.mergeState(named.exportState())
  assert.deepEqual(merged.snapshot().operations[0].segments.map((s) => [s.name, s.count]), [['logger', 6], ['viewDocument', 6]])
})

test('distinct layers of one name and place in one request are distinct segments (#2, #3), in every aggregate made of them', () => {
  // Three validation chains made by one factory: the same name, file and line, three layers.
  const chain = () => ({ key: 'handler middleware /app/node_modules/validator/chain.js:10', name: 'middleware', kind: 'handler', file: '/app/node_modules/validator/chain.js', line: 10 })
  const [first, second, third] = [chain(), chain(), chain()]
  const aggregator = new BreakdownAggregator()
  for (let i = 0; i < 3; i++) aggregator.recordRequest(request('/users/:id', 10, [[LOGGER, 1], [first, 1], [second, 2], [third, 3], [VIEW, 2]]))
  const names = (snapshot) => snapshot.operations[0].segments.map((s) => [s.name, s.count, s.totalMs])
  const expected = [['logger', 3, 3], ['middleware', 3, 3], ['middleware #2', 3, 6], ['middleware #3', 3, 9], ['viewDocument', 3, 6]]
  assert.deepEqual(names(aggregator.snapshot()), expected)
  // Merged from a state (another process), added to another aggregator (a lifetime total): the same segments.
  const merged = new BreakdownAggregator()
  merged.mergeState(aggregator.exportState())
  merged.mergeState(aggregator.exportState())
  assert.deepEqual(names(merged.snapshot()), expected.map(([name, count, total]) => [name, count * 2, total * 2]))
  const added = new BreakdownAggregator()
  added.add(aggregator)
  added.add(merged)
  assert.deepEqual(names(added.snapshot()), expected.map(([name, count, total]) => [name, count * 3, total * 3]))
})

test('a framework route (kind route) contains its units, as a router does: its own time is unattributed', () => {
  const route = info('CatsController.findOne', 'route')
  const guard = info('ApiKeyGuard', 'guard')
  const handler = info('CatsController.findOne', 'handler')
  const aggregator = new BreakdownAggregator()
  aggregator.recordRequest(request('/cats/:id', 10, [[LOGGER, 1], [route, 8], [guard, 1], [handler, 5]]))
  const [operation] = aggregator.snapshot().operations
  assert.deepEqual(operation.segments.map((s) => [s.kind, s.name]), [['middleware', 'logger'], ['guard', 'ApiKeyGuard'], ['handler', 'CatsController.findOne']])
  assert.equal(operation.unattributedShare, 3 / 10)
})

test('the other names a segment is known by (aliases) are in its snapshot, and survive a merge across processes', () => {
  const getUsers = { ...info('userController.getUsers', 'handler'), aliases: Object.freeze(['getUsers']) }
  const worker = new BreakdownAggregator({ service: 'svc' })
  worker.recordRequest(request('/v1/users', 10, [[LOGGER, 1], [getUsers, 8]]))
  const merged = new BreakdownAggregator({ service: 'svc' })
  merged.mergeState(JSON.parse(JSON.stringify(worker.exportState())))
  for (const snapshot of [worker.snapshot(), merged.snapshot()]) {
    assert.deepEqual(snapshot.operations[0].segments.map((s) => [s.name, s.aliases]), [['logger', []], ['userController.getUsers', ['getUsers']]])
  }
})
