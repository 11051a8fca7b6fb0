'use strict'

// Breakdowns rebuilt from spans (as Jaeger stores them), without a Jaeger: the units of a NestJS route are the
// segments under the route's span, and two layers of one name and place in a request stay two segments.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { breakdownFromSpans } = require('..')

let nextId = 1
function span (traceId, parent, name, kind, startMs, endMs, attributes = {}) {
  const id = String(nextId++).padStart(16, '0')
  return {
    traceId,
    spanId: id,
    parentSpanId: parent === null ? undefined : parent.spanId,
    name,
    kind: kind === 'request' ? 2 : 1,
    service: 'svc',
    scope: '@nodebench/trace',
    startNs: BigInt(startMs * 1e6),
    endNs: BigInt(endMs * 1e6),
    attributes: { 'nodebench.kind': kind, ...attributes },
    status: { code: 0 }
  }
}

function nestTrace (traceId) {
  const request = span(traceId, null, 'GET /cats/:id', 'request', 0, 10, {
    'http.request.method': 'GET', 'http.route': '/cats/:id', 'http.response.status_code': 200, 'nodebench.format': 'json'
  })
  const named = (kind, name, line) => ({ 'code.function.name': name, 'code.file.path': '/app/dist/cats.js', 'code.line.number': line })
  const route = span(traceId, request, 'route - CatsController.findOne', 'route', 1, 10, named('route', 'CatsController.findOne', 9))
  return [
    request,
    span(traceId, request, 'middleware - stamp', 'middleware', 0.2, 0.4, named('middleware', 'stamp', 3)),
    span(traceId, request, 'middleware - stamp', 'middleware', 0.5, 0.9, named('middleware', 'stamp', 3)),
    route,
    span(traceId, route, 'guard - ApiKeyGuard', 'guard', 1, 2, named('guard', 'ApiKeyGuard', 20)),
    span(traceId, route, 'pipe - ParseIntPipe (id)', 'pipe', 2.5, 3, named('pipe', 'ParseIntPipe (id)', 30)),
    span(traceId, route, 'handler - CatsController.findOne', 'handler', 3, 7, named('handler', 'CatsController.findOne', 10)),
    span(traceId, route, 'response - reply', 'response', 8, 10, { 'code.function.name': 'reply' })
  ]
}

test('a NestJS route\'s units are its segments, in order; two layers of one name and place are two segments', () => {
  const spans = [...nestTrace('a'.repeat(32)), ...nestTrace('b'.repeat(32))]
  const snapshot = breakdownFromSpans(spans)
  assert.equal(snapshot.traces, 2)
  const [operation] = snapshot.operations
  assert.equal(operation.count, 2)
  assert.deepEqual(operation.segments.map((s) => [s.kind, s.name, s.count]), [
    ['middleware', 'stamp', 2], ['middleware', 'stamp #2', 2], ['guard', 'ApiKeyGuard', 2], ['pipe', 'ParseIntPipe (id)', 2],
    ['handler', 'CatsController.findOne', 2], ['response', 'reply', 2]
  ])
  assert.deepEqual(operation.segments.map((s) => s.totalMs), [0.4, 0.8, 2, 1, 8, 4])
  // The route's own time between its units (Nest's glue) and Express's routing are unattributed.
  assert.ok(Math.abs(operation.unattributedShare - (20 - 16.2) / 20) < 1e-9)
})

test('a request that fans out to other processes: each process\'s share and segments, and the critical path', () => {
  const { fanOutFromSpans } = require('..')
  const spans = []
  for (const [t, slowBackend] of [['c'.repeat(32), 'b2'], ['d'.repeat(32), 'b2'], ['e'.repeat(32), 'b1']]) {
    const front = span(t, null, 'GET /api/split', 'request', 0, 20, {
      'http.request.method': 'GET', 'http.route': '/api/split', 'http.response.status_code': 200, 'nodebench.format': 'json'
    })
    front.service = 'front'
    const waiting = Object.assign(span(t, front, 'handler - awaitBackends', 'handler', 1, 19, { 'code.function.name': 'awaitBackends' }), { service: 'front' })
    spans.push(front, waiting)
    for (const backend of ['b1', 'b2']) {
      const end = backend === slowBackend ? 18 : 10
      const request = Object.assign(span(t, waiting, 'GET /documents', 'request', 2, end, {
        'http.request.method': 'GET', 'http.route': '/documents', 'http.response.status_code': 200, 'nodebench.format': 'json'
      }), { service: 'back', instance: backend })
      const read = Object.assign(span(t, request, 'handler - streamDocuments', 'handler', 3, end, { 'code.function.name': 'streamDocuments' }),
        { service: 'back', instance: backend })
      spans.push(request, read)
    }
  }
  const { operations: [operation] } = fanOutFromSpans(spans, { service: 'front' })
  assert.deepEqual([operation.route, operation.requests, operation.responseTimeMs.mean], ['/api/split', 3, 20])
  assert.deepEqual(operation.callees.map((c) => [c.process, c.calls, c.callsPerRequest]), [['back b1', 3, 1], ['back b2', 3, 1]])
  // b1 took 8, 8 and 16 ms of requests of 20 ms each: 32 / 60.
  assert.ok(Math.abs(operation.callees[0].share - 32 / 60) < 1e-9)
  assert.deepEqual(operation.callees[0].segments.map((s) => s.name), ['streamDocuments'])
  assert.deepEqual(operation.criticalPath.processes, [{ process: 'back b2', requests: 2 }, { process: 'back b1', requests: 1 }])
  assert.equal(operation.criticalPath.meanMs, 16)
  assert.ok(Math.abs(operation.criticalPath.share - 48 / 60) < 1e-9)
})

