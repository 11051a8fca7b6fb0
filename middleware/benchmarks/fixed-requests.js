'use strict'

// Serves requests of the benchmark app to a client in the same process, then exits. Used by
// instructions.js under valgrind, where what counts is the work done, not the time it took.
//
//   node benchmarks/fixed-requests.js <variant> <checkpoint>[,<checkpoint>...] [--pause]
//
// With --pause, at each checkpoint (a number of requests served) it prints `checkpoint <n>` and waits for a
// line on stdin before going on, so the process driving it can read callgrind's counters there
// (callgrind_control --dump); a 5 ms timer runs while it waits, since callgrind only takes commands while the
// program runs. Without it, it serves up to the last checkpoint and exits.
//
// Traced, it prints `timed <segments> segments in <requests> requests` at the end: the breakdown's segments (the
// per-segment figures of instructions.js are per one of them).
//
// With a sink it prints `sink received <spans> spans (<bytes> bytes) in <exports> exports` at the end, once the
// tracer has flushed: what the exporter delivered, read from the sink's /stats (for nodebench-metrics,
// `sink received <exports> metric exports (<bytes> bytes)`).
//
// Variants: bare, nodebench-breakdown (exporter 'none'), nodebench-0 / nodebench-0.1 / nodebench-1
// (exporter 'otlp' at that sampleRatio, to otlp-sink.js, which reads and discards each export), and
// nodebench-metrics (the breakdown, no spans, its metrics pushed over OTLP to the sink every 1,000 requests:
// a count, not a time, so that the pushes per request do not depend on how fast valgrind runs the app); nest-bare and
// nest-breakdown are the NestJS example (examples/nest-cats), bare and with its breakdown. The sink runs
// as its own process, as a collector does, so the instructions counted are the exporter's (encode, send, read
// the answer) and not the collector's; under valgrind it is not traced (callgrind's --trace-children=no).
// real-bare, real-breakdown, real-0, real-0.1 and real-1 are the same on the real middleware stack (real-app.js);
// nodebench-1-down and real-1-down are sampleRatio 1 with the OTLP endpoint at a closed port (no collector, no
// sink); real-clock and real-clock-return are its floor, the stack bare with its nine functions clocked
// (clock-floor.js), and print `timed` as if a breakdown had timed them.
// `client` is the client alone: the same requests to the bare app served by app.js in a process of its own
// (not traced either), so that its count is the client's share of every Express variant's (the same requests
// and the same responses), and a variant's count less it is its server's.

const http = require('node:http')
const path = require('node:path')
const readline = require('node:readline')
const { once } = require('node:events')
const { pathToFileURL } = require('node:url')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp, DOWN_VARIANTS } = require('./app')
const { createRealApp, realClockOf, REAL_SEGMENTS } = require('./real-app')
const { spawnServer, stopServer } = require('./child-server')

const SAMPLE_RATIOS = Object.freeze({
  'nodebench-0': 0, 'nodebench-0.1': 0.1, 'nodebench-1': 1, 'real-0': 0, 'real-0.1': 0.1, 'real-1': 1, 'nodebench-1-down': 1, 'real-1-down': 1
})
const METRICS_EVERY = 1000
// The reader's own schedule, far off: the pushes are the forced ones, every METRICS_EVERY requests.
const METRICS_INTERVAL_MS = 24 * 60 * 60 * 1000
const VARIANTS = Object.freeze([
  'bare', 'nodebench-breakdown', 'nodebench-0', 'nodebench-0.1', 'nodebench-1', 'nodebench-metrics', 'nest-bare', 'nest-breakdown', 'client',
  'real-bare', 'real-breakdown', 'real-0', 'real-0.1', 'real-1', 'real-clock', 'real-clock-return', 'real-context', ...DOWN_VARIANTS
])
const CONCURRENCY = 4

