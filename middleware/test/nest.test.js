'use strict'

// NestJS on its Express adapter, as Nest users write it: examples/nest-cats (TypeScript with decorators,
// compiled by the project's build), on Nest 12, 11 and 10, with `app.use(nodebenchTrace({ expose: true }))` in
// main.ts. Each major runs as a process of its own, traced and untraced: the responses must be the same, the
// breakdown must name the app's middleware, guard, interceptor (before and after the handler), pipes,
// controller method, Nest's reply and the exception filters, in the order they run, with shares summing to 1,
// and the spans read back from a real Jaeger must carry the same names.

const { test, before } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { JaegerClient } = require('@nodebench/collector')
const { startTestJaeger, eventually } = require('../../collector/test/helpers')
const { startProcess } = require('../../test/support')
const { NEST_APPS, prepareNestApps } = require('./nest-apps')

const SERVER = path.join(__dirname, 'fixtures', 'nest-server.mjs')
const KEY = { 'x-api-key': 'cats', 'x-request-id': 'nodebench-test' }
const JSON_BODY = { ...KEY, 'content-type': 'application/json' }

// Every kind of route and outcome the example has: sync, async, Observable, @Res(), a stream, the guard's 403,
// the pipes' 400, the filter's own 418, the service's 404, a create and Nest's own 404.
const REQUESTS = [
  ['GET', '/api/v1/cats/3', KEY],
  ['GET', '/api/v1/cats?limit=2', KEY],
  ['GET', '/api/v1/cats/4/async', KEY],
  ['GET', '/api/v1/cats/4/observable', KEY],
  ['GET', '/api/v1/cats/4/raw', KEY],
  ['GET', '/api/v1/cats/4/portrait.txt', KEY],
  ['GET', '/api/v1/cats/3', { 'x-request-id': 'nodebench-test' }],
  ['GET', '/api/v1/cats/abc', KEY],
  ['GET', '/api/v1/cats/teapot', KEY],
  ['GET', '/api/v1/cats/999', KEY],
  ['POST', '/api/v1/cats', JSON_BODY, JSON.stringify({ name: 'Tom', breed: 'Siamese', age: 3 })],
  ['POST', '/api/v1/cats', JSON_BODY, JSON.stringify({ name: 'T' })],
  ['GET', '/api/v1/dogs', KEY]
]
// Headers that differ between any two runs of the same app.
const VARYING_HEADERS = new Set(['date', 'x-handler-time-us', 'keep-alive'])

let jaeger
before(async (t) => {
  prepareNestApps({ onProgress: (line) => t.diagnostic(line) })
  jaeger = await startTestJaeger(t)
})

