'use strict'

// Serves a fixed number of requests of the benchmark app to a client in the same process, then exits.
// Used by instructions.js under valgrind, where what counts is the work done, not the time it took.
//
//   node benchmarks/fixed-requests.js <variant> <requests>
//
// Variants: bare, nodebench-breakdown (exporter 'none'), and nodebench-0 / nodebench-0.1 / nodebench-1
// (exporter 'otlp' at that sampleRatio, to an OTLP endpoint in this process that reads and discards each
// export, so the export's instructions are counted with the request's).

const http = require('node:http')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp } = require('./app')

const SAMPLE_RATIOS = Object.freeze({ 'nodebench-0': 0, 'nodebench-0.1': 0.1, 'nodebench-1': 1 })
const VARIANTS = Object.freeze(['bare', 'nodebench-breakdown', ...Object.keys(SAMPLE_RATIOS)])

const [variant, countText] = process.argv.slice(2)
const count = Number(countText)
if (!VARIANTS.includes(variant) || !Number.isInteger(count) || count < 1) {
  process.stderr.write(`usage: node benchmarks/fixed-requests.js ${VARIANTS.join('|')} <requests>\n`)
  process.exit(2)
}

function startSink () {
  const sink = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end())
  })
  return new Promise((resolve) => sink.listen(0, '127.0.0.1', () => resolve(sink)))
}

async function main () {
  const sink = variant in SAMPLE_RATIOS ? await startSink() : null
  if (sink !== null) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sink.address().port}`
  const tracing = variant === 'bare'
    ? null
    : variant === 'nodebench-breakdown'
      ? nodebenchTrace({ exporter: 'none' })
      : nodebenchTrace({ exporter: 'otlp', sampleRatio: SAMPLE_RATIOS[variant] })
  const app = createApp(express, tracing)
  const server = app.listen(0, '127.0.0.1', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
    const get = (i) => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.address().port, path: `/api/items/${i}`, agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET /api/items/${i} answered ${res.statusCode}`))
        res.resume()
        res.on('end', resolve)
      }).on('error', reject)
    })
    try {
      for (let i = 0; i < count; i += 4) await Promise.all([get(i), get(i + 1), get(i + 2), get(i + 3)])
    } finally {
      agent.destroy()
      server.close()
      if (tracing !== null) await tracing.shutdown()
      if (sink !== null) sink.close()
    }
  })
}

main()
