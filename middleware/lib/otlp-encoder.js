'use strict'

const { randomFillSync } = require('crypto')
const {
  ORIGIN_SECONDS, ORIGIN_REMAINDER_MS,
  layerAttributes, routerAttributes, spanName, requestEndAttributes, errorMessage, toHrTime, exceptionEvent
} = require('./span-attributes')
const { dependencySpans, dependencySpanCount } = require('./dependencies/spans')

// nodebench's spans written as OTLP protobuf straight from a finished request record, the moment the
// response ends: no span objects are made and nothing but bytes waits for the export.
//
// The bytes are those @opentelemetry/otlp-transformer's ProtobufTraceSerializer writes for the same spans
// (a test compares them byte for byte); what differs is the cost. A span's name, kind and attributes depend
// only on its layer, so they are encoded once per layer and copied; per span only the ids and the two
// times are written. The SDK path (ReadableSpan objects, a BatchSpanProcessor holding them, the serializer
// writing every attribute key and value again) measured ~3 µs of serialisation per span plus the garbage
// collection of objects that lived long enough to be promoted.
//
// Field numbers are those of opentelemetry/proto/trace/v1/trace.proto and common/v1/common.proto.

const SPAN_KIND_INTERNAL = 1 // the protobuf enum is the API's SpanKind + 1
const SPAN_KIND_SERVER = 2
const SPAN_KIND_CLIENT = 3
const STATUS_OK = 0 // UNSET
const STATUS_ERROR = 2
const TRACE_FLAG_SAMPLED = 1
// Span.flags: the trace flags, plus "whether the parent is remote is known" (0x100) and "it is" (0x200).
const FLAGS_LOCAL_PARENT = TRACE_FLAG_SAMPLED | 0x100
const FLAGS_REMOTE_PARENT = TRACE_FLAG_SAMPLED | 0x100 | 0x200
const MIN_INT64 = -(2 ** 63)
const MAX_INT64 = 2 ** 63
const TWO_POW_32 = 4294967296
const SPAN_ID_BYTES = 8

/** A growable protobuf writer over a Buffer. */
class ProtoWriter {
  constructor (capacity = 1024) {
    this.buffer = Buffer.allocUnsafe(capacity)
    this.view = viewOf(this.buffer)
    this.pos = 0
  }

  ensure (bytes) {
    const needed = this.pos + bytes
    if (needed <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < needed) size *= 2
    const grown = Buffer.allocUnsafe(size)
    this.buffer.copy(grown, 0, 0, this.pos)
    this.buffer = grown
    this.view = viewOf(grown)
  }

  /** The bytes written so far, as a Buffer of their own. */
  toBuffer () {
    return Buffer.from(this.buffer.subarray(0, this.pos))
  }

  tag (field, wireType) {
    this.varint(field << 3 | wireType)
  }

  varint (value) {
    this.ensure(10)
    const buffer = this.buffer
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0
      while (v > 127) {
        buffer[this.pos++] = v & 127 | 128
        v >>>= 7
      }
      buffer[this.pos++] = v
      return
    }
    // 64-bit, two's complement for negatives, as ProtobufWriter.writeVarint.
    const abs = Math.abs(value)
    let low = abs >>> 0
    let high = abs / TWO_POW_32 >>> 0
    if (value < 0) {
      low = ~low >>> 0
      high = ~high >>> 0
      low = low + 1 >>> 0
      if (low === 0) high = high + 1 >>> 0
    }
    while (high > 0 || low > 127) {
      buffer[this.pos++] = low & 127 | 128
      low = (low >>> 7 | high << 25) >>> 0
      high >>>= 7
    }
    buffer[this.pos++] = low & 127
  }

  fixed32 (value) {
    this.ensure(4)
    this.buffer.writeUInt32LE(value >>> 0, this.pos)
    this.pos += 4
  }

  /** An HrTime [seconds, nanoseconds] as fixed64 nanoseconds, with writeHrTimeAsFixed64's arithmetic. */
  hrTime (seconds, nanos) {
    const lower16 = (seconds & 0xffff) * 1e9
    const upper = (seconds / 65536 >>> 0) * 1e9
    const low32WithCarry = (lower16 >>> 0) + ((upper & 0xffff) * 65536 >>> 0) + nanos
    const high = Math.floor(lower16 / TWO_POW_32) + (upper / 65536 >>> 0) +
      Math.floor(low32WithCarry / TWO_POW_32) >>> 0
    this.ensure(8)
    this.buffer.writeUInt32LE(low32WithCarry >>> 0, this.pos)
    this.buffer.writeUInt32LE(high, this.pos + 4)
    this.pos += 8
  }

  double (value) {
    this.ensure(8)
    this.buffer.writeDoubleLE(value, this.pos)
    this.pos += 8
  }

  string (value) {
    const length = Buffer.byteLength(value, 'utf8')
    this.varint(length)
    this.ensure(length)
    this.pos += this.buffer.write(value, this.pos, length, 'utf8')
  }

  bytes (value) {
    this.varint(value.length)
    this.raw(value)
  }

  /** Bytes copied as they are (an encoded part). */
  raw (bytes) {
    this.ensure(bytes.length)
    this.buffer.set(bytes, this.pos)
    this.pos += bytes.length
  }

  /** Starts a length-delimited field's content; the length is filled in by end(start). */
  start () {
    this.ensure(2)
    const at = this.pos
    this.pos += 2 // most nodebench messages need a 2-byte length; end() moves the content otherwise
    return at
  }

  end (at) {
    const length = this.pos - at - 2
    const size = varintSize(length)
    if (size !== 2) {
      this.ensure(size - 2)
      this.buffer.copyWithin(at + size, at + 2, this.pos)
      this.pos += size - 2
    }
    let v = length
    let p = at
    while (v > 127) {
      this.buffer[p++] = v & 127 | 128
      v >>>= 7
    }
    this.buffer[p] = v
  }
}

