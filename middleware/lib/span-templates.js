'use strict'

// What a span of nodebench's always says, encoded once and copied (otlp-encoder.js writes the spans): a
// layer's or router's span template, the request span's template per operation and status, and the span ids
// drawn in bulk. Field numbers are those of opentelemetry/proto/trace/v1/trace.proto.

const { randomFillSync } = require('crypto')
const { ORIGIN_SECONDS, ORIGIN_REMAINDER_MS, layerAttributes, routerAttributes, spanName, requestEndAttributes } = require('./span-attributes')
const { ProtoWriter, writeAttributes, TWO_POW_32 } = require('./proto-writer')

const SPAN_KIND_INTERNAL = 1 // the protobuf enum is the API's SpanKind + 1
const SPAN_KIND_SERVER = 2
const SPAN_KIND_CLIENT = 3
const STATUS_OK = 0 // UNSET
const STATUS_ERROR = 2
const TRACE_FLAG_SAMPLED = 1

// Span.flags: the trace flags, plus "whether the parent is remote is known" (0x100) and "it is" (0x200).
const FLAGS_LOCAL_PARENT = TRACE_FLAG_SAMPLED | 0x100
const FLAGS_REMOTE_PARENT = TRACE_FLAG_SAMPLED | 0x100 | 0x200
const SPAN_ID_BYTES = 8

/**
 * What a layer's spans always say, encoded once: `head` is name (5) and kind (6); `attributes` is
 * attributes (9) and dropped_attributes_count (10); `tail` adds, for a span without error, the counts of
 * dropped events (12) and links (14) and an unset status (15).
 */
function encodeLayerParts (name, attributes) {
  const head = new ProtoWriter(128)
  head.tag(5, 2)
  head.string(name)
  head.tag(6, 0)
  head.varint(SPAN_KIND_INTERNAL)
  const body = new ProtoWriter(512)
  writeAttributes(body, attributes, 9)
  body.tag(10, 0)
  body.varint(0)
  const attributesBytes = body.toBuffer()
  writeCountsAndStatus(body, STATUS_OK, '')
  return { head: head.toBuffer(), attributes: attributesBytes, tail: body.toBuffer() }
}

function writeCountsAndStatus (writer, code, message) {
  writer.tag(12, 0)
  writer.varint(0)
  writer.tag(14, 0)
  writer.varint(0)
  writer.tag(15, 2)
  const status = writer.start()
  if (message) {
    writer.tag(2, 2)
    writer.string(message)
  }
  writer.tag(3, 0)
  writer.varint(code)
  writer.end(status)
}

/** 8 random bytes per span id, from a pool refilled by the CSPRNG (never all zero: that id is invalid). */
class RandomSpanIds {
  constructor (poolSize = 4096) {
    // Two 32-bit words an id: two loads, where a byte loop loaded, stored and tested each of the eight bytes.
    this.pool = new Uint32Array(poolSize * 2)
    this.next = this.pool.length
  }

  /** Writes an id at `offset` of `target` through `words`, a DataView of target's bytes: two stores. */
  write (target, offset, words) {
    if (this.next === this.pool.length) {
      randomFillSync(this.pool)
      this.next = 0
    }
    const low = this.pool[this.next]
    let high = this.pool[this.next + 1]
    this.next += 2
    if ((low | high) === 0) high = 0x01000000 // the id's last byte 1
    words.setUint32(offset, low, true)
    words.setUint32(offset + 4, high, true)
  }
}

/**
 * A layer's spans, encoded once: its `parts` (for a span with an error, written field by field), and the whole
 * Span message of a span without one (`bytes`, with zero ids and times) and where in it the trace id, span id,
 * parent span id, start and end go: such a span is one copy and 48 bytes written in place.
 */
