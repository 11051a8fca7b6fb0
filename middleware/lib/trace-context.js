'use strict'

const { randomFillSync } = require('crypto')

// W3C Trace Context for nodebench's own span pipeline: the incoming `traceparent`, and ids for the traces and
// spans it starts. @opentelemetry/core has both (W3CTraceContextPropagator, and RandomIdGenerator in the
// SDK), but loading core and the SDK allocates ~5 MB when an app starts, and the garbage collection that
// followed landed on the app's first request (benchmarks/first-request.js); nodebench's own spans need only
// these few lines. They follow core's parseTraceParent exactly (tested against it).

// https://www.w3.org/TR/trace-context/#traceparent-header: version (not ff), trace id and parent id (not all
// zeros), flags; a future version may append fields, version 00 may not.
const TRACEPARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/

/** The remote span context of a `traceparent` header value (a string, or the first of several), or null. */
function parseTraceparent (header) {
  const value = Array.isArray(header) ? header[0] : header
  if (typeof value !== 'string') return null
  const match = TRACEPARENT.exec(value)
  if (match === null || (match[1] === '00' && match[5] !== undefined)) return null
  return { traceId: match[2], spanId: match[3], traceFlags: parseInt(match[4], 16), isRemote: true }
}

// Random bytes drawn in blocks: one randomFillSync per 256 ids instead of one per id.
const POOL_BYTES = 4096
const pool = Buffer.alloc(POOL_BYTES)
let poolOffset = POOL_BYTES

function randomHex (bytes) {
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const start = poolOffset
  poolOffset += bytes
  // An id of all zeros is invalid (W3C): vanishingly rare, but never sent. Tested on the bytes, not the string.
  let any = 0
  for (let i = start; i < poolOffset; i++) any |= pool[i]
  return any === 0 ? randomHex(bytes) : pool.toString('hex', start, poolOffset)
}

/** 32 lowercase hex digits, not all zero. */
function randomTraceId () {
  return randomHex(16)
}

/** 16 lowercase hex digits, not all zero. */
function randomSpanId () {
  return randomHex(8)
}

/**
 * Gives a sampled record's request span its trace id and span id in hex, where nothing has yet: for whoever needs
 * them while the request runs (an active span context, traceparent()) or writes spans through the SDK. Ids
 * nobody asked for stay null, and the span encoder draws them as 32-bit words when it writes the spans
 * (otlp-encoder.js): a hex id drawn and parsed back cost ~300 ns a request in a hot loop (Node.js 24).
 */
function ensureRequestIds (record) {
  if (record.traceId === null) record.traceId = randomTraceId()
  if (record.spanId === null) record.spanId = randomSpanId()
}

module.exports = { parseTraceparent, randomTraceId, randomSpanId, ensureRequestIds }
