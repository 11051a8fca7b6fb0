'use strict'

// No collector at the OTLP endpoint (the default configuration's first run): nodebench learns it from an export
// that reached nothing, and then builds no spans (they are counted as dropped, as the failed exports counted
// them), but for one request's a schedule delay, a probe. The probe that gets through turns spans back on; the
// sampling, and the traceparent a sampled request hands on, do not change meanwhile. A collector that is there
// but answers 503, or not in time, is not "down": every request's spans are built and sent.
// The fixture runs with NODE_DEBUG=nodebench: each failed export says how many spans it carried, the spans
// that were built.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { closedPort } = require('./helpers')

const FIXTURE = path.join(__dirname, 'fixtures', 'collector-down-app.js')
const SCHEDULE_DELAY_MS = 200

function runFixture (mode, endpoint) {
  const env = {
    ...process.env,
    NODE_DEBUG: 'nodebench',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: String(SCHEDULE_DELAY_MS),
    OTEL_EXPORTER_OTLP_TIMEOUT: '1000'
  }
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FIXTURE, mode], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr }))
      else resolve({ result: JSON.parse(stdout), stderr })
    })
  })
}

/** The spans the failed exports carried between `phase <mode>` and `phase <mode> end` on stderr. */
function spansSentIn (stderr, mode) {
  const phase = stderr.slice(stderr.indexOf(`phase ${mode}\n`), stderr.indexOf(`phase ${mode} end\n`))
  let spans = 0
  for (const match of phase.matchAll(/export of (\d+) spans failed/g)) spans += Number(match[1])
  return spans
}

function nodebenchLines (stderr) {
  return stderr.split('\n').filter((line) => line.startsWith('nodebench:'))
}

test('no collector: spans are counted as dropped but not built, a probe a delay; a collector that comes up gets them again', { timeout: 150_000 }, async () => {
  const port = await closedPort()
  const endpoint = `http://127.0.0.1:${port}`
  const { result, stderr } = await runFixture('down-then-up', endpoint)
  // The spans of one request, as the collector receives them once it is up.
  const spansPerRequest = result.lastDelivered / result.lastRequests
  assert.ok(Number.isInteger(spansPerRequest) && spansPerRequest >= 2, JSON.stringify(result))

  // Every request's spans are counted as dropped, as when they were built and refused.
  assert.equal(result.dropped, result.requests * spansPerRequest, JSON.stringify(result))
  // Built and sent: one request's a schedule delay (and the one that may have been due when the phase began).
  const builtRequests = spansSentIn(stderr, 'down-then-up') / spansPerRequest
  assert.ok(builtRequests <= Math.ceil(result.ms / SCHEDULE_DELAY_MS) + 2,
    `${builtRequests} of ${result.requests} requests' spans built in ${result.ms} ms: ${stderr.slice(-2000)}`)

  assert.deepEqual(nodebenchLines(stderr), [`nodebench: no OTLP collector answered at ${endpoint}/v1/traces (ECONNREFUSED), ` +
    "so spans are dropped (counted in the breakdown's dropped.spans) and not built until one answers (tried again every 0.2 s). " +
    "Start one: npx nodebench services start jaeger; or keep the breakdown alone: nodebenchTrace({ exporter: 'none' })"], stderr)

  // The requests are still sampled: a call they make says so, in the trace they belong to.
  const [own, continued] = result.calls.map((call) => call.traceparent)
  assert.match(own, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
  assert.match(continued, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/)

  // The collector comes up: a probe reaches it, and from then on every request's spans are delivered.
  assert.ok(result.requestsUntilDelivered < 500, JSON.stringify(result))
  assert.equal(result.lastDropped, 0, JSON.stringify(result))
  assert.equal(result.lastDelivered, result.lastRequests * spansPerRequest)
})

async function answeringCollector (t, answer) {
  const sockets = new Set()
  const server = answer === 'never'
    ? net.createServer((socket) => sockets.add(socket))
    : http.createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(503).end('busy'))
    })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => {
    server.close(resolve)
    for (const socket of sockets) socket.destroy()
    if (server.closeAllConnections) server.closeAllConnections()
  }))
  return `http://127.0.0.1:${server.address().port}`
}

for (const answer of [503, 'never']) {
  test(`a collector that answers ${answer === 'never' ? 'nothing in time' : answer} is there: every request's spans are built and sent`, { timeout: 150_000 }, async (t) => {
    const endpoint = await answeringCollector(t, answer)
    const { result, stderr } = await runFixture('answering', endpoint)
    assert.ok(result.dropped > result.requests, JSON.stringify(result))
    assert.equal(spansSentIn(stderr, 'answering'), result.dropped, stderr.slice(-2000))
    const lines = nodebenchLines(stderr)
    assert.equal(lines.length, 1, stderr)
    assert.doesNotMatch(lines[0], /not built/)
  })
}
