'use strict'

// Shared by express-behaviour.test.js and express-tree.test.js. The host app must behave exactly as
// without nodebench (DESIGN.md, "Instrumentation mechanism"), so every scenario builds the same app twice,
// plain and with app.use(trace) first, sends both the same requests and compares the responses before
// anything nodebench recorded is looked at.

const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const { EventEmitter, once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]
const NODE_MODULES = `${path.sep}node_modules${path.sep}`
const WARM_UP_PATH = '/warm-up'

/** Starts `app` on a free loopback port: `{ base, close }`; `close()` also ends kept-alive connections. */
function startApp (app) {
  return listen(app)
}

/** A nodebench instance exporting to memory, shut down (global OTel provider released) after test `t`. */
function startTrace (t, options) {
  const exporter = new InMemorySpanExporter()
  const trace = nodebenchTrace({ serviceName: 'express-behaviour', exporter, ...options })
  t.after(() => trace.shutdown())
  return { trace, exporter }
}

function comparableHeaders (headers) {
  const result = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'date') result[name] = value
  }
  return result
}

/** Sends one request with fetch; HEAD goes through node:http, to get exactly the bytes on the wire. */
async function send (base, { method = 'GET', path: urlPath, headers = {} }) {
  if (method === 'HEAD') return rawRequest(base, method, urlPath, headers)
  const response = await fetch(base + urlPath, { method, headers, redirect: 'manual' })
  return {
    status: response.status,
    headers: comparableHeaders(Object.fromEntries(response.headers)),
    body: Buffer.from(await response.arrayBuffer())
  }
}

function rawRequest (base, method, urlPath, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request(base + urlPath, { method, headers, agent: false }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({
        status: response.statusCode,
        headers: comparableHeaders(response.headers),
        body: Buffer.concat(chunks)
      }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end()
  })
}

/**
 * A client that goes away mid-request: destroyed once the handler has emitted 'started', then waits until
 * the handler emits 'responded' (it answers after the client left). Nothing comes back, so the two copies
 * compare equal here; what their handlers saw is compared through `context.seen`.
 */
async function abortedRequest (base, urlPath, events) {
  const signal = AbortSignal.timeout(5000)
  const started = once(events, 'started', { signal })
  const responded = once(events, 'responded', { signal })
  const request = http.request(base + urlPath, { agent: false })
  request.on('error', () => {}) // the hang-up this client causes itself
  request.end()
  await started
  request.destroy()
  await responded
  return { status: 0, headers: {}, body: Buffer.alloc(0) }
}

function respond (copy, request) {
  return request.abort ? abortedRequest(copy.base, request.path, copy.context.events) : send(copy.base, request)
}

/** One copy of a scenario's app: `context.seen` collects what its layers observed. */
async function buildApp (t, express, scenario, trace) {
  const app = express()
  const context = { express, seen: [], events: new EventEmitter() }
  if (scenario.beforeTrace) scenario.beforeTrace(app, context)
  if (trace !== null) app.use(trace)
  scenario.build(app, context)
  const server = await startApp(app)
  t.after(() => server.close())
  return { app, context, base: server.base }
}

/** The breakdown once `count` requests are in it: 'finish' may fire after the client has read the body. */
async function recorded (trace, count) {
  for (let waitedMs = 0; ; waitedMs += 5) {
    const snapshot = trace.breakdown()
    const total = snapshot.operations.reduce((sum, operation) => sum + operation.count, 0)
    if (total >= count || waitedMs >= 2000) return snapshot
    await sleep(5)
  }
}

function assertSameResponse (actual, expected, request) {
  const what = `${request.method || 'GET'} ${request.path}`
  assert.equal(actual.status, expected.status, `${what}: status`)
  assert.deepEqual(actual.headers, expected.headers, `${what}: headers`)
  assert.ok(actual.body.equals(expected.body),
    `${what}: body ${JSON.stringify(actual.body.toString())} differs from ${JSON.stringify(expected.body.toString())}`)
}

