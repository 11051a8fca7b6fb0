'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { parseTraceParent } = require('@opentelemetry/core')
const { parseTraceparent, randomTraceId, randomSpanId } = require('../lib/trace-context')

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const SPAN = '00f067aa0ba902b7'

// From the W3C Trace Context specification and @opentelemetry/core's own tests.
const HEADERS = [
  `00-${TRACE}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}-00`,
  ` 00-${TRACE}-${SPAN}-01 `,
  `00-${TRACE}-${SPAN}-09`,
  `cc-${TRACE}-${SPAN}-01-what-the-future-will-be-like`, // a future version may add fields
  `00-${TRACE}-${SPAN}-01-extra`, // version 00 may not
  `ff-${TRACE}-${SPAN}-01`, // version ff is invalid
  `00-${'0'.repeat(32)}-${SPAN}-01`,
  `00-${TRACE}-${'0'.repeat(16)}-01`,
  `00-${TRACE.toUpperCase()}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}`,
  `00-${TRACE.slice(1)}-${SPAN}-01`,
  '',
  'garbage'
]

test('a traceparent is read exactly as @opentelemetry/core reads it', () => {
  for (const header of HEADERS) {
    const ours = parseTraceparent(header)
    const core = parseTraceParent(header)
    assert.deepEqual(ours === null ? null : { traceId: ours.traceId, spanId: ours.spanId, traceFlags: ours.traceFlags }, core, JSON.stringify(header))
    if (ours !== null) assert.equal(ours.isRemote, true)
  }
  assert.deepEqual(parseTraceparent([`00-${TRACE}-${SPAN}-01`, 'second']), { traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true },
    'the first of several headers, as core\'s propagator takes it')
  assert.equal(parseTraceparent(undefined), null)
})

test('trace and span ids are random lowercase hex of the W3C lengths', () => {
  const traceIds = new Set()
  for (let i = 0; i < 1000; i++) {
    const traceId = randomTraceId()
    const spanId = randomSpanId()
    assert.match(traceId, /^[0-9a-f]{32}$/)
    assert.match(spanId, /^[0-9a-f]{16}$/)
    traceIds.add(traceId)
  }
  assert.equal(traceIds.size, 1000)
})

test('an id whose random bytes are all zero is never given out: the next bytes are drawn', (t) => {
  // The pool as randomFillSync leaves it: 24 zero bytes first, then 0xab. A module of its own, loaded with it.
  const crypto = require('node:crypto')
  const original = crypto.randomFillSync
  const modulePath = require.resolve('../lib/trace-context')
  t.after(() => {
    crypto.randomFillSync = original
    delete require.cache[modulePath]
  })
  crypto.randomFillSync = (buffer) => {
    buffer.fill(0xab)
    buffer.fill(0, 0, 24)
    return buffer
  }
  delete require.cache[modulePath]
  const fresh = require('../lib/trace-context')
  assert.equal(fresh.randomSpanId(), 'abababababababab', 'the three all-zero ids skipped')
  assert.equal(fresh.randomTraceId(), 'abababababababababababababababab')
})

test('a sampled record gets hex ids only where it has none: a remote trace id is kept', () => {
  const { ensureRequestIds } = require('../lib/trace-context')
  const record = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: null }
  ensureRequestIds(record)
  assert.equal(record.traceId, '4bf92f3577b34da6a3ce929d0e0e4736')
  assert.match(record.spanId, /^[0-9a-f]{16}$/)
  const spanId = record.spanId
  ensureRequestIds(record)
  assert.equal(record.spanId, spanId, 'drawn once')
  const fresh = { traceId: null, spanId: null }
  ensureRequestIds(fresh)
  assert.match(fresh.traceId, /^[0-9a-f]{32}$/)
})
