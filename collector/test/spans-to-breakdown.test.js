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
