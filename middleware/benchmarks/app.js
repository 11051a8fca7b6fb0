'use strict'

// The app the overhead benchmark loads: Express 5, ten small middleware and one JSON route, in one of four
// variants; or (nest-bare, nest-breakdown) the NestJS example, examples/nest-cats (Nest 12 on Express 5), bare or
// with nodebench's breakdown. Run by overhead.js as a child process, one per measured run, so every variant
// starts from a fresh process with the same heap and JIT state:
//
//   node benchmarks/app.js --variant bare|nodebench-0.1|nodebench-1|otel-official|nest-bare|real-bare|... [--port 0]
//                          [--keep-alive-timeout ms]
//
// Prints `listening on http://127.0.0.1:<port>` when ready. On SIGTERM it stops accepting requests, flushes
// the spans still queued for export (bounded), prints `stopped <json>` and exits 0.

const { parseArgs } = require('node:util')
const { clockedAtReturn } = require('./clock-floor')

// The default run: the four variants, plus nodebench's breakdown alone (exporter 'none').
const DEFAULT_VARIANTS = Object.freeze(['bare', 'nodebench-breakdown', 'nodebench-0.1', 'nodebench-1', 'otel-official'])
// Opt-in (--variants): what merely having an OpenTelemetry SDK loaded and registered costs the bare app,
// nodebench with its span pipeline started but no request sampled (the cost of deciding), and the breakdown
// with its metrics pushed over OTLP every second (60 times the default rate; compare with
// nodebench-breakdown).
// bare-clock is the floor of any breakdown of this app: the bare app with each middleware and the handler
// between two reads of the clock, both kept, and nothing else (DESIGN.md: two reads a segment); real-clock the
// same on the real stack with the second read where nodebench's segment ends (at the function's `next`), and
// real-clock-return with it where bare-clock reads it (at the return): clock-floor.js.
// The NestJS variants are opt-in too (--variants nest-bare,nest-breakdown): each is compared with nest-bare.
const NEST_VARIANTS = Object.freeze(['nest-bare', 'nest-breakdown'])
// The real middleware stack (real-app.js: helmet, cors, compression, ...), opt-in too: bare, the breakdown
// alone, the exporter on at sampleRatio 0, 0.1 and 1, and the official instrumentation (as otel-official) on
// the same stack; each compared with real-bare. real-context is the breakdown alone with the request's async
// context on, as nodebench keeps it once it observes a dependency (a MongoDB driver loaded, an outgoing call):
// lib/dependencies/calls.js. Each request then enters it, and on Node.js 20 and 22 every promise and async
// resource of the process pays for its propagation, in a request that calls nothing too. (Turned on directly,
// not by loading a driver, whose modules would weigh on the heap of this variant alone: an app with a database
// holds them with or without nodebench.)
const REAL_VARIANTS = Object.freeze([
  'real-bare', 'real-breakdown', 'real-0', 'real-0.1', 'real-1', 'real-official', 'real-clock', 'real-clock-return', 'real-1-down',
  'real-context'
])
// sampleRatio 1 with no collector: the OTLP endpoint is a closed port for these (overhead.js, fixed-requests.js)
// whatever the sink, as on a first run of the default configuration.
const DOWN_VARIANTS = Object.freeze(['nodebench-1-down', 'real-1-down'])
const VARIANTS = Object.freeze([
  ...DEFAULT_VARIANTS, 'bare-nodesdk', 'bare-tracerprovider', 'bare-clock', 'nodebench-0', 'nodebench-metrics', 'nodebench-1-down', ...NEST_VARIANTS,
  ...REAL_VARIANTS
])
const METRICS_INTERVAL_MS = 1000
const CLOCKED_FUNCTIONS = 11
const SAMPLE_RATIOS = Object.freeze({
  'nodebench-0': 0, 'nodebench-0.1': 0.1, 'nodebench-1': 1, 'real-0': 0, 'real-0.1': 0.1, 'real-1': 1, 'nodebench-1-down': 1, 'real-1-down': 1
})
const FLUSH_TIMEOUT_MS = 3000

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      variant: { type: 'string' },
      port: { type: 'string', default: '0' },
      'keep-alive-timeout': { type: 'string' }
    },
    strict: true
  })
  if (!VARIANTS.includes(values.variant)) {
    throw new TypeError(`--variant must be one of ${VARIANTS.join(', ')}; received ${JSON.stringify(values.variant)}`)
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`--port must be an integer from 0 to 65535; received ${JSON.stringify(values.port)}`)
  }
  const keepAliveTimeout = values['keep-alive-timeout'] === undefined ? null : Number(values['keep-alive-timeout'])
  if (keepAliveTimeout !== null && !(Number.isInteger(keepAliveTimeout) && keepAliveTimeout >= 0)) {
    throw new TypeError(`--keep-alive-timeout must be a whole number of ms; received ${JSON.stringify(values['keep-alive-timeout'])}`)
  }
  return { variant: values.variant, port, keepAliveTimeout }
}

