'use strict'

// The `metrics` option: the breakdown as OpenTelemetry metrics, scraped in Prometheus's text format from a
// path on the app or a port of its own, and pushed over OTLP/HTTP to a receiver. The figures must give back
// the breakdown exactly: counts, and every segment's share as sum(segment) / sum(response time).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const express = require('express')
const { nodebenchTrace } = require('..')
const { listen, closedPort } = require('./helpers')
const { freeLoopbackPort } = require('@nodebench/services')
const { setEnv } = require('../../test/support')

/** `name{a="b",...} value` lines of the Prometheus text format: [{ name, labels, value }]. */
function parsePrometheus (text) {
  const samples = []
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) continue
    const labels = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value
    samples.push({ name: match[1], labels, value: Number(match[3]) })
  }
  return samples
}

function shopApp (options) {
  const trace = nodebenchTrace({ exporter: 'none', expose: true, serviceName: 'shop', ...options })
  const app = express()
  app.use(trace)
  app.use(function logger (req, res, next) { next() })
  app.param('id', function loadItem (req, res, next, id) { setTimeout(next, 3) })
  app.get('/items/:id', function renderItem (req, res) {
    if (req.params.id === '404') return res.status(404).json({ error: 'no such item' })
    res.json({ id: req.params.id })
  })
  return { app, trace }
}

async function send (base, paths) {
  for (const path of paths) await (await fetch(base + path)).arrayBuffer()
}

test('a scrape path on the app: counts per status, and shares from the sums equal the breakdown\'s', async (t) => {
  const { app, trace } = shopApp({ metrics: { prometheus: '/metrics' } })
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  await send(base, [...Array(12).fill('/items/1'), '/items/404', '/items/404'])

  const response = await fetch(`${base}/metrics`)
  assert.equal(response.status, 200)
  assert.match(response.headers.get('content-type'), /^text\/plain/)
  const samples = parsePrometheus(await response.text())
  const snapshot = trace.breakdown()
  const [operation] = snapshot.operations
  assert.equal(snapshot.operations.length, 1, 'the scrape itself is not an operation')

  const requestCounts = samples.filter((s) => s.name === 'http_server_request_duration_count')
  assert.deepEqual(requestCounts.map((s) => [s.labels.http_response_status_code, s.value]).sort(), [['200', 12], ['404', 2]])
  for (const sample of requestCounts) {
    assert.deepEqual([sample.labels.http_request_method, sample.labels.http_route, sample.labels.nodebench_format, sample.labels.service_name],
      ['GET', '/items/:id', 'json', 'shop'])
    assert.ok(sample.labels.service_instance_id, 'the instance is named on every series')
  }
  const requestSeconds = samples.filter((s) => s.name === 'http_server_request_duration_sum').reduce((sum, s) => sum + s.value, 0)
  assert.ok(Math.abs(requestSeconds * 1000 - operation.responseTimeMs.total) < 0.01)

  const segmentSums = samples.filter((s) => s.name === 'nodebench_segment_duration_sum')
  assert.deepEqual(segmentSums.map((s) => [s.labels.nodebench_segment_order, s.labels.nodebench_segment_name, s.labels.nodebench_segment_kind]),
    [['0', 'logger', 'middleware'], ['1', 'loadItem (:id)', 'param'], ['2', 'renderItem', 'handler'], ['3', 'unattributed', 'unattributed']])
  for (const [index, segment] of operation.segments.entries()) {
    assert.ok(Math.abs(segmentSums[index].value / requestSeconds - segment.share) < 1e-6, segment.name)
  }
  assert.ok(Math.abs(segmentSums[3].value / requestSeconds - operation.unattributedShare) < 1e-6)

  // Buckets are cumulative and end with every request; the param handler waits over 1 ms (a 3 ms timer
  // fires up to 1 ms early: the event loop's clock is read once per turn).
  const idBuckets = samples.filter((s) => s.name === 'nodebench_segment_duration_bucket' && s.labels.nodebench_segment_name === 'loadItem (:id)')
  assert.equal(idBuckets.at(-1).labels.le, '+Inf')
  assert.equal(idBuckets.at(-1).value, 14)
  assert.equal(idBuckets.find((s) => s.labels.le === '0.001').value, 0)
  for (let i = 1; i < idBuckets.length; i++) assert.ok(idBuckets[i].value >= idBuckets[i - 1].value)
})

