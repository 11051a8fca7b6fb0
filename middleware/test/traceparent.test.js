'use strict'

// A request that calls another service hands it trace.traceparent(req): one trace across both processes, the
// other service's request span under the segment that made the call; a request that is not sampled says so.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const express = require('express5')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')

async function services (t, frontOptions) {
  const backSpans = new InMemorySpanExporter()
  const frontSpans = new InMemorySpanExporter()
  const backTrace = nodebenchTrace({ serviceName: 'back', exporter: backSpans, sampleRatio: 0 })
  const frontTrace = nodebenchTrace({ serviceName: 'front', exporter: frontSpans, ...frontOptions })
  t.after(() => Promise.all([backTrace.shutdown(), frontTrace.shutdown()]))
  const back = express()
  back.use(backTrace)
  back.get('/part/:n', function readPart (req, res) { res.json({ part: Number(req.params.n) }) })
  const backServer = await listen(back)
  t.after(() => backServer.close())
  const front = express()
  front.use(frontTrace)
  front.use(function stamp (req, res, next) { next() })
  front.get('/whole', async function gatherParts (req, res) {
    const parts = await Promise.all([1, 2].map((n) => fetch(`${backServer.base}/part/${n}`, {
      headers: { traceparent: frontTrace.traceparent(req) }
    }).then((r) => r.json())))
    res.json(parts)
  })
  const frontServer = await listen(front)
  t.after(() => frontServer.close())
  return { frontServer, frontTrace, backTrace, frontSpans, backSpans }
}

test('the other service\'s spans join the trace, under the segment that called it', async (t) => {
  const { frontServer, frontTrace, backTrace, frontSpans, backSpans } = await services(t, { sampleRatio: 1 })
  assert.deepEqual(await (await fetch(`${frontServer.base}/whole`)).json(), [{ part: 1 }, { part: 2 }])
  await frontTrace.flush()
  await backTrace.flush()
  const caller = frontSpans.getFinishedSpans().find((span) => span.name === 'handler - gatherParts')
  const called = backSpans.getFinishedSpans().filter((span) => span.name === 'GET /part/:n')
  assert.equal(called.length, 2, 'the back-end samples what the front-end sampled (its own ratio is 0)')
  for (const span of called) {
    assert.equal(span.spanContext().traceId, caller.spanContext().traceId, 'one trace')
    assert.equal(span.parentSpanContext.spanId, caller.spanContext().spanId, 'under the segment that made the call')
  }
})

test('a request that is not sampled hands on a traceparent that says so', async (t) => {
  const { frontServer, frontTrace, backTrace, backSpans } = await services(t, { sampleRatio: 0 })
  await (await fetch(`${frontServer.base}/whole`)).text()
  await backTrace.flush()
  assert.equal(backSpans.getFinishedSpans().length, 0)
  assert.match(frontTrace.traceparent({}), /^00-[\da-f]{32}-[\da-f]{16}-00$/)
})