/**
 * Express 5, required by its own name: the official instrumentation recognises Express by the package
 * directory it is loaded from (`node_modules/express/`), so the npm alias `express5` would run uninstrumented.
 */
function requireExpress5 () {
  const express = require('express')
  const { version } = require('express/package.json')
  if (!version.startsWith('5.')) throw new Error(`the benchmark needs Express 5 as \`express\`; found express@${version}`)
  return express
}

/**
 * The official way (opentelemetry.io "Getting started" for Node.js): a NodeSDK with the HTTP and Express
 * instrumentations, started before the app requires `http` or `express`. Same exporter (OTLP/protobuf over
 * HTTP to OTEL_EXPORTER_OTLP_ENDPOINT) and same BatchSpanProcessor defaults as nodebench's 'otlp' exporter,
 * so the export costs the same; every request sampled.
 */
function startOfficialSdk () {
  const { NodeSDK } = require('@opentelemetry/sdk-node')
  const { AlwaysOnSampler } = require('@opentelemetry/sdk-trace')
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto')
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http')
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express')
  const sdk = new NodeSDK({
    serviceName: 'overhead-bench',
    traceExporter: new OTLPTraceExporter(),
    sampler: new AlwaysOnSampler(),
    instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
    metricReaders: [],
    logRecordProcessors: []
  })
  sdk.start()
  return sdk
}

// Requests the app handled, reported on exit (the runner compares it with what autocannon counted).
let requestCount = 0

/** The segments a request passed, on average (what the overhead benchmark divides its cost by). */
function segmentsPerRequest (snapshot) {
  let requests = 0
  let segments = 0
  for (const operation of snapshot.operations) {
    requests += operation.count
    for (const segment of operation.segments) segments += segment.count
  }
  return requests === 0 ? null : segments / requests
}

/** Ten small middleware: each sets something on the request or response, or does a tiny computation. */
function addMiddleware (app, clocked) {
  app.use(clocked(function countRequests (req, res, next) {
    requestCount++
    next()
  }))
  app.use(clocked(function assignRequestId (req, res, next) {
    req.requestId = requestCount.toString(36)
    next()
  }))
  app.use(clocked(function setRequestIdHeader (req, res, next) {
    res.setHeader('X-Request-Id', req.requestId)
    next()
  }))
  app.use(clocked(function markStart (req, res, next) {
    req.receivedAt = Date.now()
    next()
  }))
  app.use(clocked(function negotiateJson (req, res, next) {
    const accept = req.headers.accept
    req.wantsJson = accept === undefined || accept.includes('json') || accept.includes('*/*')
    next()
  }))
  app.use(clocked(function detectLocale (req, res, next) {
    const language = req.headers['accept-language']
    req.locale = typeof language === 'string' && language.length >= 2 ? language.slice(0, 2) : 'en'
    next()
  }))
  app.use(clocked(function hashPath (req, res, next) {
    let hash = 0
    for (let i = 0; i < req.url.length; i++) hash = (hash * 31 + req.url.charCodeAt(i)) | 0
    req.pathHash = hash >>> 0
    next()
  }))
  app.use(clocked(function loadUser (req, res, next) {
    res.locals.user = { id: 7, role: 'reader' }
    next()
  }))
  app.use(clocked(function setCacheControl (req, res, next) {
    res.setHeader('Cache-Control', 'private, max-age=0')
    next()
  }))
  app.use(clocked(function setServiceHeader (req, res, next) {
    res.setHeader('X-Service', 'overhead-bench')
    next()
  }))
}

