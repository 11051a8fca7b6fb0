'use strict'

// nodebench beside the app's own OpenTelemetry: NodeSDK with instrumentation-http and instrumentation-express
// (fixtures/own-otel-app.js, in a child process: the instrumentations patch `http` and `express` as they load).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const { execFile } = require('node:child_process')

const FIXTURE = path.join(__dirname, 'fixtures', 'own-otel-app.js')
const NODEBENCH = '@nodebench/trace'
const HTTP_SCOPE = '@opentelemetry/instrumentation-http'
const EXPRESS_SCOPE = '@opentelemetry/instrumentation-express'
const SERVER = 1

/** Runs the fixture app with `env` added; resolves its result, with its whole stdout. */
function runApp (env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FIXTURE], {
      timeout: 60_000,
      env: { ...process.env, OTEL_TRACES_SAMPLER: '', OTEL_TRACES_EXPORTER: '', OTEL_SDK_DISABLED: '', ...env }
    }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`the app failed: ${err.message}\n${stderr}`))
      const at = stdout.lastIndexOf('\nRESULT ')
      if (at === -1) return reject(new Error(`the app printed no result\n${stdout}\n${stderr}`))
      // One line; a console exporter may write after it.
      const line = stdout.slice(at + '\nRESULT '.length).split('\n')[0]
      resolve({ ...JSON.parse(line), stdout })
    })
  })
}

function rowsOf (breakdown) {
  const operation = breakdown.operations.find((o) => o.route === '/things/:id')
  assert.ok(operation, JSON.stringify(breakdown.operations.map((o) => o.route)))
  return operation.segments.map((s) => `${s.kind} ${s.name}`).sort()
}

function noticesOf (said) {
  return said.join('').split('\n').filter((line) => line.includes('instrumentation-express is active'))
}

/**
 * Every span of nodebench's is a child of the SERVER span of its trace (instrumentation-http's), or of a router's
 * span of nodebench's that is.
 */
function assertUnderServerSpans (spans) {
  const servers = spans.filter((s) => s.kind === SERVER && s.scope === HTTP_SCOPE)
  const ours = spans.filter((s) => s.scope === NODEBENCH)
  assert.ok(ours.length > 0, 'nodebench wrote spans')
  for (const span of ours) {
    let top = span
    for (let router; (router = ours.find((s) => s.spanId === top.parentSpanId && /^router - /.test(s.name))) !== undefined;) top = router
    const parent = servers.find((s) => s.spanId === top.parentSpanId)
    assert.ok(parent, `${span.name} is a child of instrumentation-http's SERVER span, not of ${span.parentSpanId}`)
    assert.equal(parent.traceId, span.traceId)
    assert.ok(['/things/:id', '/admin/users', '/reports/daily'].includes(parent.attributes['http.route']), parent.attributes['http.route'])
  }
}

/** Each layer of a request to /things/:id appears once in its trace, whoever wrote it. */
function assertEachLayerOnce (spans) {
  const byTrace = new Map()
  const things = new Set(spans.filter((s) => s.kind === SERVER && s.attributes['http.route'] === '/things/:id').map((s) => s.traceId))
  assert.ok(things.size > 0)
  for (const span of spans) {
    if (span.kind === SERVER || !things.has(span.traceId)) continue
    const names = byTrace.get(span.traceId) ?? []
    names.push(span.name)
    byTrace.set(span.traceId, names)
  }
  for (const names of byTrace.values()) {
    assert.deepEqual(names.filter((name, i) => names.indexOf(name) !== i), [], `a layer appears twice: ${names}`)
    assert.equal(names.filter((name) => /auth/.test(name)).length, 1, `auth appears once: ${names}`)
  }
}