test('a reset of the breakdown does not reset the metrics: they count everything the process served', async (t) => {
  const { app, trace } = shopApp({ metrics: { prometheus: '/metrics' } })
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  await send(base, Array(5).fill('/items/1'))
  assert.equal((await fetch(`${base}/__nodebench`, { method: 'DELETE' })).status, 200)
  await send(base, Array(3).fill('/items/1'))

  assert.equal(trace.breakdown().operations[0].count, 3)
  const samples = parsePrometheus(await (await fetch(`${base}/metrics`)).text())
  assert.equal(samples.find((s) => s.name === 'http_server_request_duration_count').value, 8)
  assert.equal(samples.find((s) => s.name === 'nodebench_segment_duration_count' && s.labels.nodebench_segment_name === 'renderItem').value, 8)
})

test('the scrape path answers whom access.read allows, GET and HEAD only', async (t) => {
  const { app, trace } = shopApp({ metrics: { prometheus: '/metrics' }, access: { read: (req) => req.headers['x-scraper'] === 'yes' } })
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  const refused = await fetch(`${base}/metrics`)
  assert.equal(refused.status, 403)
  assert.match(await refused.text(), /access\.read/)
  assert.equal((await fetch(`${base}/metrics`, { headers: { 'x-scraper': 'yes' } })).status, 200)
  assert.equal((await fetch(`${base}/metrics`, { method: 'POST', headers: { 'x-scraper': 'yes' } })).status, 405)
})

test('a port of its own: the same series on http://<host>:<port>/metrics', async (t) => {
  const port = await freeLoopbackPort()
  const { app, trace } = shopApp({ metrics: { prometheus: { port, host: '127.0.0.1' } } })
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  await send(base, ['/items/1', '/items/2'])
  let text = ''
  for (let attempt = 0; attempt < 50 && text === ''; attempt++) {
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const samples = parsePrometheus(text)
  assert.equal(samples.find((s) => s.name === 'http_server_request_duration_count').value, 2)
  assert.equal((await fetch(`${base}/metrics`)).status, 404, 'nothing on the app\'s own path')
})

test('OTLP push: protobuf histograms of both metrics reach the receiver on every interval', async (t) => {
  const received = []
  const receiver = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks) })
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  // The app stops first: its last export on shutdown still finds the receiver (one refused is retried for 10 s).
  let stopApp = async () => {}
  t.after(async () => {
    await stopApp()
    await new Promise((resolve) => receiver.close(resolve))
  })
  const endpoint = `http://127.0.0.1:${receiver.address().port}`
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint
  t.after(() => { if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT; else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved })

  const { app, trace } = shopApp({ metrics: { otlp: { intervalMs: 200 } } })
  const { base, close } = await listen(app)
  stopApp = () => Promise.all([close(), trace.shutdown()])
  await send(base, ['/items/1', '/items/1', '/items/404'])
  for (let waited = 0; waited < 5000 && received.length < 2; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.ok(received.length >= 2, `two exports in 5 s; got ${received.length}`)
  for (const request of received) {
    assert.equal(request.path, '/v1/metrics')
    assert.equal(request.type, 'application/x-protobuf')
    const body = request.body.toString('latin1')
    for (const name of ['http.server.request.duration', 'nodebench.segment.duration', 'renderItem', 'unattributed', 'shop']) {
      assert.ok(body.includes(name), `the export carries "${name}"`)
    }
  }
  assert.equal(trace.breakdown().dropped.metricExports, 0)
})