/**
 * A DataView of a Buffer's bytes. Ids and times go into a span as 32-bit words through it: V8 compiles a
 * DataView's setUint32 to one unaligned store, where a byte loop is a load, a store and two bounds checks a byte
 * (~48 bytes a span).
 */
function viewOf (buffer) {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.length)
}

function varintSize (value) {
  let size = 1
  while (value > 127) {
    value >>>= 7
    size++
  }
  return size
}

/** KeyValue attributes (repeated, field `field`), in the order and encoding the OTLP serializer uses. */
function writeAttributes (writer, attributes, field) {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue
    writer.tag(field, 2)
    const keyValue = writer.start()
    writer.tag(1, 2)
    writer.string(key)
    writer.tag(2, 2)
    const value = writer.start()
    writeAnyValue(writer, attributes[key])
    writer.end(value)
    writer.end(keyValue)
  }
}

function writeAnyValue (writer, value) {
  const type = typeof value
  if (type === 'string') {
    writer.tag(1, 2)
    writer.string(value)
  } else if (type === 'boolean') {
    writer.tag(2, 0)
    writer.varint(value ? 1 : 0)
  } else if (type === 'number') {
    if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
      writer.tag(3, 0)
      writer.varint(value)
    } else {
      writer.tag(4, 1)
      writer.double(value)
    }
  } else if (value instanceof Uint8Array) {
    writer.tag(7, 2)
    writer.bytes(value)
  } else if (Array.isArray(value)) {
    writer.tag(5, 2)
    const array = writer.start()
    for (const item of value) {
      writer.tag(1, 2)
      const entry = writer.start()
      writeAnyValue(writer, item)
      writer.end(entry)
    }
    writer.end(array)
  } else if (type === 'object' && value !== null) {
    writer.tag(6, 2)
    const list = writer.start()
    writeAttributes(writer, value, 1)
    writer.end(list)
  }
}

/** Resource (field 1 of ResourceSpans): its attributes and dropped_attributes_count 0. */
function encodeResource (attributes) {
  const writer = new ProtoWriter()
  writer.tag(1, 2)
  const resource = writer.start()
  writeAttributes(writer, attributes, 1)
  writer.tag(2, 0)
  writer.varint(0)
  writer.end(resource)
  return writer.toBuffer()
}

/** InstrumentationScope (field 1 of ScopeSpans). */
function encodeScope (scope) {
  const writer = new ProtoWriter()
  writer.tag(1, 2)
  const at = writer.start()
  writer.tag(1, 2)
  writer.string(scope.name)
  if (scope.version) {
    writer.tag(2, 2)
    writer.string(scope.version)
  }
  writer.end(at)
  return writer.toBuffer()
}

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

// toHrTime's arithmetic (span-attributes.js), without the array: this runs twice per span.
function writeTime (writer, field, performanceMs) {
  const ms = ORIGIN_REMAINDER_MS + performanceMs
  const seconds = Math.trunc(ms / 1000)
  writer.tag(field, 1)
  writer.hrTime(ORIGIN_SECONDS + seconds, Math.round((ms - seconds * 1000) * 1e6))
}

function copyBytes (from, fromAt, to, toAt, count) {
  for (let i = 0; i < count; i++) to[toAt + i] = from[fromAt + i]
}