for (const express of ['express', 'express4']) {
  const version = express === 'express4' ? 'Express 4' : 'Express 5'
  const expressOwn = express === 'express4' ? ['middleware expressInit', 'middleware query'] : []

  test(`${version}: the breakdown names the app's functions under instrumentation-express's wrapper; nodebench's layer spans stand, once each, under the SERVER span, said once`, async () => {
    const { breakdown, spans, said } = await runApp({ FIXTURE_EXPRESS: express, FIXTURE_REQUESTS: '3', FIXTURE_FLUSH: '1', FIXTURE_NESTED: '1' })
    // Not `patched`, and never nodebench's own middleware.
    assert.deepEqual(rowsOf(breakdown), ['handler readThing', 'middleware auth', ...expressOwn].sort())
    // A router and a mounted app under instrumentation-express's wrapper are still entered as such.
    const rowsAt = (route) => breakdown.operations.find((o) => o.route === route)?.segments.map((s) => `${s.kind} ${s.name}`)
    const expressFirst = express === 'express4' ? ['middleware query', 'middleware expressInit'] : []
    assert.deepEqual(rowsAt('/admin/users'), [...expressFirst, 'middleware auth', 'middleware requireAdmin', 'handler listUsers'])
    assert.deepEqual(rowsAt('/reports/daily').filter((row) => !/query|expressInit/.test(row)), ['middleware auth', 'handler dailyReport'])
    const operation = breakdown.operations.find((o) => o.route === '/things/:id')
    assert.equal(operation.count, 3)
    for (const name of ['auth', 'readThing']) {
      assert.match(operation.segments.find((s) => s.name === name).file, /own-otel-app\.js$/, `${name}: the app's file, not the wrapper's`)
    }
    const ours = spans.filter((s) => s.scope === NODEBENCH)
    const lastThing = ours.findLast((s) => s.name === 'handler - readThing').traceId
    assert.deepEqual(ours.filter((s) => s.traceId === lastThing).map((s) => s.name).sort(),
      ['handler - readThing', 'middleware - auth', ...expressOwn.map((row) => row.replace(' ', ' - '))].sort())
    assertUnderServerSpans(spans)
    assertEachLayerOnce(spans)
    // instrumentation-express spans no layer once nodebench found it (the first request runs before that).
    const firstTrace = spans.find((s) => s.kind === SERVER).traceId
    assert.deepEqual(spans.filter((s) => s.scope === EXPRESS_SCOPE && s.traceId !== firstTrace).map((s) => s.name), [])
    assert.equal(noticesOf(said).length, 1)
    assert.match(noticesOf(said)[0], /nodebench's layer spans stand .* To keep instrumentation-express's instead: nodebenchTrace\(\{ layerSpans: 'instrumentation-express' \}\)$/)
  })

  test(`${version}: layerSpans 'instrumentation-express': its layer spans stand, nodebench writes none beside them, the breakdown is the same`, async () => {
    const { breakdown, spans, said } = await runApp({
      FIXTURE_EXPRESS: express, FIXTURE_REQUESTS: '3', FIXTURE_FLUSH: '1', FIXTURE_OPTIONS: JSON.stringify({ expose: true, layerSpans: 'instrumentation-express' })
    })
    assert.deepEqual(rowsOf(breakdown), ['handler readThing', 'middleware auth', ...expressOwn].sort())
    assert.deepEqual(spans.filter((s) => s.scope === NODEBENCH).map((s) => s.name), [])
    const auth = spans.filter((s) => s.scope === EXPRESS_SCOPE && s.name === 'middleware - auth')
    assert.equal(auth.length, 3, 'instrumentation-express spans auth in each request')
    assertEachLayerOnce(spans)
    // nodebench's own middleware is no layer of the app's: left out once nodebench told instrumentation-express.
    assert.equal(spans.filter((s) => /nodebenchTraceMiddleware/.test(s.name)).length, 1, 'only on the request that found the app')
    assert.equal(noticesOf(said).length, 1)
    assert.match(noticesOf(said)[0], /its layer spans stand and nodebench writes none beside them .* nodebenchTrace\(\{ layerSpans: 'nodebench' \}\)$/)
  })
}

test("nodebench's spans reach the app's provider soon after the responses: no wait for names, nor for nodebench's export schedule", async () => {
  // Four spans of nodebench's (two requests), and two SERVER spans; no flush. A wait for the schedule (10 min
  // here) would leave them out: the app waits for them 10 s at most.
  const { spans } = await runApp({ FIXTURE_EXPECT_SPANS: '6', OTEL_BSP_SCHEDULE_DELAY: '600000' })
  assert.equal(spans.filter((s) => s.scope === NODEBENCH).length, 4)
  assertUnderServerSpans(spans)
})

