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