function writeEvent (writer, event) {
  writer.tag(11, 2)
  const at = writer.start()
  writer.tag(1, 1)
  writer.hrTime(event.time[0], event.time[1])
  writer.tag(2, 2)
  writer.string(event.name)
  writeAttributes(writer, event.attributes, 3)
  writer.tag(4, 0)
  writer.varint(event.droppedAttributesCount || 0)
  writer.end(at)
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
 * Writes the spans of finished, sampled request records as `Span` messages, each as field 2 (spans) of
 * one ScopeSpans message, into a ProtoWriter: the span per layer or router the request passed, and the
 * request's SERVER span unless another span (instrumentation-http's) is the request's parent.
 */
class RecordSpanEncoder {
  /**
   * @param {{ write(target: Buffer, offset: number, words: DataView): void }} [spanIds] where segment span ids
   *   come from
   */
  constructor (spanIds = new RandomSpanIds()) {
    this.spanIds = spanIds
    this.ids = Buffer.allocUnsafe(64 * SPAN_ID_BYTES)
    this.idWords = viewOf(this.ids)
    this.traceId = Buffer.allocUnsafe(16)
    this.traceIdWords = viewOf(this.traceId)
    this.requestSpanId = Buffer.allocUnsafe(SPAN_ID_BYTES)
    this.requestSpanIdWords = viewOf(this.requestSpanId)
    this.remoteParentId = Buffer.allocUnsafe(SPAN_ID_BYTES)
    // The request's trace id and span id as little-endian 32-bit words, read once a request, written into every span.
    this.trace0 = 0
    this.trace1 = 0
    this.trace2 = 0
    this.trace3 = 0
    this.request0 = 0
    this.request1 = 0
  }

  /** Spans a record turns into. */
  static spanCount (record) {
    return record.segmentCount + dependencySpanCount(record) + (record.parentSpan === null ? 1 : 0)
  }

  /** @param {string} urlPath the request's path, without the query */
  write (writer, record, urlPath) {
    const parentContext = record.parentSpan !== null ? record.parentSpan.spanContext() : null
    if (parentContext !== null) {
      this.traceId.write(parentContext.traceId, 0, 16, 'hex')
      this.requestSpanId.write(parentContext.spanId, 0, SPAN_ID_BYTES, 'hex')
    } else {
      // Ids nobody asked for while the request ran are null (trace-context.js ensureRequestIds): drawn here as
      // words, a trace id as two span ids (each never all zero, so neither is the whole).
      if (record.traceId !== null) this.traceId.write(record.traceId, 0, 16, 'hex')
      else {
        this.spanIds.write(this.traceId, 0, this.traceIdWords)
        this.spanIds.write(this.traceId, SPAN_ID_BYTES, this.traceIdWords)
      }
      if (record.spanId !== null) this.requestSpanId.write(record.spanId, 0, SPAN_ID_BYTES, 'hex')
      else this.spanIds.write(this.requestSpanId, 0, this.requestSpanIdWords)
    }
    this.trace0 = this.traceId.readUInt32LE(0)
    this.trace1 = this.traceId.readUInt32LE(4)
    this.trace2 = this.traceId.readUInt32LE(8)
    this.trace3 = this.traceId.readUInt32LE(12)
    this.request0 = this.requestSpanId.readUInt32LE(0)
    this.request1 = this.requestSpanId.readUInt32LE(4)
    const count = record.segmentCount
    if (this.ids.length < count * SPAN_ID_BYTES) {
      this.ids = Buffer.allocUnsafe(count * 2 * SPAN_ID_BYTES)
      this.idWords = viewOf(this.ids)
    }
    const ids = this.ids
    const presets = record.presetSpanIds
    for (let i = 0; i < count; i++) {
      // A span whose id was given out already (traceparent()) keeps it.
      const preset = presets === null ? undefined : presets.get(i)
      if (preset === undefined) this.spanIds.write(ids, i * SPAN_ID_BYTES, this.idWords)
      else ids.write(preset, i * SPAN_ID_BYTES, SPAN_ID_BYTES, 'hex')
    }
    for (let i = 0; i < count; i++) this.writeSegment(writer, record, i)
    if (record.dependencyCalls !== null) this.writeDependencies(writer, record)
    if (parentContext === null) this.writeRequest(writer, record, urlPath)
  }