/** A CLIENT span (OTLP kind 3) under `parent`, of `scope`. */
function clientSpan (traceId, parent, name, startMs, endMs, attributes, scope = '@nodebench/trace') {
  const client = span(traceId, parent, name, 'request', startMs, endMs, attributes)
  delete client.attributes['nodebench.kind']
  return Object.assign(client, { kind: 3, scope })
}

test('the CLIENT spans under a segment\'s span are its dependencies, named and attributed as the middleware does', () => {
  const spans = []
  for (const traceId of ['f'.repeat(32), '9'.repeat(32)]) {
    const request = span(traceId, null, 'GET /users', 'request', 0, 20, {
      'http.request.method': 'GET', 'http.route': '/users', 'http.response.status_code': 200, 'nodebench.format': 'json'
    })
    const auth = span(traceId, request, 'middleware - auth', 'middleware', 1, 5, { 'code.function.name': 'auth' })
    const list = span(traceId, request, 'handler - listUsers', 'handler', 6, 19, { 'code.function.name': 'listUsers' })
    // A span of the app's own inside the handler (no nodebench.kind), holding its pg call.
    const load = Object.assign(span(traceId, list, 'load', 'request', 14, 16), { kind: 1, scope: 'app' })
    delete load.attributes['nodebench.kind']
    const mongo = { 'db.system.name': 'mongodb', 'db.collection.name': 'users', 'db.namespace': 'app', 'server.address': '127.0.0.1', 'server.port': 27017 }
    spans.push(request, auth, list, load,
      clientSpan(traceId, auth, 'find users', 2, 4, { ...mongo, 'db.operation.name': 'find' }),
      // Two queries at once (a Promise.all) from 7 to 11 and 9 to 13: the union, 6 ms, split where they overlap.
      clientSpan(traceId, list, 'find users', 7, 11, { ...mongo, 'db.operation.name': 'find' }),
      clientSpan(traceId, list, 'count users', 9, 13, { ...mongo, 'db.operation.name': 'count' }),
      // An outgoing call left running when the handler ended: counted to the handler's end only.
      clientSpan(traceId, list, 'GET', 17, 25, { 'http.request.method': 'GET', 'server.address': 'api.example', 'server.port': 443 }),
      // instrumentation-mongodb's span of a call nodebench timed itself: not counted twice.
      clientSpan(traceId, list, 'mongodb.find', 7, 11, { 'db.system': 'mongodb', 'db.operation': 'find' }, '@opentelemetry/instrumentation-mongodb'),
      // The app's own pg span, under a span of its own inside the handler.
      clientSpan(traceId, load, 'SELECT', 14, 15,
        { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.collection.name': 'orders' }, '@opentelemetry/instrumentation-pg'),
      // A render: an INTERNAL span naming its dependency, after the queries.
      Object.assign(clientSpan(traceId, list, 'render users/list', 15, 16.5,
        { 'nodebench.dependency.system': 'render', 'nodebench.dependency.operation': 'pug', 'nodebench.dependency.target': 'users/list' }), { kind: 1 }))
  }
  const [operation] = breakdownFromSpans(spans, { service: 'svc' }).operations
  const [auth, list] = operation.segments
  const rows = (segment) => segment.dependencies.map((d) => [`${d.system} ${d.operation} ${d.target}`, d.count, d.meanMs])
  assert.deepEqual(rows(auth), [['mongodb find users', 1, 2]])
  assert.deepEqual(rows(list), [
    ['mongodb count users', 1, 3], ['mongodb find users', 1, 3], ['http GET api.example:443', 1, 2], ['render pug users/list', 1, 1.5], ['postgresql SELECT orders', 1, 1]
  ])
  assert.ok(Math.abs(list.dependencies[0].share - 3 / 20) < 1e-9)
})