test('the SERVER span is the parent, never the span that happens to be active: one that ended in the context the server started in', async () => {
  // No instrumentation-http: the server was started inside the app's `startup` span, which ended at once; every
  // request comes in with it active. nodebench makes the request's SERVER span itself, a root.
  const { spans } = await runApp({ FIXTURE_INSTRUMENTATIONS: 'express', FIXTURE_LISTEN_IN_SPAN: '1', FIXTURE_EXPECT_SPANS: '6', FIXTURE_FLUSH: '1' })
  const startup = spans.find((s) => s.name === 'startup')
  const servers = spans.filter((s) => s.scope === NODEBENCH && s.kind === SERVER)
  assert.equal(servers.length, 2)
  for (const server of servers) {
    assert.equal(server.parentSpanId, null)
    assert.notEqual(server.traceId, startup.traceId)
    assert.equal(server.name, 'GET /things/:id')
  }
  for (const span of spans.filter((s) => s.scope === NODEBENCH && s.kind !== SERVER)) {
    assert.ok(servers.some((s) => s.spanId === span.parentSpanId), `${span.name} is under nodebench's SERVER span`)
  }
})

test('a NodeSDK started after nodebench\'s first request registers its provider and gets nodebench\'s spans (and its instrumentations\' own)', async () => {
  // The first request's spans go to nodebench's own exporter, where no collector answers: it gives up after
  // 500 ms instead of the default 10 s.
  const { spans, breakdown } = await runApp({
    FIXTURE_SDK: 'after', FIXTURE_REQUESTS: '3', FIXTURE_EXPECT_SPANS: '6', FIXTURE_FLUSH: '1', OTEL_EXPORTER_OTLP_TIMEOUT: '500'
  })
  // Requests 2 and 3 came after the SDK's start: their SERVER spans and nodebench's spans are the app's.
  assert.equal(spans.filter((s) => s.scope === HTTP_SCOPE && s.kind === SERVER).length, 2)
  assert.equal(spans.filter((s) => s.scope === NODEBENCH).length, 4)
  assertUnderServerSpans(spans)
  assert.equal(breakdown.operations.find((o) => o.route === '/things/:id').count, 3)
})

test("OTEL_TRACES_EXPORTER=console: nodebenchTrace() does not throw, and the app's SDK writes nodebench's spans with its console exporter", async () => {
  const { breakdown, stdout } = await runApp({ OTEL_TRACES_EXPORTER: 'console', FIXTURE_PROCESSOR: 'env', OTEL_BSP_SCHEDULE_DELAY: '100' })
  assert.deepEqual(rowsOf(breakdown), ['handler readThing', 'middleware auth'])
  // ConsoleSpanExporter prints each span as an object: two requests, nodebench's scope.
  assert.equal(stdout.match(/name: 'middleware - auth'/g).length, 2)
  assert.match(stdout, /instrumentationScope: \{\s*name: '@nodebench\/trace'/)
})

test('OTEL_TRACES_EXPORTER=console without an SDK of the app\'s: no throw, the breakdown, and one line saying the spans wait for a provider', async () => {
  const { breakdown, said } = await runApp({ OTEL_TRACES_EXPORTER: 'console', FIXTURE_SDK: 'none' })
  assert.deepEqual(rowsOf(breakdown), ['handler readThing', 'middleware auth'])
  const lines = said.join('').split('\n').filter((line) => line.startsWith('nodebench: OTEL_TRACES_EXPORTER=console'))
  assert.equal(lines.length, 1)
  assert.match(lines[0], /the app has registered no TracerProvider, so nodebench's spans wait for one/)
})

test('OTEL_SDK_DISABLED=true: nodebench exports no spans nor metrics of its own, and its breakdown works', async (t) => {
  let received = 0
  const sink = http.createServer((req, res) => {
    received++
    req.resume()
    req.on('end', () => res.end())
  })
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => {
    sink.closeAllConnections()
    sink.close(resolve)
  }))
  const env = {
    FIXTURE_SDK: 'none', FIXTURE_FLUSH: '1', OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.address().port}`
  }
  const disabled = await runApp({ ...env, OTEL_SDK_DISABLED: 'true' })
  assert.deepEqual(rowsOf(disabled.breakdown), ['handler readThing', 'middleware auth'])
  assert.equal(received, 0)
  // The same app without the switch exports to the same endpoint (so the count above could have moved).
  await runApp({ ...env, OTEL_SDK_DISABLED: 'false' })
  assert.ok(received > 0)
})