const [variant, checkpointsText, pauseFlag] = process.argv.slice(2)
const checkpoints = String(checkpointsText).split(',').map(Number)
if (!VARIANTS.includes(variant) || checkpoints.some((n) => !Number.isInteger(n) || n < 1) ||
    checkpoints.some((n, i) => i > 0 && n <= checkpoints[i - 1]) || (pauseFlag !== undefined && pauseFlag !== '--pause')) {
  process.stderr.write(`usage: node benchmarks/fixed-requests.js ${VARIANTS.join('|')} <requests>[,<more requests>...] [--pause]\n`)
  process.exit(2)
}
const paused = pauseFlag === '--pause'
const log = (message) => process.stderr.write(message + '\n')

/** Prints the checkpoint and resolves when the driver writes a line (or at once when nobody drives). */
function checkpoint (lines, served) {
  if (!paused) return Promise.resolve()
  process.stdout.write(`checkpoint ${served}\n`)
  const keepRunning = setInterval(() => {}, 5)
  return new Promise((resolve) => lines.once('line', () => {
    clearInterval(keepRunning)
    resolve()
  }))
}

/**
 * The app of `variant`, listening on a free loopback port: `{ server, path(i), headers, segments(), close() }`.
 * `segments(served)` resolves to `{ segments, requests }` the breakdown timed (null for a bare app).
 */
async function startTarget () {
  if (variant === 'nest-bare' || variant === 'nest-breakdown') return startNest()
  if (variant === 'client') return startOtherProcess()
  const realClock = realClockOf(variant)
  const tracing = variant === 'bare' || variant === 'real-bare' || realClock !== null
    ? null
    : variant === 'nodebench-breakdown' || variant === 'real-breakdown' || variant === 'real-context'
      ? nodebenchTrace({ exporter: 'none' })
      : variant === 'nodebench-metrics'
        ? nodebenchTrace({ exporter: 'none', metrics: { otlp: { intervalMs: METRICS_INTERVAL_MS } } })
        : nodebenchTrace({ exporter: 'otlp', sampleRatio: SAMPLE_RATIOS[variant] })
  // The request's context on (app.js, real-context). The client shares the process: its own promises then pay for
  // the context's propagation too, where overhead.js's client, a process of its own, does not.
  if (variant === 'real-context') require('../lib/dependencies/calls').observeRequests()
  const app = variant.startsWith('real-') ? createRealApp(express, tracing, realClock?.clocked) : createApp(express, tracing)
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    server,
    path: (i) => `/api/items/${i}`,
    headers: {},
    flushMetrics: () => tracing.flush(),
    // The clocked variants count nothing themselves (a counter would cost what bare does not): the client's.
    segments: async (served) => realClock !== null
      ? { segments: REAL_SEGMENTS * served, requests: served }
      : tracing === null ? null : timedSegments(tracing.breakdown()),
    close: async () => {
      server.close()
      if (tracing !== null) await tracing.shutdown()
    }
  }
}

/**
 * The NestJS example (examples/nest-cats, Nest 12 on Express 5), compiled when its sources changed, bare or
 * traced as its main.ts traces it (the breakdown only: OTEL_TRACES_EXPORTER=none), asked the list of cats.
 */
async function startNest () {
  const exampleDir = path.join(__dirname, '..', '..', 'examples', 'nest-cats')
  const { buildApp } = await import(pathToFileURL(path.join(exampleDir, 'build.js')).href)
  buildApp(exampleDir, { log })
  if (variant === 'nest-breakdown') process.env.OTEL_TRACES_EXPORTER = 'none'
  const { bootstrap } = await import(pathToFileURL(path.join(exampleDir, 'dist', 'main.js')).href)
  const app = await bootstrap(0, { traced: variant === 'nest-breakdown' })
  return {
    server: app.server,
    path: (i) => `/api/v1/cats?limit=${1 + (i % 5)}`,
    headers: { 'x-api-key': 'cats' },
    segments: async () => {
      if (variant !== 'nest-breakdown') return null
      return timedSegments(await (await fetch(`http://127.0.0.1:${app.port}/__nodebench`)).json())
    },
    close: () => app.close()
  }
}