/** Shares of an operation's segments plus its unattributed share add up to 1 (DESIGN.md, "Timing semantics"). */
function assertSharesSumToOne (operation) {
  const sum = operation.segments.reduce((total, segment) => total + segment.share, operation.unattributedShare)
  assert.ok(Math.abs(sum - 1) < 1e-9, `${operation.method} ${operation.route}: shares sum to ${sum}`)
}

/**
 * Runs `scenario` ({ build, requests, beforeTrace?, afterWarmUp?, traceOptions? }) against a plain
 * and a traced copy of its app. The traced app gets one warm-up request (the first request is timed only
 * from the nodebench layer on), then its aggregates and exporter are cleared. Returns what it recorded.
 */
async function runScenario (t, express, scenario) {
  const { trace, exporter } = startTrace(t, scenario.traceOptions)
  const plain = await buildApp(t, express, scenario, null)
  const traced = await buildApp(t, express, scenario, trace)
  for (const copy of [plain, traced]) await send(copy.base, { path: WARM_UP_PATH })
  // Its response may reach the client before 'finish' ends its record: wait for it, so it is not exported later.
  await recorded(trace, 1)
  await trace.flush()
  trace.reset()
  exporter.reset()
  if (scenario.afterWarmUp) {
    for (const copy of [plain, traced]) scenario.afterWarmUp(copy.app, copy.context)
  }
  const responses = []
  for (const request of scenario.requests) {
    const expected = await respond(plain, request)
    const actual = await respond(traced, request)
    assertSameResponse(actual, expected, request)
    responses.push(actual)
  }
  assert.deepEqual(traced.context.seen, plain.context.seen, 'the layers observed the same things')
  const snapshot = await recorded(trace, scenario.requests.length)
  for (const operation of snapshot.operations) assertSharesSumToOne(operation)
  assert.equal(snapshot.internalErrors, undefined, 'nodebench caught failures of its own')
  await trace.flush()
  return { snapshot, spans: exporter.getFinishedSpans(), responses, plain, traced, trace, exporter }
}

function describeOperations (snapshot) {
  return snapshot.operations.map((o) => `${o.method} ${o.route} ${o.format} (${o.count})`).join(', ') || 'none'
}

function operationOf (snapshot, method, route, format) {
  const operation = snapshot.operations.find((o) => o.method === method && o.route === route && o.format === format)
  assert.ok(operation, `no operation ${method} ${route} ${format}; recorded: ${describeOperations(snapshot)}`)
  return operation
}

/** `kind name` of each segment defined outside node_modules (Express 4 adds query and expressInit). */
function appSegments (operation) {
  return operation.segments
    .filter((segment) => segment.file === null || !segment.file.includes(NODE_MODULES))
    .map((segment) => `${segment.kind} ${segment.name}`)
}

function segmentOf (operation, name) {
  const segment = operation.segments.find((s) => s.name === name)
  assert.ok(segment, `no segment ${name} in ${operation.method} ${operation.route}: ${appSegments(operation).join(', ')}`)
  return segment
}

function spanNamed (spans, name) {
  const span = spans.find((s) => s.name === name)
  assert.ok(span, `no span "${name}"; exported: ${spans.map((s) => s.name).join(', ') || 'none'}`)
  return span
}

function isChildOf (span, parent) {
  return span.parentSpanContext !== undefined && span.parentSpanContext.spanId === parent.spanContext().spanId
}

/** The stack of the app's own router: `app._router` (Express 4) or `app.router` (Express 5). */
function appStack (app) {
  return (app._router !== undefined ? app._router : app.router).stack
}

module.exports = {
  EXPRESS_VERSIONS,
  WARM_UP_PATH,
  startApp,
  startTrace,
  send,
  runScenario,
  recorded,
  assertSharesSumToOne,
  operationOf,
  appSegments,
  segmentOf,
  spanNamed,
  isChildOf,
  appStack
}