class SpanTemplate {
  constructor (parts) {
    this.parts = parts
    const writer = new ProtoWriter(64 + parts.head.length + parts.tail.length)
    writer.tag(2, 2)
    const span = writer.start()
    const zeros = Buffer.alloc(16)
    const contentAt = writer.pos
    writer.buffer[writer.pos++] = 0x0a // trace_id (1)
    writer.buffer[writer.pos++] = 16
    writer.raw(zeros)
    writer.buffer[writer.pos++] = 0x12 // span_id (2)
    writer.buffer[writer.pos++] = SPAN_ID_BYTES
    writer.raw(zeros.subarray(0, SPAN_ID_BYTES))
    writer.buffer[writer.pos++] = 0x22 // parent_span_id (4)
    writer.buffer[writer.pos++] = SPAN_ID_BYTES
    writer.raw(zeros.subarray(0, SPAN_ID_BYTES))
    writer.raw(parts.head)
    const startAt = writer.pos + 1
    writer.tag(7, 1)
    writer.raw(zeros.subarray(0, 8))
    writer.tag(8, 1)
    writer.raw(zeros.subarray(0, 8))
    writer.raw(parts.tail)
    writer.tag(16, 5)
    writer.fixed32(FLAGS_LOCAL_PARENT)
    const before = writer.pos
    writer.end(span)
    // end() moves the content when its length needs other than two bytes.
    const shift = writer.pos - before
    this.bytes = writer.toBuffer()
    this.traceAt = contentAt + shift + 2
    this.spanAt = this.traceAt + 18
    this.parentAt = this.spanAt + 10
    this.startAt = startAt + shift
    this.endAt = this.startAt + 9
  }
}

const templatesByRouter = new Map()

/** A layer's template, kept on its LayerInfo: a property read a span where a WeakMap would probe its table. */
function layerTemplate (info) {
  let template = info.spanTemplate
  if (template === null) {
    template = new SpanTemplate(encodeLayerParts(spanName(info, null), layerAttributes(info)))
    info.spanTemplate = template
  }
  return template
}

function routerTemplate (info, routerPath) {
  const key = routerPath || '/'
  let template = templatesByRouter.get(key)
  if (template === undefined) {
    template = new SpanTemplate(encodeLayerParts(spanName(info, routerPath), routerAttributes(routerPath)))
    if (templatesByRouter.size < 1000) templatesByRouter.set(key, template)
  }
  return template
}

/**
 * A performance.now() time as a fixed64 of nanoseconds since the epoch at `at`: writeTime's arithmetic
 * (toHrTime's, then writeHrTimeAsFixed64's), written as two little-endian words.
 */
function writeFixed64Time (view, at, performanceMs) {
  const ms = ORIGIN_REMAINDER_MS + performanceMs
  const wholeSeconds = Math.trunc(ms / 1000)
  const seconds = ORIGIN_SECONDS + wholeSeconds
  const nanos = Math.round((ms - wholeSeconds * 1000) * 1e6)
  const lower16 = (seconds & 0xffff) * 1e9
  const upper = (seconds / 65536 >>> 0) * 1e9
  const low32WithCarry = (lower16 >>> 0) + ((upper & 0xffff) * 65536 >>> 0) + nanos
  const high = Math.floor(lower16 / TWO_POW_32) + (upper / 65536 >>> 0) + Math.floor(low32WithCarry / TWO_POW_32) >>> 0
  view.setUint32(at, low32WithCarry >>> 0, true)
  view.setUint32(at + 4, high, true)
}

// The request span's template per operation and status (RequestSpanTemplate): encoded once, a bounded cache.
const requestTemplates = new Map()
const REQUEST_TEMPLATE_CACHE_SIZE = 1000
let lastRequestTemplate = null

/**
 * The request span of an operation and status, encoded once but for its ids, times and url.path: `head` is its
 * name, kind, two zero times (at `startAt` and `endAt`) and its attributes but url.path, as the OTLP serializer
 * orders them (requestEndAttributes', then the method); `tail` the fields after the attributes up to the flags.
 */
class RequestSpanTemplate {
  constructor (record) {
    this.method = record.method
    this.route = record.route
    this.statusCode = record.statusCode
    this.format = record.format
    this.aborted = record.aborted
    const head = new ProtoWriter(256)
    head.tag(5, 2)
    head.string(`${record.method} ${record.route}`)
    head.tag(6, 0)
    head.varint(SPAN_KIND_SERVER)
    head.tag(7, 1)
    this.startAt = head.pos
    head.hrTime(0, 0)
    head.tag(8, 1)
    this.endAt = head.pos
    head.hrTime(0, 0)
    const attributes = requestEndAttributes(record)
    attributes['http.request.method'] = record.method
    writeAttributes(head, attributes, 9)
    this.head = head.toBuffer()
    const tail = new ProtoWriter(32)
    tail.tag(10, 0)
    tail.varint(0)
    writeCountsAndStatus(tail, record.statusCode >= 500 ? STATUS_ERROR : STATUS_OK, '')
    this.tail = tail.toBuffer()
  }

