'use strict'

// A real traced Express app exports to a real Jaeger; the breakdown read back from Jaeger must agree with
// the one the app kept in process.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { nodebenchTrace } = require('@nodebench/trace')
const { JaegerClient, breakdownFromJaeger } = require('..')
const { startTestJaeger, setEnv, eventually } = require('./helpers')
const { buildItemsApp } = require('./fixtures/items-app')

const SERVICE = 'agreement-app'
const REQUESTS = 300

test('spans reach Jaeger with their names, nesting and attributes, and the breakdown read back agrees with the app\'s', { timeout: 120_000 }, async (t) => {
  const jaeger = await startTestJaeger(t)
  setEnv(t, { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '200' })
  const trace = nodebenchTrace({ serviceName: SERVICE, sampleRatio: 1, maxQueueSize: 20_000 })
  t.after(() => trace.shutdown())
  const started = new Date()
  const server = buildItemsApp(trace, { parseJson: true }).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const base = `http://127.0.0.1:${server.address().port}`

  for (let i = 0; i < REQUESTS; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => {
      const n = i + j
      return fetch(`${base}/api/${n % 3 === 0 ? 'pages' : 'items'}/${n}`).then((r) => r.text())
    }))
  }
  await trace.flush()
  const inProcess = trace.breakdown()
  assert.equal(inProcess.dropped.spans, 0)

  // Jaeger stores what it received a moment later: wait until every request's trace is there.
  const client = new JaegerClient({ url: jaeger.queryUrl })
  const spans = await eventually(async () => {
    const found = await client.findAllSpans({ service: SERVICE, start: new Date(started - 1000), end: new Date(), pageSize: 100 })
    const requests = found.filter((s) => s.attributes['nodebench.kind'] === 'request').length
    return requests === REQUESTS ? found : undefined
  })

  // Names, nesting and attributes, on one request.
  const request = spans.find((s) => s.attributes['nodebench.kind'] === 'request' && s.attributes['http.route'] === '/api/items/:id')
  assert.equal(request.name, 'GET /api/items/:id')
  assert.equal(request.kind, 2, 'SERVER')
  assert.equal(request.service, SERVICE)
  assert.equal(request.attributes['http.request.method'], 'GET')
  assert.equal(request.attributes['http.response.status_code'], 200)
  assert.equal(request.attributes['nodebench.format'], 'json')
  assert.match(request.attributes['url.path'], /^\/api\/items\/\d+$/)
  const ofTrace = spans.filter((s) => s.traceId === request.traceId)
  const byName = (name) => ofTrace.find((s) => s.name === name)
  const router = byName('router - /api')
  assert.equal(router.parentSpanId, request.spanId)
  assert.equal(router.attributes['express.type'], 'router')
  for (const [name, parent, kind] of [
    ['middleware - jsonParser', request, 'middleware'],
    ['middleware - stamp', request, 'middleware'],
    ['param - id', router, 'param'],
    ['handler - viewItem', router, 'handler']
  ]) {
    const span = byName(name)
    assert.ok(span, `${name} in ${ofTrace.map((s) => s.name)}`)
    assert.equal(span.parentSpanId, parent.spanId, `${name} is a child of ${parent.name}`)
    assert.equal(span.attributes['nodebench.kind'], kind)
    assert.equal(typeof span.attributes['code.file.path'], 'string', `${name} has its file`)
    assert.equal(typeof span.attributes['code.line.number'], 'number', `${name} has its line`)
  }
  assert.equal(byName('handler - viewItem').attributes['code.function.name'], 'viewItem')
  assert.match(byName('handler - viewItem').attributes['code.file.path'], /fixtures\/items-app\.js$/)

  // The same breakdown from both sides: counts equal, every share within 1 percentage point.
  const fromJaeger = await breakdownFromJaeger({ url: jaeger.queryUrl, service: SERVICE, since: new Date(started - 1000) })
  assert.equal(fromJaeger.traces, REQUESTS)
  assert.equal(fromJaeger.operations.length, inProcess.operations.length)
  for (const expected of inProcess.operations) {
    const actual = fromJaeger.operations.find((o) => o.method === expected.method && o.route === expected.route && o.format === expected.format)
    assert.ok(actual, `${expected.method} ${expected.route} ${expected.format} read back from Jaeger`)
    assert.equal(actual.count, expected.count)
    assert.deepEqual(actual.segments.map((s) => [s.name, s.kind, s.count]), expected.segments.map((s) => [s.name, s.kind, s.count]))
    for (const [i, segment] of expected.segments.entries()) {
      const difference = Math.abs(actual.segments[i].share - segment.share)
      assert.ok(difference <= 0.01, `${expected.route} ${segment.name}: share ${actual.segments[i].share} from Jaeger, ${segment.share} in process`)
    }
    assert.ok(Math.abs(actual.unattributedShare - expected.unattributedShare) <= 0.01)
    assert.match(actual.exemplars.median, /^[0-9a-f]{32}$/)
    assert.match(actual.exemplars.slowest, /^[0-9a-f]{32}$/)
    t.diagnostic(`${expected.route} [${expected.format}] ${expected.count} requests: ` + expected.segments
      .map((s, i) => `${s.name} ${(s.share * 100).toFixed(2)}% / ${(actual.segments[i].share * 100).toFixed(2)}%`).join(', ') + ' (in process / from Jaeger)')
  }
})