/** `clockTimes`: bare-clock's slots (a Float64Array, two a function), or null for the app as it is. */
function createApp (express, tracing, clockTimes = null) {
  const app = express()
  if (tracing !== null) app.use(tracing)
  const clocked = clockedAtReturn(clockTimes)
  addMiddleware(app, clocked)
  app.get('/api/items/:id', clocked(function getItem (req, res) {
    const id = Number(req.params.id)
    res.json({
      id,
      name: `item ${id}`,
      price: (id % 100) + 0.99,
      tags: ['small', 'json'],
      owner: res.locals.user.id,
      locale: req.locale,
      requestId: req.requestId
    })
  }))
  return app
}

/** The bare app with an OpenTelemetry SDK loaded and registered that records nothing. */
function startIdleSdk (variant) {
  const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = require('@opentelemetry/sdk-trace')
  const processor = new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })
  if (variant === 'bare-nodesdk') {
    const { NodeSDK } = require('@opentelemetry/sdk-node')
    new NodeSDK({
      spanProcessors: [processor], instrumentations: [], metricReaders: [], logRecordProcessors: []
    }).start()
    return
  }
  const api = require('@opentelemetry/api')
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
  api.trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [processor] }))
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  require('@opentelemetry/exporter-trace-otlp-proto')
}

/**
 * The NestJS example as its users run it: `app.use(nodebenchTrace({ expose: true }))` in main.ts, nothing else;
 * nest-breakdown turns spans off from the environment (OTEL_TRACES_EXPORTER=none), as the breakdown-only
 * variant of the Express app does with `exporter: 'none'`.
 */
async function startNest (variant, port) {
  const path = require('node:path')
  const { pathToFileURL } = require('node:url')
  const exampleDir = path.join(__dirname, '..', '..', 'examples', 'nest-cats')
  const { buildApp } = await import(pathToFileURL(path.join(exampleDir, 'build.js')).href)
  buildApp(exampleDir, { log: (line) => process.stderr.write(`${line}\n`) })
  if (variant === 'nest-breakdown') process.env.OTEL_TRACES_EXPORTER = 'none'
  const { bootstrap } = await import(pathToFileURL(path.join(exampleDir, 'dist', 'main.js')).href)
  const app = await bootstrap(port, { traced: variant === 'nest-breakdown' })
  app.server.on('request', () => { requestCount++ })
  process.stdout.write(`listening on http://127.0.0.1:${app.port}\n`)
  process.on('SIGTERM', async () => {
    const stats = { flush: 'flushed', requestsServed: requestCount }
    if (variant === 'nest-breakdown') {
      const snapshot = await (await fetch(`http://127.0.0.1:${app.port}/__nodebench`)).json()
      stats.segmentsPerRequest = segmentsPerRequest(snapshot)
    }
    app.close().then(() => {
      process.stdout.write(`stopped ${JSON.stringify(stats)}\n`)
      process.exit(0)
    }, (err) => {
      process.stderr.write(`close failed: ${err && err.stack ? err.stack : err}\n`)
      process.exit(1)
    })
  })
}

