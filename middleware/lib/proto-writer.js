'use strict'

// A protobuf writer over a Buffer, and the OTLP messages around a batch of spans: attributes (AnyValue), the
// resource, the instrumentation scope and the ExportTraceServiceRequest's frame. Field numbers are those of
// opentelemetry/proto/common/v1/common.proto, resource/v1/resource.proto and collector/trace/v1/trace_service.proto.

const MIN_INT64 = -(2 ** 63)
const MAX_INT64 = 2 ** 63
const TWO_POW_32 = 4294967296

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
    // A short ASCII string (a path, a host, a name) is written here, a byte a character: Buffer.byteLength and
    // Buffer#write cost ~400 instructions a string in calls into Node.js's C++ (benchmarks/LOG.md, "An exported
    // span in the whole process"). Its length is then one byte; anything else is written by Node.js.
    const count = value.length
    if (count < 128) {
      this.ensure(1 + count)
      const buffer = this.buffer
      const at = this.pos
      let i = 0
      for (; i < count; i++) {
        const code = value.charCodeAt(i)
        if (code > 0x7f) break
        buffer[at + 1 + i] = code
      }
      if (i === count) {
        buffer[at] = count
        this.pos = at + 1 + count
        return
      }
    }
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
  ProtoWriter, viewOf, writeAttributes, encodeResource, encodeScope, frameExportRequest, frameHeadRoom, TWO_POW_32
}
