'use strict'

// What encoding nodebench's spans as OTLP protobuf costs on the app's thread: nodebench's own encoder,
// which writes them straight from the request records (lib/otlp-encoder.js), against OpenTelemetry's
// ProtobufTraceSerializer on the same spans as ReadableSpans, in the same run. Both must produce the same
// bytes; the script checks that before it times anything.
//
//   node benchmarks/serialize.js [--rounds 200]
//
// The spans are real: the benchmark app of overhead.js is traced with an in-memory exporter, and the last
// requests it served, ~512 spans (one batch, as exports send them), are encoded repeatedly both ways.

const { parseArgs } = require('node:util')
const express = require('express')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer')
const { nodebenchTrace } = require('@nodebench/trace')
const { DirectSpanWriter } = require('../lib/sdk-spans')
const { ProtoWriter, encodeResource, encodeScope, frameExportRequest, frameHeadRoom } = require('../lib/proto-writer')
const { RecordSpanEncoder } = require('../lib/otlp-encoder')
const { createApp } = require('./app')
const { median } = require('./harness')

const BATCH = 512
const SPANS_PER_REQUEST = 12

/** The last requests' records (with their paths) and the ReadableSpans nodebench made of them. */
async function tracedRequests () {
  const records = []
  const write = DirectSpanWriter.prototype.write
  DirectSpanWriter.prototype.write = function (record, urlPath) {
    records.push({ record, urlPath })
    return write.call(this, record, urlPath)
  }
  const exporter = new InMemorySpanExporter()
  const trace = nodebenchTrace({ exporter, serviceName: 'serialize-bench' })
  const server = createApp(express, trace).listen(0, '127.0.0.1')
  try {
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${server.address().port}`
    for (let i = 0; i < Math.ceil(BATCH / SPANS_PER_REQUEST) + 2; i++) await (await fetch(`${base}/api/items/${i}`)).text()
    await trace.flush()
    const requests = records.slice(-Math.floor(BATCH / SPANS_PER_REQUEST))
    const spanCount = requests.reduce((sum, { record }) => sum + RecordSpanEncoder.spanCount(record), 0)
    const spans = exporter.getFinishedSpans().slice(-spanCount)
    return { requests, spans, resource: spans[0].resource, scope: spans[0].instrumentationScope }
  } finally {
    DirectSpanWriter.prototype.write = write
    server.close()
    await trace.shutdown()
  }
}

/** The span ids the SDK path gave, handed to the encoder in the same order, so both write the same bytes. */
function replayedIds (spans) {
  const order = []
  // SERVER spans' ids are the record's.
  for (const span of spans) if (span.kind !== 1) order.push(span.spanContext().spanId)
  let next = 0
  return { write (target, offset) { target.write(order[next++ % order.length], offset, 8, 'hex') } }
}

/** A batch as the exporter makes it: the spans after room for the frame, framed in place. */
function encodeRecords (requests, resourceBytes, scopeBytes, encoder, writer = new ProtoWriter(256 * 1024)) {
  const room = frameHeadRoom(resourceBytes, scopeBytes)
  writer.ensure(room)
  writer.pos = room
  for (const { record, urlPath } of requests) encoder.write(writer, record, urlPath)
  return frameExportRequest(resourceBytes, scopeBytes, writer, room)
}

function microsPerSpan (encode, spanCount, rounds) {
  for (let i = 0; i < 20; i++) encode()
  const before = process.cpuUsage()
  for (let i = 0; i < rounds; i++) encode()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / rounds / spanCount
}

async function main () {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } })
  const rounds = Number(values.rounds)
  if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError(`--rounds must be a positive integer; received ${values.rounds}`)
  const { requests, spans, resource, scope } = await tracedRequests()
  const resourceBytes = encodeResource(resource.attributes)
  const scopeBytes = encodeScope(scope)
  const official = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans))
  const ours = encodeRecords(requests, resourceBytes, scopeBytes, new RecordSpanEncoder(replayedIds(spans)))
  if (!ours.equals(official)) throw new Error('the record encoder and the OTLP serializer wrote different bytes for the same spans')
  const encoder = new RecordSpanEncoder()
  const writer = new ProtoWriter(256 * 1024) // as the exporter reuses its batch buffers
  const encode = () => encodeRecords(requests, resourceBytes, scopeBytes, encoder, writer)
  const serialize = () => ProtobufTraceSerializer.serializeRequest(spans)
  // Interleaved, median of 5, so a burst of load on the machine hits both.
  const encoded = []
  const serialized = []
  for (let i = 0; i < 5; i++) {
    encoded.push(microsPerSpan(encode, spans.length, rounds))
    serialized.push(microsPerSpan(serialize, spans.length, rounds))
  }
  process.stdout.write(
    `${spans.length} spans of ${requests.length} requests, ${(official.length / spans.length).toFixed(0)} bytes/span, the same bytes both ways\n` +
    `OTLP serializer (ReadableSpans)  ${median(serialized).toFixed(2)} µs/span\n` +
    `nodebench encoder (records)      ${median(encoded).toFixed(2)} µs/span\n` +
    `ratio                            ${(median(serialized) / median(encoded)).toFixed(1)}× faster\n`)
}

main().catch((err) => {
  process.stderr.write(`serialize: ${err.message}\n`)
  process.exitCode = 1
})