  /** Each call to a dependency: a CLIENT span (a render: INTERNAL) under its segment's span (dependencies/spans.js). */
  writeDependencies (writer, record) {
    const id = Buffer.allocUnsafe(SPAN_ID_BYTES)
    const idWords = viewOf(id)
    for (const span of dependencySpans(record)) {
      this.spanIds.write(id, 0, idWords)
      writer.tag(2, 2)
      const at = writer.start()
      this.writeIds(writer, id, 0, this.ids, span.segment * SPAN_ID_BYTES)
      writer.tag(5, 2)
      writer.string(span.name)
      writer.tag(6, 0)
      writer.varint(span.internal ? SPAN_KIND_INTERNAL : SPAN_KIND_CLIENT)
      writeTime(writer, 7, span.startMs)
      writeTime(writer, 8, span.endMs)
      writeAttributes(writer, span.attributes, 9)
      writer.tag(10, 0)
      writer.varint(0)
      writeCountsAndStatus(writer, span.error === null ? STATUS_OK : STATUS_ERROR, '')
      writer.tag(16, 5)
      writer.fixed32(FLAGS_LOCAL_PARENT)
      writer.end(at)
    }
  }

  writeIds (writer, spanId, spanIdAt, parentId, parentIdAt) {
    writer.ensure(18 + 20)
    const buffer = writer.buffer
    let pos = writer.pos
    buffer[pos++] = 0x0a // trace_id (1)
    buffer[pos++] = 16
    copyBytes(this.traceId, 0, buffer, pos, 16)
    pos += 16
    buffer[pos++] = 0x12 // span_id (2)
    buffer[pos++] = SPAN_ID_BYTES
    copyBytes(spanId, spanIdAt, buffer, pos, SPAN_ID_BYTES)
    pos += SPAN_ID_BYTES
    if (parentId !== null) {
      buffer[pos++] = 0x22 // parent_span_id (4)
      buffer[pos++] = SPAN_ID_BYTES
      copyBytes(parentId, parentIdAt, buffer, pos, SPAN_ID_BYTES)
      pos += SPAN_ID_BYTES
    }
    writer.pos = pos
  }

  writeSegment (writer, record, index) {
    const info = record.segmentInfo(index)
    const template = info.kind === 'router' ? routerTemplate(info, record.entryTemplate(index)) : layerTemplate(info)
    const parentIndex = record.entryParent(index)
    if (record.entryError(index) !== null) {
      this.writeFailedSegment(writer, record, index, template.parts, parentIndex)
      return
    }
    const bytes = template.bytes
    writer.ensure(bytes.length)
    const at = writer.pos
    writer.buffer.set(bytes, at)
    const view = writer.view
    const ids = this.idWords
    const traceAt = at + template.traceAt
    view.setUint32(traceAt, this.trace0, true)
    view.setUint32(traceAt + 4, this.trace1, true)
    view.setUint32(traceAt + 8, this.trace2, true)
    view.setUint32(traceAt + 12, this.trace3, true)
    const spanAt = at + template.spanAt
    view.setUint32(spanAt, ids.getUint32(index * SPAN_ID_BYTES, true), true)
    view.setUint32(spanAt + 4, ids.getUint32(index * SPAN_ID_BYTES + 4, true), true)
    const parentAt = at + template.parentAt
    if (parentIndex >= 0) {
      view.setUint32(parentAt, ids.getUint32(parentIndex * SPAN_ID_BYTES, true), true)
      view.setUint32(parentAt + 4, ids.getUint32(parentIndex * SPAN_ID_BYTES + 4, true), true)
    } else {
      view.setUint32(parentAt, this.request0, true)
      view.setUint32(parentAt + 4, this.request1, true)
    }
    writeFixed64Time(view, at + template.startAt, record.entryStart(index))
    writeFixed64Time(view, at + template.endAt, record.entryEnd(index))
    writer.pos = at + bytes.length
  }

  /** A segment's span with its error: the exception event and the error status, written field by field. */
  writeFailedSegment (writer, record, index, parts, parentIndex) {
    writer.tag(2, 2)
    const span = writer.start()
    if (parentIndex >= 0) this.writeIds(writer, this.ids, index * SPAN_ID_BYTES, this.ids, parentIndex * SPAN_ID_BYTES)
    else this.writeIds(writer, this.ids, index * SPAN_ID_BYTES, this.requestSpanId, 0)
    writer.raw(parts.head)
    writeTime(writer, 7, record.entryStart(index))
    writeTime(writer, 8, record.entryEnd(index))
    const error = record.entryError(index)
    writer.raw(parts.attributes)
    writeEvent(writer, exceptionEvent(error, toHrTime(record.entryEnd(index))))
    writeCountsAndStatus(writer, STATUS_ERROR, errorMessage(error))
    writer.tag(16, 5)
    writer.fixed32(FLAGS_LOCAL_PARENT)
    writer.end(span)
  }

