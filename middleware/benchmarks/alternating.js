'use strict'

// nodebench's cost a segment on a loaded machine: the app bare and traced, in one process, served by a client
// in that process in alternating blocks of requests, each block's CPU time (process.cpuUsage()) charged to
// its app. A drift of the machine lasts longer than a block and hits both sides of each pair of blocks alike;
// the figure is the median over the pairs of the difference a request, over the segments the breakdown timed.
// A time, not a count: instructions.js and functions.js say where the instructions go.
//
//   node benchmarks/alternating.js [--app real|bench] [--variant breakdown|0|0.1|clock|clock-return] [--pairs 40]
//                                  [--block 400] [--warmup 4000]
//
// `clock` and `clock-return` set the app's floor against it bare instead of nodebench (clock-floor.js): each of its
// functions between two clock reads, the second at its `next` (the real stack only: real-clock) or at its return
// (real-clock-return, bare-clock); divided by the functions clocked.
//
// Both apps share the process: nodebench's subscription to the server's channels (response-end.js) then
// also sees the bare app's responses (a look-up that finds no record), which makes bare's side a little dearer.

const http = require('node:http')
const { once } = require('node:events')
const { parseArgs } = require('node:util')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp, segmentsPerRequest } = require('./app')
const { createRealApp, realClockOf, REAL_SEGMENTS } = require('./real-app')
const { median, runScript } = require('./harness')

const CONCURRENCY = 4
const VARIANTS = Object.freeze(['breakdown', '0', '0.1', 'clock', 'clock-return'])
// bare-clock's functions on the benchmark app (app.js): ten middleware and the handler.
const BENCH_FUNCTIONS = 11

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      app: { type: 'string', default: 'real' },
      variant: { type: 'string', default: 'breakdown' },
      pairs: { type: 'string', default: '40' },
      block: { type: 'string', default: '400' },
      warmup: { type: 'string', default: '4000' }
    },
    strict: true
  })
  if (values.app !== 'real' && values.app !== 'bench') throw new TypeError(`--app must be real or bench; received ${values.app}`)
  if (!VARIANTS.includes(values.variant)) throw new TypeError(`--variant must be one of ${VARIANTS.join(', ')}; received ${values.variant}`)
  if (values.app === 'bench' && values.variant === 'clock') throw new TypeError('--variant clock is the real stack\'s (--app real); the benchmark app\'s floor is clock-return')
  const whole = (name) => {
    const value = Number(values[name])
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`--${name} must be a whole number of at least 1; received ${values[name]}`)
    return value
  }
  return { app: values.app, variant: values.variant, pairs: whole('pairs'), block: whole('block') - (whole('block') % CONCURRENCY) || CONCURRENCY, warmup: whole('warmup') }
}

async function listen (app) {
  const server = http.createServer(app)
  server.keepAliveTimeout = 0
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return server
}

function client (server) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  const port = server.address().port
  const get = (i) => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: `/api/items/${i % 1000}`, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`answered ${res.statusCode}`))
      res.resume()
      res.on('end', resolve)
    }).on('error', reject)
  })
  return {
    async serve (count) {
      for (let i = 0; i < count; i += CONCURRENCY) await Promise.all([get(i), get(i + 1), get(i + 2), get(i + 3)])
    },
    close: () => agent.destroy()
  }
}

function cpuMicros () {
  const { user, system } = process.cpuUsage()
  return user + system
}

async function main (options) {
  // Nothing is sent: a closed port (the exporting variants are judged by what deciding costs, not exports).
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT ??= 'http://127.0.0.1:9'
  const clocked = options.variant === 'clock' || options.variant === 'clock-return'
  const tracing = clocked
    ? null
    : options.variant === 'breakdown'
      ? nodebenchTrace({ exporter: 'none' })
      : nodebenchTrace({ exporter: 'otlp', sampleRatio: Number(options.variant) })
  const realClock = options.app === 'real' ? realClockOf(`real-${options.variant}`) : null
  const create = options.app === 'real' ? createRealApp : createApp
  const measured = options.app === 'real'
    ? createRealApp(express, tracing, realClock?.clocked)
    : createApp(express, tracing, clocked ? new Float64Array(2 * BENCH_FUNCTIONS) : null)
  const servers = [await listen(create(express, null)), await listen(measured)]
  const clients = servers.map(client)
  for (const c of clients) await c.serve(options.warmup)
  const differences = []
  const totals = [0, 0]
  for (let pair = 0; pair < options.pairs; pair++) {
    const micros = [0, 0]
    const order = pair % 2 === 0 ? [0, 1] : [1, 0]
    for (const side of order) {
      const before = cpuMicros()
      await clients[side].serve(options.block)
      micros[side] = cpuMicros() - before
      totals[side] += micros[side]
    }
    differences.push((micros[1] - micros[0]) / options.block)
    if ((pair + 1) % 10 === 0) process.stderr.write(`alternating: ${pair + 1} of ${options.pairs} pairs\n`)
  }
  const perRequest = clocked ? (options.app === 'real' ? REAL_SEGMENTS : BENCH_FUNCTIONS) : segmentsPerRequest(tracing.breakdown())
  const bare = totals[0] / (options.pairs * options.block)
  const over = median(differences)
  process.stdout.write(`Node.js ${process.versions.node}, app ${options.app}, ${options.variant}: bare ${bare.toFixed(1)} µs a request (client included), ` +
    `${clocked ? 'the clock' : 'nodebench'} +${over.toFixed(2)} µs a request (median of ${options.pairs} pairs of ${options.block}), ` +
    `${(over * 1000 / perRequest).toFixed(0)} ns a segment (${perRequest.toFixed(1)} segments a request)\n`)
  for (const c of clients) c.close()
  for (const server of servers) server.close()
  if (realClock !== null) realClock.stop()
  if (tracing !== null) await tracing.shutdown()
}

runScript('alternating', parseArguments, main)
