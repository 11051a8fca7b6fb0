'use strict'

// Sampling nothing costs nothing: a request without an incoming `traceparent` is decided by the ratio alone,
// before anything else is done for spans; at sampleRatio 0 not even a random number is drawn. A request whose
// `traceparent` asks for it is sampled whatever the ratio.

const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { normalizeOptions } = require('../lib/options')
const { createSpanPipeline } = require('../lib/span-pipeline')
const { RequestRecord } = require('../lib/request-record')

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

function pipeline (t, sampleRatio) {
  const spans = createSpanPipeline(normalizeOptions({ serviceName: 'sampling', exporter: new InMemorySpanExporter(), sampleRatio }))
  t.after(() => spans.shutdown())
  return spans
}

/** `Math.random` answers `values` in turn while `fn` runs; resolves to how often it was asked. */
function withRandom (values, fn) {
  const original = Math.random
  let calls = 0
  Math.random = () => values[calls++ % values.length]
  try {
    fn()
  } finally {
    Math.random = original
  }
  return calls
}

test('sampleRatio 0: a request without a traceparent is not sampled, and no random number is drawn for it', (t) => {
  const spans = pipeline(t, 0)
  spans.ensureStarted()
  const record = new RequestRecord('GET', 0)
  const calls = withRandom([0], () => assert.equal(spans.start(record, { method: 'GET', url: '/', headers: {} }), null))
  assert.equal(record.sampled, false)
  assert.equal(calls, 0)
})

test('sampleRatio 0: a traceparent that asks for sampling is followed', (t) => {
  const spans = pipeline(t, 0)
  const record = new RequestRecord('GET', 0)
  spans.start(record, { method: 'GET', url: '/', headers: { traceparent: TRACEPARENT } })
  assert.equal(record.sampled, true)
  assert.equal(record.traceId, '0af7651916cd43dd8448eb211c80319c')
})

test('sampleRatio 0.5: one random number a request decides, below the ratio sampled', (t) => {
  const spans = pipeline(t, 0.5)
  const sampled = []
  const calls = withRandom([0.7, 0.3], () => {
    for (let i = 0; i < 2; i++) {
      const record = new RequestRecord('GET', 0)
      spans.start(record, { method: 'GET', url: '/', headers: {} })
      sampled.push(record.sampled)
    }
  })
  assert.deepEqual(sampled, [false, true])
  assert.equal(calls, 2)
})

test('sampleRatio 1: every request sampled without a random number', (t) => {
  const spans = pipeline(t, 1)
  const record = new RequestRecord('GET', 0)
  const calls = withRandom([0.99], () => spans.start(record, { method: 'GET', url: '/', headers: {} }))
  assert.equal(record.sampled, true)
  assert.equal(calls, 0)
})

test('sampleRatio 0: the resource is not detected (its modules not loaded) until a sampled request\'s batch is sent', () => {
  const output = execFileSync(process.execPath, [path.join(__dirname, 'fixtures', 'sample-nothing-app.js')], {
    // Nothing answers at port 9: the exporter gives up on the sampled batch after 500 ms, not the default 10 s.
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TIMEOUT: '500', OTEL_RESOURCE_ATTRIBUTES: '' },
    encoding: 'utf8',
    timeout: 120000
  })
  assert.deepEqual(JSON.parse(output.trim().split('\n').pop()), { unsampled: false, sampled: true })
})