function main () {
  const { variant, port, keepAliveTimeout } = parseArguments(process.argv.slice(2))
  if (NEST_VARIANTS.includes(variant)) {
    startNest(variant, port).catch((err) => {
      process.stderr.write(`${err && err.stack ? err.stack : err}\n`)
      process.exit(1)
    })
    return
  }
  // The official SDK must be started before `http` and `express` are required; nodebench need not be.
  const sdk = variant === 'otel-official' || variant === 'real-official' ? startOfficialSdk() : null
  if (variant === 'bare-nodesdk' || variant === 'bare-tracerprovider') startIdleSdk(variant)
  const http = require('node:http')
  const express = requireExpress5()
  let tracing = null
  // Loaded only for its variants, so that the other variants' processes hold none of its modules.
  const realApp = REAL_VARIANTS.includes(variant) ? require('./real-app') : null
  const realClock = realApp === null ? null : realApp.realClockOf(variant)
  if (variant.startsWith('nodebench-') || (variant.startsWith('real-') && variant !== 'real-bare' && variant !== 'real-official' && realClock === null)) {
    const { nodebenchTrace } = require('@nodebench/trace')
    if (variant === 'nodebench-breakdown' || variant === 'real-breakdown' || variant === 'real-context') {
      tracing = nodebenchTrace({ serviceName: 'overhead-bench', exporter: 'none' })
      if (variant === 'real-context') require('../lib/dependencies/calls').observeRequests()
    } else if (variant === 'nodebench-metrics') {
      tracing = nodebenchTrace({ serviceName: 'overhead-bench', exporter: 'none', metrics: { otlp: { intervalMs: METRICS_INTERVAL_MS } } })
    } else {
      tracing = nodebenchTrace({ serviceName: 'overhead-bench', exporter: 'otlp', sampleRatio: SAMPLE_RATIOS[variant] })
    }
  }
  // The ten middleware and the handler: as many functions as the breakdown times segments on this app.
  const clockTimes = variant === 'bare-clock' ? new Float64Array(2 * CLOCKED_FUNCTIONS) : null
  const app = REAL_VARIANTS.includes(variant)
    ? realApp.createRealApp(express, tracing, realClock?.clocked)
    : createApp(express, tracing, clockTimes)
  const server = http.createServer(app)
  if (keepAliveTimeout !== null) server.keepAliveTimeout = keepAliveTimeout

  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`)
  })

  let stopping = false
  process.on('SIGTERM', () => {
    if (stopping) return
    stopping = true
    server.close()
    server.closeAllConnections()
    const flushed = sdk !== null ? sdk.shutdown() : tracing !== null ? tracing.shutdown() : Promise.resolve()
    // An exporter that cannot reach its endpoint (--sink none) retries; the runner does not wait for it.
    const timeout = new Promise((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS, 'timeout').unref())
    Promise.race([flushed.then(() => 'flushed'), timeout]).then((flush) => {
      const stats = { flush, requestsServed: requestCount }
      if (clockTimes !== null) stats.segmentsPerRequest = CLOCKED_FUNCTIONS
      if (realClock !== null) stats.segmentsPerRequest = realApp.REAL_SEGMENTS
      if (tracing !== null) {
        const snapshot = tracing.breakdown()
        stats.droppedSpans = snapshot.dropped.spans
        stats.requestContext = require('../lib/dependencies/calls').observing()
        stats.segmentsPerRequest = segmentsPerRequest(snapshot)
      }
      process.stdout.write(`stopped ${JSON.stringify(stats)}\n`)
      process.exit(0)
    }, (err) => {
      process.stderr.write(`flush failed: ${err && err.stack ? err.stack : err}\n`)
      process.exit(1)
    })
  })
}

if (require.main === module) {
  main()
}

module.exports = {
  VARIANTS, DEFAULT_VARIANTS, NEST_VARIANTS, REAL_VARIANTS, DOWN_VARIANTS, parseArguments, createApp, segmentsPerRequest
}
