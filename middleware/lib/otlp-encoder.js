'use strict'

const { ORIGIN_SECONDS, ORIGIN_REMAINDER_MS, errorMessage, toHrTime, exceptionEvent } = require('./span-attributes')
const { dependencySpans, dependencySpanCount } = require('./dependencies/spans')
const { viewOf, writeAttributes } = require('./proto-writer')
const {
  SPAN_KIND_INTERNAL, SPAN_KIND_CLIENT, STATUS_OK, STATUS_ERROR, FLAGS_LOCAL_PARENT, FLAGS_REMOTE_PARENT, SPAN_ID_BYTES,
  writeCountsAndStatus, RandomSpanIds, layerTemplate, routerTemplate, writeFixed64Time, requestTemplate, writeUrlPath,
  RepeatedAttributes
} = require('./span-templates')

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
// The protobuf writer and the OTLP messages around the spans are proto-writer.js; the templates and the ids,
// span-templates.js. Field numbers are those of opentelemetry/proto/trace/v1/trace.proto.

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
    this.serverAttributes = new RepeatedAttributes(9)
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
    if (record.serverAttributes !== null) this.serverAttributes.write(writer, record.serverAttributes)
    writer.raw(template.tail)
    writer.tag(16, 5)
    writer.fixed32(remote !== null && remote.isRemote ? FLAGS_REMOTE_PARENT : FLAGS_LOCAL_PARENT)
    writer.end(span)
  }
}

module.exports = { RecordSpanEncoder }