async function startNest (t, major, { traced = true } = {}) {
  const { match } = await startProcess(t, SERVER, [NEST_APPS[major]], {
    env: {
      NODEBENCH: traced ? 'on' : 'off',
      OTEL_SERVICE_NAME: `nest-cats-${major}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100'
    }
  })
  return match[1]
}

async function send (base, [method, path, headers, body]) {
  const res = await fetch(base + path, { method, headers, body })
  const answer = { status: res.status, headers: {}, body: await res.text() }
  for (const [name, value] of res.headers) if (!VARYING_HEADERS.has(name)) answer.headers[name] = value
  return answer
}

async function breakdownOf (base, { reset = false } = {}) {
  const res = await fetch(`${base}/__nodebench`, { method: reset ? 'DELETE' : 'GET', headers: { accept: 'application/json' } })
  assert.equal(res.status, 200)
  return res.json()
}

function operation (snapshot, method, route) {
  const found = snapshot.operations.find((o) => o.method === method && o.route === route)
  assert.ok(found, `${method} ${route} in ${snapshot.operations.map((o) => `${o.method} ${o.route}`)}`)
  return found
}

/** The segments from the app's own Nest middleware on: what Nest ran for the route. */
function nestSegments (op) {
  const from = op.segments.findIndex((s) => s.name === 'RequestIdMiddleware')
  assert.notEqual(from, -1, `RequestIdMiddleware in ${op.segments.map((s) => s.name)}`)
  return op.segments.slice(from).map((s) => [s.kind, s.name])
}

/** The 1-based line of the first line of `file` that holds `text`. */
function lineOf (file, text) {
  const index = fs.readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text))
  assert.notEqual(index, -1, `${text} in ${file}`)
  return index + 1
}

function assertSharesSumToOne (snapshot) {
  for (const op of snapshot.operations) {
    const sum = op.segments.reduce((total, s) => total + s.share, op.unattributedShare)
    assert.ok(Math.abs(sum - 1) < 1e-9, `${op.method} ${op.route}: shares sum to ${sum}`)
    assert.ok(op.unattributedShare >= 0)
  }
}

for (const major of Object.keys(NEST_APPS).sort((a, b) => b - a)) {
  test(`Nest ${major}: the same responses traced and untraced; every unit of the pipeline a segment, in order; spans named alike`, { timeout: 120_000 }, async (t) => {
    const untraced = await startNest(t, major, { traced: false })
    const traced = await startNest(t, major)
    for (const request of REQUESTS) {
      const [without, withNodebench] = [await send(untraced, request), await send(traced, request)]
      assert.deepEqual(withNodebench, without, `${request[0]} ${request[1]}: the same status, headers and body`)
    }
    assertSharesSumToOne(await breakdownOf(traced, { reset: true }))

    // A successful read: the guard, the interceptor around the pipe and the controller method, Nest's reply.
    const started = new Date()
    for (let i = 0; i < 20; i++) await send(traced, ['GET', `/api/v1/cats/${1 + (i % 5)}`, KEY])
    const reads = await breakdownOf(traced, { reset: true })
    const read = operation(reads, 'GET', '/api/v1/cats/:id')
    assert.equal(read.count, 20)
    assert.deepEqual(nestSegments(read), [
      ['middleware', 'RequestIdMiddleware'],
      ['guard', 'ApiKeyGuard'],
      ['interceptor', 'TimingInterceptor'],
      ['pipe', 'ParseIntPipe (id)'],
      ['handler', 'CatsController.findOne'],
      ['interceptor', 'TimingInterceptor (after)'],
      ['response', 'reply']
    ])
    for (const segment of read.segments) assert.equal(segment.count, 20, `${segment.name} once per request`)
    const findOne = read.segments.find((s) => s.name === 'CatsController.findOne')
    // Where the user wrote them: src/*.ts, placed by tsc's source maps beside dist/ (lib/source-maps.js).
    const controller = path.join(NEST_APPS[major], 'src', 'cats', 'cats.controller.ts')
    assert.equal(findOne.file, controller)
    assert.equal(findOne.line, lineOf(controller, 'findOne (@Param'))
    assert.equal(read.segments.find((s) => s.name === 'RequestIdMiddleware').file, path.join(NEST_APPS[major], 'src', 'common', 'request-id.middleware.ts'))
    assert.ok(read.segments.find((s) => s.name === 'ParseIntPipe (id)').file.includes('@nestjs'))
    assertSharesSumToOne(reads)

    // Each way a request ends early: the guard says no, a pipe refuses the value, the filter of the route answers.
    const cases = [
      [['GET', '/api/v1/cats/3', {}], '/api/v1/cats/:id', 403,
        [['guard', 'ApiKeyGuard'], ['filter', 'BaseExceptionFilter']]],
      [['GET', '/api/v1/cats/abc', KEY], '/api/v1/cats/:id', 400,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['pipe', 'ParseIntPipe (id)'],
          ['interceptor', 'TimingInterceptor (after)'], ['filter', 'BaseExceptionFilter']]],
      [['GET', '/api/v1/cats/teapot', KEY], '/api/v1/cats/teapot', 418,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['handler', 'CatsController.teapot'],
          ['interceptor', 'TimingInterceptor (after)'], ['filter', 'TeapotFilter']]],
      [['POST', '/api/v1/cats', JSON_BODY, '{"name":"Felix","breed":"Bengal","age":2}'], '/api/v1/cats', 201,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['pipe', 'CreateCatPipe (body)'],
          ['handler', 'CatsController.create'], ['interceptor', 'TimingInterceptor (after)'], ['response', 'reply']]],
      [['GET', '/api/v1/cats?limit=3', KEY], '/api/v1/cats', 200,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['pipe', 'DefaultValuePipe (query limit)'],
          ['pipe', 'ParseIntPipe (query limit)'], ['handler', 'CatsController.findAll'], ['interceptor', 'TimingInterceptor (after)'],
          ['response', 'reply']]],
      [['GET', '/api/v1/cats/2/raw', KEY], '/api/v1/cats/:id/raw', 200,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['pipe', 'ParseIntPipe (id)'],
          ['handler', 'CatsController.rawOne'], ['interceptor', 'TimingInterceptor (after)']]],
      [['GET', '/api/v1/cats/2/observable', KEY], '/api/v1/cats/:id/observable', 200,
        [['guard', 'ApiKeyGuard'], ['interceptor', 'TimingInterceptor'], ['pipe', 'ParseIntPipe (id)'],
          ['handler', 'CatsController.watchOne'], ['interceptor', 'TimingInterceptor (after)'], ['response', 'reply']]]
    ]
    for (const [request, route, status, units] of cases) {
      assert.equal((await send(traced, request)).status, status, `${request[0]} ${request[1]}`)
      const snapshot = await breakdownOf(traced, { reset: true })
      const op = operation(snapshot, request[0], route)
      assert.deepEqual(nestSegments(op).slice(1), units, `${request[0]} ${request[1]} (${status})`)
      assert.equal(op.errors, status >= 400 ? 1 : 0, `${request[0]} ${request[1]}: errors`)
      assertSharesSumToOne(snapshot)
    }

    // Spans: one trace per request, the units under the route's span, named as in the breakdown.
    const client = new JaegerClient({ url: jaeger.queryUrl })
    const spans = await eventually(async () => {
      const found = await client.findAllSpans({ service: `nest-cats-${major}`, start: new Date(started - 1000), end: new Date(), pageSize: 100 })
      const reads = found.filter((s) => s.attributes['nodebench.kind'] === 'request' && s.attributes['http.route'] === '/api/v1/cats/:id')
      return reads.length >= 20 ? found : undefined
    })
    const request = spans.find((s) => s.attributes['nodebench.kind'] === 'request' && s.attributes['http.response.status_code'] === 200 &&
      s.attributes['http.route'] === '/api/v1/cats/:id')
    const ofTrace = spans.filter((s) => s.traceId === request.traceId)
    const route = ofTrace.find((s) => s.name === 'route - CatsController.findOne')
    assert.ok(route, `the route's span in ${ofTrace.map((s) => s.name)}`)
    assert.equal(route.parentSpanId, request.spanId)
    const units = ofTrace.filter((s) => s.parentSpanId === route.spanId).sort((a, b) => (a.startNs < b.startNs ? -1 : 1))
    assert.deepEqual(units.map((s) => s.name), [
      'guard - ApiKeyGuard', 'interceptor - TimingInterceptor', 'pipe - ParseIntPipe (id)', 'handler - CatsController.findOne',
      'interceptor - TimingInterceptor (after)', 'response - reply'
    ])
    const handler = units.find((s) => s.name === 'handler - CatsController.findOne')
    assert.equal(handler.attributes['code.function.name'], 'CatsController.findOne')
    assert.match(handler.attributes['code.file.path'], /src[\\/]cats[\\/]cats\.controller\.ts$/)
    for (let i = 1; i < units.length; i++) assert.ok(units[i].startNs >= units[i - 1].endNs, `${units[i].name} starts after ${units[i - 1].name} ends`)
  })
}

test('a failure inside nodebench while it times Nest\'s units never reaches the app: the same responses, the failure counted', { timeout: 60_000 }, async (t) => {
  const { RequestRecord } = require('../lib/request-record')
  const { bootstrap } = require(path.join(NEST_APPS[11], 'dist', 'main.js'))
  const untraced = await bootstrap(0, { traced: false })
  t.after(() => untraced.close())
  const traced = await bootstrap(0, { traced: true })
  t.after(() => traced.close())
  const openUnit = RequestRecord.prototype.openUnit
  RequestRecord.prototype.openUnit = function () { throw new Error('a bug in nodebench') }
  t.after(() => { RequestRecord.prototype.openUnit = openUnit })
  for (const request of REQUESTS) {
    const [without, withNodebench] = [await send(`http://127.0.0.1:${untraced.port}`, request), await send(`http://127.0.0.1:${traced.port}`, request)]
    assert.deepEqual(withNodebench, without, `${request[0]} ${request[1]}`)
  }
  const snapshot = await breakdownOf(`http://127.0.0.1:${traced.port}`)
  assert.ok(snapshot.internalErrors > 0, 'the failures are counted')
  assertSharesSumToOne(snapshot)
})
