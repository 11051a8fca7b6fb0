'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const express = require('express5')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { nodebenchTrace } = require('..')
const { BreakdownAggregator } = require('@nodebench/breakdown')
const { listen, closedPort, withEnv } = require('./helpers')

function smallApp (trace) {
  const app = express()
  app.use(trace)
  app.use(function tag (req, res, next) { res.set('x-tag', '1'); next() })
  app.get('/items/:id', function showItem (req, res) { res.json({ id: req.params.id }) })
  return app
}

async function requestMany (base, count, concurrency = 10) {
  const statuses = []
  let next = 0
  async function worker () {
    while (next < count) {
      next++
      const response = await fetch(`${base}/items/${next}`)
      await response.text()
      statuses.push(response.status)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return statuses
}

test('collector down: every request succeeds, the queue stays bounded, lost spans are counted', async () => {
  const port = await closedPort()
  await withEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_EXPORTER_OTLP_TIMEOUT: '500', OTEL_BSP_EXPORT_TIMEOUT: '500'
  }, async () => {
    const trace = nodebenchTrace({ serviceName: 'down', maxQueueSize: 32 })
    const { base, close } = await listen(smallApp(trace))
    try {
      const statuses = await requestMany(base, 200)
      assert.deepEqual(new Set(statuses), new Set([200]))
      await trace.flush().catch(() => {})
      const snapshot = trace.breakdown()
      assert.equal(snapshot.operations[0].count, 200)
      // 3 spans per request (request, tag, showItem): none can have been delivered.
      assert.ok(snapshot.dropped.spans > 0, `dropped ${snapshot.dropped.spans}`)
      assert.ok(snapshot.dropped.spans <= 600)
    } finally {
      await close()
      await trace.shutdown()
    }
  })
})