test('an unreachable OTLP endpoint: exports fail and are counted, the app serves on, nothing piles up', async (t) => {
  // The exporter retries a refused connection until its timeout (10 s by default): 500 ms makes each failed
  // export end, and be counted, within a few intervals.
  setEnv(t, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`, OTEL_EXPORTER_OTLP_TIMEOUT: '500' })
  const { app, trace } = shopApp({ metrics: { otlp: { intervalMs: 100 } } })
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  for (let waited = 0; waited < 10000 && trace.breakdown().dropped.metricExports < 2; waited += 100) {
    await send(base, ['/items/1'])
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.ok(trace.breakdown().dropped.metricExports >= 2)
  const response = await fetch(`${base}/items/7`)
  assert.deepEqual(await response.json(), { id: '7' })
})

/** Scrapes `url` until it answers (a server of its own starts listening asynchronously); the samples. */
async function scrape (url, { until = () => true, timeoutMs = 10_000 } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url)
      if (response.ok) {
        const samples = parsePrometheus(await response.text())
        if (until(samples)) return samples
      }
    } catch {}
    if (Date.now() > deadline) throw new Error(`${url} did not answer as expected within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function countOf (samples, route) {
  return samples.filter((s) => s.name === 'http_server_request_duration_count' && s.labels.http_route === route)
    .reduce((sum, s) => sum + s.value, 0)
}

test('OTEL_METRICS_EXPORTER=prometheus turns the metrics on without the option: a server on OTEL_EXPORTER_PROMETHEUS_HOST:PORT', async (t) => {
  const port = await freeLoopbackPort()
  const { withEnv } = require('./helpers')
  const { app, trace } = await withEnv({
    OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1', OTEL_EXPORTER_PROMETHEUS_PORT: String(port)
  }, async () => shopApp({}))
  const { base, close } = await listen(app)
  t.after(() => Promise.all([close(), trace.shutdown()]))
  await send(base, ['/items/1', '/items/2', '/items/3'])
  const samples = await scrape(`http://127.0.0.1:${port}/metrics`)
  assert.equal(countOf(samples, '/items/:id'), 3)
  assert.equal(trace.options.metrics.prometheus.port, port)
})

test('a cluster primary serves one scrape target for every worker: resets and a worker\'s exit never take counts back', async (t) => {
  const { request: sendRequest, startProcess } = require('../../test/support')
  const path = require('node:path')
  const port = await freeLoopbackPort()
  const { match } = await startProcess(t, path.join(__dirname, 'fixtures', 'cluster-app.js'), [], {
    env: { OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1', OTEL_EXPORTER_PROMETHEUS_PORT: String(port) },
    ready: /port (\d+)/,
    timeoutMs: 15_000
  })
  const base = `http://127.0.0.1:${match[1]}`
  const metricsUrl = `http://127.0.0.1:${port}/metrics`
  for (let i = 0; i < 40; i++) assert.equal((await sendRequest(`${base}/items/${i}`)).status, 200)
  let samples = await scrape(metricsUrl)
  assert.equal(countOf(samples, '/items/:id'), 40)
  const instances = new Set(samples.filter((s) => s.labels.service_instance_id).map((s) => s.labels.service_instance_id))
  assert.equal(instances.size, 1, 'the cluster is one instance')
  assert.equal(samples.find((s) => s.name === 'http_server_request_duration_count').labels.service_name, 'cluster-app',
    'named after the workers\' service')

  // A reset of the breakdown (bench does one before every cell) leaves the counters alone.
  assert.equal((await sendRequest(`${base}/__nodebench`, { method: 'DELETE' })).status, 200)
  for (let i = 0; i < 10; i++) await sendRequest(`${base}/items/${i}`)
  samples = await scrape(metricsUrl)
  assert.equal(countOf(samples, '/items/:id'), 50)
  assert.equal(JSON.parse((await sendRequest(`${base}/__nodebench`)).body).operations.find((o) => o.route === '/items/:id').count, 10)

  // A worker that exits takes its figures with it from the breakdown, not from the counters.
  const { pid } = JSON.parse((await sendRequest(`${base}/pid`)).body)
  process.kill(pid, 'SIGKILL')
  samples = await scrape(metricsUrl, { until: () => true })
  for (let waited = 0; waited < 5000; waited += 100) {
    const snapshot = JSON.parse((await sendRequest(`${base}/__nodebench`)).body)
    if (snapshot.processes.length === 1) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  for (let i = 0; i < 5; i++) assert.equal((await sendRequest(`${base}/items/${i}`)).status, 200)
  samples = await scrape(metricsUrl)
  assert.equal(countOf(samples, '/items/:id'), 55)
})