/**
 * The bare app in a process of its own (app.js), for the `client` variant: only the client runs in this one.
 * Its keep-alive timeout is off, as the in-process server's (main()), for the pauses at the checkpoints.
 */
async function startOtherProcess () {
  const app = spawnServer(path.join(__dirname, 'app.js'), ['--variant', 'bare', '--port', '0', '--keep-alive-timeout', '0'],
    { env: process.env, name: 'app bare', log })
  process.on('exit', () => app.child.kill())
  const url = new URL(await app.listening)
  return {
    server: null,
    port: Number(url.port),
    path: (i) => `/api/items/${i}`,
    headers: {},
    segments: async () => null,
    close: () => stopServer(app, log)
  }
}

/** The segments a breakdown counted, and the requests. */
function timedSegments (snapshot) {
  let requests = 0
  let segments = 0
  for (const operation of snapshot.operations) {
    requests += operation.count
    for (const segment of operation.segments) segments += segment.count
  }
  return { segments, requests }
}

/** A loopback port nothing listens on: one a server was given, then closed. */
async function closedPort () {
  const server = http.createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function main () {
  if (DOWN_VARIANTS.includes(variant)) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${await closedPort()}`
  const sink = (variant in SAMPLE_RATIOS && !DOWN_VARIANTS.includes(variant)) || variant === 'nodebench-metrics'
    ? spawnServer(path.join(__dirname, 'otlp-sink.js'), ['--port', '0'], { env: process.env, name: 'otlp-sink', log })
    : null
  if (sink !== null) {
    process.on('exit', () => sink.child.kill())
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = await sink.listening
  }
  const target = await startTarget()
  const lines = paused ? readline.createInterface({ input: process.stdin }) : null
  const server = target.server
  // Paused at a checkpoint, the client's keep-alive sockets sit idle for as long as the dump takes (seconds
  // on a busy machine): the server must not close them meanwhile (its 5 s default), or the next request on
  // one is reset.
  if (server !== null) server.keepAliveTimeout = 0
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  // Read once: server.address() per request was 3% of the process's time, all of it in the client.
  const port = server !== null ? server.address().port : target.port
  const get = (i) => new Promise((resolve, reject) => {
    const requestPath = target.path(i)
    http.get({ host: '127.0.0.1', port, path: requestPath, headers: target.headers, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${requestPath} answered ${res.statusCode}`))
      res.resume()
      res.on('end', resolve)
    }).on('error', reject)
  })
  let served = 0
  try {
    for (const until of checkpoints) {
      for (; served < until; served += CONCURRENCY) {
        await Promise.all([get(served), get(served + 1), get(served + 2), get(served + 3)])
        if (variant === 'nodebench-metrics' && (served + CONCURRENCY) % METRICS_EVERY === 0) await target.flushMetrics()
      }
      await checkpoint(lines, served)
    }
  } finally {
    if (lines !== null) lines.close()
    // What a request passes through: the segments timed per request (instructions.js divides by them).
    const timed = await target.segments(served)
    if (timed !== null) process.stdout.write(`timed ${timed.segments} segments in ${timed.requests} requests\n`)
    agent.destroy()
    await target.close()
    if (sink !== null) {
      const stats = await (await fetch(`${await sink.listening}/stats`)).json()
      if (variant === 'nodebench-metrics') {
        process.stdout.write(`sink received ${stats.metricExports} metric exports (${stats.metricBytes} bytes)\n`)
      } else {
        process.stdout.write(`sink received ${stats.spans} spans (${stats.bytes} bytes) in ${stats.requests} exports\n`)
      }
      await stopServer(sink, log)
    }
  }
}

main().catch((err) => {
  log(err && err.stack ? err.stack : String(err))
  process.exitCode = 1
})