test('collector hanging: requests are not held up by the export', async () => {
  const sockets = new Set()
  const hanging = http.createServer(() => {}) // accepts, never answers
  hanging.on('connection', (socket) => sockets.add(socket))
  await new Promise((resolve) => hanging.listen(0, '127.0.0.1', resolve))
  await withEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${hanging.address().port}`,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_EXPORTER_OTLP_TIMEOUT: '500',
    OTEL_BSP_EXPORT_TIMEOUT: '500'
  }, async () => {
    const trace = nodebenchTrace({ serviceName: 'hanging', maxQueueSize: 16 })
    const { base, close } = await listen(smallApp(trace))
    try {
      const started = Date.now()
      const statuses = await requestMany(base, 150)
      // A liveness bound, not a speed claim: with the export awaited on the request path, 150 requests
      // behind a 500 ms timeout would take minutes.
      assert.ok(Date.now() - started < 20_000)
      assert.deepEqual(new Set(statuses), new Set([200]))
      assert.ok(trace.breakdown().dropped.spans > 0)
    } finally {
      await close()
      await trace.shutdown()
      for (const socket of sockets) socket.destroy()
      hanging.close()
    }
  })
})

test('a throwing exporter never reaches the app', async () => {
  const exporter = {
    export () { throw new Error('exporter bug') },
    shutdown () { return Promise.resolve() }
  }
  const trace = nodebenchTrace({ exporter })
  const { base, close } = await listen(smallApp(trace))
  try {
    const statuses = await requestMany(base, 20)
    assert.deepEqual(new Set(statuses), new Set([200]))
    await trace.flush()
    assert.equal(trace.breakdown().dropped.spans, 60)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('a failure inside nodebench while finishing a request never reaches the app', async (t) => {
  const original = BreakdownAggregator.prototype.recordRequest
  BreakdownAggregator.prototype.recordRequest = function () { throw new Error('aggregator bug') }
  t.after(() => { BreakdownAggregator.prototype.recordRequest = original })
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(smallApp(trace))
  try {
    const response = await fetch(`${base}/items/1`)
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { id: '1' })
    const again = await fetch(`${base}/items/2`)
    assert.equal(again.status, 200)
    assert.ok(trace.breakdown().internalErrors >= 2)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test("exporter 'none': breakdown only, no OpenTelemetry provider is registered", async () => {
  const api = require('@opentelemetry/api')
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(smallApp(trace))
  try {
    await requestMany(base, 5)
    assert.equal(trace.breakdown().operations[0].count, 5)
    assert.equal(api.trace.getTracerProvider().getDelegate(), new api.ProxyTracerProvider().getDelegate())
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('shutdown flushes the spans and unregisters the SDK nodebench started', async () => {
  const api = require('@opentelemetry/api')
  // InMemorySpanExporter forgets its spans on shutdown; keep what reached it.
  const exported = []
  const exporter = new InMemorySpanExporter()
  const originalExport = exporter.export.bind(exporter)
  exporter.export = (spans, done) => { exported.push(...spans); originalExport(spans, done) }
  const trace = nodebenchTrace({ exporter })
  const { base, close } = await listen(smallApp(trace))
  await requestMany(base, 3, 1)
  await close()
  assert.notEqual(api.trace.getTracerProvider().getDelegate(), new api.ProxyTracerProvider().getDelegate())
  await trace.shutdown()
  assert.equal(api.trace.getTracerProvider().getDelegate(), new api.ProxyTracerProvider().getDelegate())
  // Every request was traced; the first is timed from the nodebenchTrace layer on.
  assert.equal(exported.filter((s) => s.kind === api.SpanKind.SERVER).length, 3)
})

test('OpenTelemetry failing to start turns spans off; the app and the breakdown carry on', async (t) => {
  const api = require('@opentelemetry/api')
  const originalRegister = api.trace.setGlobalTracerProvider
  api.trace.setGlobalTracerProvider = function () { throw new Error('provider cannot be registered') }
  t.after(() => { api.trace.setGlobalTracerProvider = originalRegister })
  const trace = nodebenchTrace({ exporter: new InMemorySpanExporter() })
  const { base, close } = await listen(smallApp(trace))
  try {
    const statuses = await requestMany(base, 5, 1)
    assert.deepEqual(new Set(statuses), new Set([200]))
    const snapshot = trace.breakdown()
    assert.equal(snapshot.operations[0].count, 5)
    assert.ok(snapshot.internalErrors >= 1)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('activeContext: spans the app creates are exported by the provider nodebench registered, under the request span', async () => {
  const api = require('@opentelemetry/api')
  const exporter = new InMemorySpanExporter()
  const exported = []
  const originalExport = exporter.export.bind(exporter)
  exporter.export = (spans, done) => { exported.push(...spans); originalExport(spans, done) }
  const trace = nodebenchTrace({ exporter, activeContext: true })
  const app = express()
  app.use(trace)
  app.get('/items/:id', async function showItem (req, res) {
    await new Promise((resolve) => setTimeout(resolve, 1)) // the context must survive an await
    api.trace.getTracer('app').startActiveSpan('load item', (span) => {
      span.end()
      res.json({ id: req.params.id })
    })
  })
  const { base, close } = await listen(app)
  try {
    const response = await fetch(`${base}/items/7`)
    assert.equal(response.status, 200)
    await response.text()
    await close()
    await trace.flush()
    const server = exported.find((span) => span.kind === api.SpanKind.SERVER)
    const own = exported.find((span) => span.name === 'load item')
    assert.ok(server && own, `exported: ${exported.map((span) => span.name).join(', ')}`)
    assert.equal(own.spanContext().traceId, server.spanContext().traceId)
    assert.equal(own.parentSpanContext.spanId, server.spanContext().spanId)
  } finally {
    await trace.shutdown()
  }
  assert.equal(api.context.active(), api.ROOT_CONTEXT, 'the context manager is unregistered on shutdown')
})

test("exporter 'otlp': a second nodebenchTrace() in the process shares the first one's export; each shuts down on its own", async () => {
  const api = require('@opentelemetry/api')
  const bodies = []
  const collector = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('latin1'))
      res.setHeader('Content-Type', 'application/x-protobuf')
      res.end()
    })
  })
  await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve))
  await withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.address().port}` }, async () => {
    const traceA = nodebenchTrace({ serviceName: 'shared-a' })
    const traceB = nodebenchTrace({ serviceName: 'shared-b' })
    const appA = express()
    appA.use(traceA)
    appA.get('/a/:id', function showA (req, res) { res.json({ a: req.params.id }) })
    const appB = express()
    appB.use(traceB)
    appB.get('/b/:id', function showB (req, res) { res.json({ b: req.params.id }) })
    const a = await listen(appA)
    const b = await listen(appB)
    try {
      await (await fetch(`${a.base}/a/1`)).text()
      await (await fetch(`${b.base}/b/1`)).text()
      await Promise.all([traceA.flush(), traceB.flush()])
      const sent = bodies.join('')
      assert.ok(sent.includes('GET /a/:id') && sent.includes('handler - showA'), 'the first app\'s spans are exported')
      assert.ok(sent.includes('GET /b/:id') && sent.includes('handler - showB'), 'the second app\'s spans go through the same export')
      // The second instance's shutdown leaves the first one's export (and the registration) in place.
      await traceB.shutdown()
      bodies.length = 0
      await (await fetch(`${a.base}/a/2`)).text()
      await traceA.flush()
      assert.ok(bodies.join('').includes('GET /a/:id'), 'the first app still exports')
      assert.notEqual(api.trace.getTracerProvider().getDelegate(), new api.ProxyTracerProvider().getDelegate())
      assert.equal(traceA.breakdown().dropped.spans, 0)
    } finally {
      await a.close()
      await b.close()
      await traceA.shutdown()
      await traceB.shutdown()
      collector.close()
    }
    assert.equal(api.trace.getTracerProvider().getDelegate(), new api.ProxyTracerProvider().getDelegate(), 'unregistered by the instance that registered')
  })
})
