'use strict'

// Jaeger goes away while a traced app serves: requests go on, spans are dropped and counted, memory
// stays bounded; Jaeger comes back on the same ports: export resumes without touching the app, within a schedule delay. And a port
// taken before Jaeger could bind it: it starts on others.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const v8 = require('node:v8')
const vm = require('node:vm')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { JaegerClient } = require('..')
const { answers } = require('../lib/jaeger')
const { startTestJaeger, setEnv, eventually } = require('./helpers')

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')

function heapAfterGc () {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

test('Jaeger stopped while the app serves: no request fails, spans are dropped and counted, export resumes when it is back', { timeout: 180_000 }, async (t) => {
  const first = await startTestJaeger(t)
  setEnv(t, { OTEL_EXPORTER_OTLP_ENDPOINT: first.otlpHttpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_EXPORT_TIMEOUT: '10000' })
  const trace = nodebenchTrace({ serviceName: 'outage-app', sampleRatio: 1, maxQueueSize: 256 })
  t.after(() => trace.shutdown())
  const app = express()
  app.use(trace)
  app.use(function stamp (req, res, next) { next() })
  app.get('/items/:id', function viewItem (req, res) { res.json({ id: req.params.id }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const base = `http://127.0.0.1:${server.address().port}`

  // `flushing`: each 20 requests' spans delivered before the next 20 are sent, so that the queue (256 spans, to
  // bound the heap while Jaeger is down) cannot fill while Jaeger answers slowly on a loaded machine.
  async function serve (count, { flushing = false } = {}) {
    const started = performance.now()
    let failures = 0
    for (let i = 0; i < count; i += 20) {
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, j) => fetch(`${base}/items/${i + j}`).then(async (r) => { await r.text(); return r.status })))
      failures += statuses.filter((status) => status !== 200).length
      if (flushing) await trace.flush()
    }
    return { failures, msPerRequest: (performance.now() - started) / count }
  }

  const up = await serve(200, { flushing: true })
  assert.equal(up.failures, 0)
  await trace.flush()
  assert.equal(trace.breakdown().dropped.spans, 0)

  await first.stop()
  await serve(500) // warm-up of the failing exporter
  const heapBefore = heapAfterGc()
  const down = await serve(2000)
  await trace.flush()
  const heapGrowth = heapAfterGc() - heapBefore
  assert.equal(down.failures, 0, 'no request failed while Jaeger was down')
  const dropped = trace.breakdown().dropped.spans
  assert.ok(dropped > 2000, `spans dropped and counted: ${dropped}`)
  // 2000 requests x 4 spans went nowhere; the bounded queue holds at most 256 spans.
  assert.ok(heapGrowth < 8 * 1024 * 1024, `heap grew ${(heapGrowth / 1048576).toFixed(1)} MB`)
  t.diagnostic(`ms per request (20 concurrent): Jaeger up ${up.msPerRequest.toFixed(3)} (flushed every 20), down ${down.msPerRequest.toFixed(3)}; ` +
    `${dropped} spans dropped; heap growth over 2000 requests ${(heapGrowth / 1048576).toFixed(2)} MB`)

  // While nothing answered, spans were not built but for a probe a schedule delay (100 ms here): the first to
  // reach the new Jaeger turns them back on, so the requests of that first delay may lose theirs.
  const second = await startTestJaeger(t, { ports: first.ports })
  assert.equal((await serve(100)).failures, 0)
  // The second hundred's spans are told from the first's by a time 150 ms from either (span times and Date may
  // differ by a little).
  await new Promise((resolve) => setTimeout(resolve, 150))
  const resumedAt = new Date()
  await new Promise((resolve) => setTimeout(resolve, 150))
  assert.equal((await serve(100)).failures, 0)
  await trace.flush()
  const client = new JaegerClient({ url: second.queryUrl })
  const from = BigInt(resumedAt.getTime()) * 1_000_000n
  const requests = await eventually(async () => {
    const spans = await client.findAllSpans({ service: 'outage-app', start: new Date(resumedAt - 1000), end: new Date() })
    const count = spans.filter((s) => s.attributes['nodebench.kind'] === 'request' && s.startNs >= from).length
    return count >= 100 ? count : undefined
  })
  assert.equal(requests, 100, `export resumed: ${requests} request spans in the new Jaeger`)
})

test('a port taken between its choosing and Jaeger binding it: Jaeger starts on other ports', { timeout: 120_000 }, async (t) => {
  const services = require('@nodebench/services')
  const taken = net.createServer()
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => taken.close(resolve)))
  // The first port handed out (the OTLP/HTTP receiver's) is one another server holds by then.
  const original = services.freeLoopbackPort
  let handedOut = 0
  services.freeLoopbackPort = () => (handedOut++ === 0 ? Promise.resolve(taken.address().port) : original())
  t.after(() => { services.freeLoopbackPort = original })
  const jaeger = await startTestJaeger(t)
  assert.equal(Object.values(jaeger.ports).includes(taken.address().port), false)
  assert.ok(await answers(jaeger.queryUrl))
  assert.match(fs.readFileSync(jaeger.logFile, 'utf8'), /address already in use/, 'the first start failed on the taken port')
})