  matches (record) {
    return this.route === record.route && this.method === record.method && this.statusCode === record.statusCode &&
      this.format === record.format && this.aborted === record.aborted
  }
}

const URL_PATH_KEY = (() => {
  const writer = new ProtoWriter(16)
  writer.tag(1, 2)
  writer.string('url.path')
  return writer.toBuffer()
})()

/** The url.path attribute, as writeAttributes writes `{ 'url.path': urlPath }` (9), without the object. */
function writeUrlPath (writer, urlPath) {
  writer.tag(9, 2)
  const keyValue = writer.start()
  writer.raw(URL_PATH_KEY)
  writer.tag(2, 2)
  const value = writer.start()
  writer.tag(1, 2)
  writer.string(urlPath)
  writer.end(value)
  writer.end(keyValue)
}

/**
 * The request span's attributes read from the request (server-span-attributes.js: url.scheme, server.address and
 * .port, network.protocol.version, client.address, user_agent.original) change from client to client, not from
 * request to request: the last ones written are kept with their bytes, and a request with the same keys and values
 * in the same order copies them. Encoded field by field they cost ~15,000 instructions a request (Node.js 24:
 * a tag, two lengths moved back a byte and two strings an attribute). Only strings, numbers and booleans are kept.
 */
class RepeatedAttributes {
  constructor (field) {
    this.field = field
    this.keys = []
    this.values = []
    this.bytes = null
  }

  write (writer, attributes) {
    if (this.bytes === null || !this.same(attributes)) this.encode(attributes)
    if (this.bytes !== null) writer.raw(this.bytes)
    else writeAttributes(writer, attributes, this.field)
  }

  same (attributes) {
    const keys = this.keys
    const values = this.values
    let i = 0
    for (const key in attributes) {
      if (i === keys.length || keys[i] !== key || values[i] !== attributes[key]) return false
      i++
    }
    return i === keys.length
  }

  encode (attributes) {
    this.bytes = null
    this.keys = []
    this.values = []
    for (const key in attributes) {
      const value = attributes[key]
      const type = typeof value
      if (!Object.prototype.hasOwnProperty.call(attributes, key) || (type !== 'string' && type !== 'number' && type !== 'boolean')) return
      this.keys.push(key)
      this.values.push(value)
    }
    const writer = new ProtoWriter(256)
    writeAttributes(writer, attributes, this.field)
    this.bytes = writer.toBuffer()
  }
}

/**
 * The request span's template for `record`: the last one found when it fits (requests mostly come in runs of one
 * operation and status), else from a bounded cache by operation and status.
 */
function requestTemplate (record) {
  if (lastRequestTemplate !== null && lastRequestTemplate.matches(record)) return lastRequestTemplate
  const key = `${record.method} ${record.statusCode} ${record.format} ${record.aborted ? 1 : 0} ${record.route}`
  let template = requestTemplates.get(key)
  if (template === undefined) {
    template = new RequestSpanTemplate(record)
    if (requestTemplates.size >= REQUEST_TEMPLATE_CACHE_SIZE) requestTemplates.clear()
    requestTemplates.set(key, template)
  }
  lastRequestTemplate = template
  return template
}

module.exports = {
  SPAN_KIND_INTERNAL,
  SPAN_KIND_CLIENT,
  STATUS_OK,
  STATUS_ERROR,
  FLAGS_LOCAL_PARENT,
  FLAGS_REMOTE_PARENT,
  SPAN_ID_BYTES,
  writeCountsAndStatus,
  RandomSpanIds,
  layerTemplate,
  routerTemplate,
  writeFixed64Time,
  requestTemplate,
  writeUrlPath,
  RepeatedAttributes
}
