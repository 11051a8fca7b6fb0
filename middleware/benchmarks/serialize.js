'use strict'

// What exporting one nodebench span costs in OTLP protobuf serialisation, the part of the export that runs
// on the app's thread, against a baseline span with the same ids and times but no attributes, serialised
// in the same run.
//
//   node benchmarks/serialize.js [--rounds 200]
//
// The spans are real: the benchmark app of overhead.js is traced with an in-memory exporter and the last
// 512 spans it produced (one batch, as the BatchSpanProcessor sends them) are serialised repeatedly.

const { parseArgs } = require('node:util')
const express = require('express')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp } = require('./app')

const BATCH = 512

async function tracedSpans () {
  const exporter = new InMemorySpanExporter()
  const trace = nodebenchTrace({ exporter, serviceName: 'serialize-bench' })
  const server = createApp(express, trace).listen(0, '127.0.0.1')
  try {
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${server.address().port}`
    for (let i = 0; i < Math.ceil(BATCH / 12) + 2; i++) await (await fetch(`${base}/api/items/${i}`)).text()
    await trace.flush()
    return exporter.getFinishedSpans().slice(-BATCH)
  } finally {
    server.close()
    await trace.shutdown()
  }
}

/** The same spans stripped to what every span must carry: name, ids, times, kind. */
function baselineSpans (spans) {
  return spans.map((span) => Object.assign(Object.create(Object.getPrototypeOf(span)), span, {
    attributes: {},
    events: [],
    name: 'span'
  }))
}

function microsPerSpan (spans, rounds) {
  for (let i = 0; i < 20; i++) ProtobufTraceSerializer.serializeRequest(spans)
  const before = process.cpuUsage()
  for (let i = 0; i < rounds; i++) ProtobufTraceSerializer.serializeRequest(spans)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / rounds / spans.length
}

async function main () {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } })
  const rounds = Number(values.rounds)
  if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError(`--rounds must be a positive integer; received ${values.rounds}`)
  const spans = await tracedSpans()
  const baseline = baselineSpans(spans)
  const bytes = ProtobufTraceSerializer.serializeRequest(spans).length / spans.length
  const baselineBytes = ProtobufTraceSerializer.serializeRequest(baseline).length / baseline.length
  // Interleaved, median of 5, so a burst of load on the machine hits both.
  const ours = []
  const bare = []
  for (let i = 0; i < 5; i++) {
    ours.push(microsPerSpan(spans, rounds))
    bare.push(microsPerSpan(baseline, rounds))
  }
  const median = (list) => list.sort((a, b) => a - b)[2]
  process.stdout.write(
    `nodebench span  ${median(ours).toFixed(2)} µs/span  ${bytes.toFixed(0)} bytes/span\n` +
    `baseline span   ${median(bare).toFixed(2)} µs/span  ${baselineBytes.toFixed(0)} bytes/span (no attributes)\n` +
    `ratio           ${(median(ours) / median(bare)).toFixed(2)}× the baseline\n`)
}

main().catch((err) => {
  process.stderr.write(`serialize: ${err.message}\n`)
  process.exitCode = 1
})