  writeRequest (writer, record, urlPath) {
    const remote = record.remoteParent
    const template = requestTemplate(record)
    writer.tag(2, 2)
    const span = writer.start()
    if (remote !== null) {
      this.remoteParentId.write(remote.spanId, 0, SPAN_ID_BYTES, 'hex')
      this.writeIds(writer, this.requestSpanId, 0, this.remoteParentId, 0)
    } else {
      writer.ensure(28)
      const buffer = writer.buffer
      const view = writer.view
      const at = writer.pos
      buffer[at] = 0x0a // trace_id (1)
      buffer[at + 1] = 16
      view.setUint32(at + 2, this.trace0, true)
      view.setUint32(at + 6, this.trace1, true)
      view.setUint32(at + 10, this.trace2, true)
      view.setUint32(at + 14, this.trace3, true)
      buffer[at + 18] = 0x12 // span_id (2)
      buffer[at + 19] = SPAN_ID_BYTES
      view.setUint32(at + 20, this.request0, true)
      view.setUint32(at + 24, this.request1, true)
      writer.pos = at + 28
    }
    const head = template.head
    writer.ensure(head.length)
    const at = writer.pos
    writer.buffer.set(head, at)
    writeFixed64Time(writer.view, at + template.startAt, record.startMs)
    writeFixed64Time(writer.view, at + template.endAt, record.endMs)
    writer.pos = at + head.length
    writeUrlPath(writer, urlPath)
    if (record.serverAttributes !== null) writeAttributes(writer, record.serverAttributes, 9)
    writer.raw(template.tail)
    writer.tag(16, 5)
    writer.fixed32(remote !== null && remote.isRemote ? FLAGS_REMOTE_PARENT : FLAGS_LOCAL_PARENT)
    writer.end(span)
  }
}

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

/** The most bytes frameExportRequest writes in front of the spans: the room a batch leaves before its first span. */
function frameHeadRoom (resourceBytes, scopeBytes) {
  return 2 + 2 * 5 + resourceBytes.length + scopeBytes.length // two tags, two lengths of up to 2^35
}

/**
 * An ExportTraceServiceRequest around the spans `writer` holds from `start` on: one ResourceSpans (the resource,
 * then one ScopeSpans: the scope and the spans), as the OTLP serializer frames spans of one resource and one
 * scope. The frame's head goes into the bytes left free before `start` when they are enough (frameHeadRoom), and
 * the schema URL after the spans, so a batch's request is a view of its writer's buffer: its bytes are not copied
 * again, and no buffer the size of a batch is allocated per export (that allocation and copy, in malloc,
 * malloc_consolidate and memcpy, counted ~700-1,300 instructions a span: benchmarks/README.md, "A batch framed in
 * place"). Else the head and the spans are copied into a new Buffer.
 */
function frameExportRequest (resourceBytes, scopeBytes, writer, start, resourceSchemaUrl) {
  const spansLength = writer.pos - start
  if (resourceSchemaUrl) {
    writer.tag(3, 2)
    writer.string(resourceSchemaUrl)
  }
  const schemaLength = writer.pos - start - spansLength
  const scopeSpansLength = scopeBytes.length + spansLength
  const resourceSpansLength = resourceBytes.length + 1 + varintSize(scopeSpansLength) + scopeSpansLength + schemaLength
  const headLength = 1 + varintSize(resourceSpansLength) + resourceBytes.length +
    1 + varintSize(scopeSpansLength) + scopeBytes.length
  if (headLength <= start) {
    const end = writer.pos
    writer.pos = start - headLength
    writeFrameHead(writer, resourceBytes, scopeBytes, resourceSpansLength, scopeSpansLength)
    writer.pos = end
    return writer.buffer.subarray(start - headLength, end)
  }
  const head = new ProtoWriter(headLength)
  writeFrameHead(head, resourceBytes, scopeBytes, resourceSpansLength, scopeSpansLength)
  return Buffer.concat([head.buffer.subarray(0, head.pos), writer.buffer.subarray(start, writer.pos)])
}

function writeFrameHead (writer, resourceBytes, scopeBytes, resourceSpansLength, scopeSpansLength) {
  writer.tag(1, 2)
  writer.varint(resourceSpansLength)
  writer.raw(resourceBytes)
  writer.tag(2, 2)
  writer.varint(scopeSpansLength)
  writer.raw(scopeBytes)
}

module.exports = {
  ProtoWriter, RecordSpanEncoder, RandomSpanIds, encodeResource, encodeScope, frameExportRequest, frameHeadRoom
}
