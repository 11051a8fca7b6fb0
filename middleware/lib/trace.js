'use strict'

const { performance } = require('perf_hooks')
const api = require('@opentelemetry/api')
const { BreakdownAggregator } = require('@nodebench/breakdown')
const { normalizeOptions } = require('./options')
const { RequestRecord, recordOf, attachRecord, holdRecord, settleRecord, detachRecord } = require('./request-record')
const { AppInstrumenter } = require('./instrument-app')
const { createSpanPipeline } = require('./span-pipeline')
const { addServerTiming } = require('./server-timing')
const { serveBreakdown, pathnameOf } = require('./expose')
const { copyFunctionIdentity, restoreNext } = require('./wrap-layer')
const { resolveNames } = require('./function-names')
const { reportInternalError, internalErrorCount } = require('./internal-errors')
const { joinCluster, clusterBreakdownAvailable, requestClusterBreakdown } = require('./cluster-breakdown')
const { createMetrics } = require('./metrics-export')
const { randomTraceId, randomSpanId, ensureRequestIds } = require('./trace-context')
const { subscribe: subscribeToResponseEnds, watchEnd } = require('./response-end')
const dependencies = require('./dependencies')
const { offerCpuContexts } = require('./cpu-context')

// Per-request reads of `req` and `res` go through computed keys: Express gives each request and response a
// map of their own, so a named read misses V8's inline caches (see request-record.js).
const APP = 'app'
const METHOD = 'method'

/**
 * Times every layer of the Express app it is mounted in.
 *
 * @param {object} [options]
 * @param {string} [options.serviceName] service name of the spans and the breakdown (default OTEL_SERVICE_NAME,
 *   else the name in the app's package.json, else the script name)
 * @param {'otlp'|'none'|object} [options.exporter] 'otlp' (default), 'none' (breakdown only) or an OpenTelemetry
 *   SpanExporter
 * @param {number} [options.sampleRatio] fraction of requests exported as spans (default OTEL_TRACES_SAMPLER_ARG,
 *   else 1)
 * @param {boolean|((req: object) => boolean)} [options.serverTiming] add a Server-Timing header with each
 *   segment's duration: to every response (true), or to those whose request the function accepts
 * @param {string|boolean} [options.expose] serve the breakdown at this path (true: '/__nodebench')
 * @param {{ read?: string|Function, reset?: string|Function }} [options.access] who may read nodebench's
 *   endpoints and reset the breakdown: 'local' (default: this machine), 'anyone', or (req) => boolean
 * @param {number} [options.maxQueueSize] spans buffered for export before new ones are dropped (default 2048)
 * @param {number} [options.maxOperations] distinct operations kept in the breakdown (default 500)
 * @param {boolean} [options.activeContext] make the request span the active OpenTelemetry context while the app
 *   handles a sampled request, so spans the app creates become its children (default false: it switches on
 *   AsyncLocalStorage propagation for the whole process)
 * @param {boolean|object} [options.metrics] export the breakdown as OpenTelemetry metrics: true (OTLP push), or
 *   { otlp: true | { intervalMs }, prometheus: '/metrics' | { port, host } } (default false)
 * @param {'nodebench'|'instrumentation-express'} [options.layerSpans] whose layer spans stand when the app runs
 *   instrumentation-express (default 'nodebench': instrumentation-express is told to ignore its layer types)
 * @returns {Function} Express middleware with breakdown(), reset(), flush() and shutdown()
 */
function nodebenchTrace (options) {
  const config = normalizeOptions(options)
  subscribeToResponseEnds()
  dependencies.startDependencies()
  offerCpuContexts()
  const aggregator = newAggregator()
  const spans = createSpanPipeline(config)
  const exposePath = config.expose
  // Features that are off cost nothing on the request path: chosen here, once.
  const decorateResponse = config.serverTiming === false ? null : addServerTiming(config.serverTiming)
  // Figures a reset took out of `aggregator`, kept while something needs everything this process served:
  // its metrics (cumulative), or a cluster primary that serves the metrics of its workers.
  let lifetimeBase = null
  let keepsLifetime = config.metrics !== false
  // With the lifetime kept, a reset's figures that reach nobody (cluster-breakdown.js) come back here rather
  // than into `aggregator`: the lifetime counted them already, before the reset.
  let absorbed = null
  const metrics = config.metrics === false ? null : startMetrics()
  const metricsPath = metrics === null ? null : metrics.path

  function startMetrics () {
    try {
      return createMetrics(config, { view: lifetime, beforeCollect: resolveNames })
    } catch (err) {
      reportInternalError('start metrics', err)
      return null
    }
  }

  function onResponseFinish () {
    const record = recordOf(this)
    if (record !== undefined) finishRecord(record, false)
  }

  function onResponseClose () {
    // After 'finish' the record is done already; a record still open at 'close' is a response the client
    // did not wait for. (Not `res.writableFinished`: every named read on a response costs a lookup outside
    // V8's inline caches, since Express gives each response a map of its own.)
    const record = recordOf(this)
    if (record !== undefined) finishRecord(record, true)
  }

  /** The end of a request (response-end.js): its response finished, or `aborted` (closed first). */
  function finishRecord (record, aborted) {
    const res = record.response
    if (record.done || res === null) return
    detachRecord(res, record)
    try {
      dependencies.leaveRequestContext(record)
      record.finish(res, aborted)
      restoreNext(record, record.request)
      if (record.skip) return
      aggregator.recordRequest(record)
      if (record.dependencyCalls !== null) aggregator.recordDependencies(record)
      if (record.sampled) spans.end(record, record.request)
    } catch (err) {
      reportInternalError('finish request', err)
    } finally {
      record.request = null
      record.response = null
    }
  }

  /**
   * Opens the request's record; returns the context to run the app in (sampled requests) or null. `beforeApp`:
   * begun by the wrapped `handle`, before Express set up the response, where the record is held until
   * nodebench's middleware runs or `handle` returns (request-record.js, settleRecord).
   */
  function beginRequest (req, res, beforeApp) {
    const record = new RequestRecord(req[METHOD], performance.now())
    record.request = req
    record.response = res
    record.onEnd = finishRecord
    // Found by the response (every layer call receives `res` too): through its connection, where the server
    // made it (watchEnd), else on the response (request-record.js). `req` is not changed.
    watchEnd(record, res, onResponseFinish, onResponseClose)
    if (beforeApp && record.socket === null) holdRecord(res, record)
    else attachRecord(res, record)
    dependencies.enterRequestContext(record)
    if (decorateResponse !== null) decorateResponse(res)
    return spans.enabled ? spans.start(record, req) : null
  }

  const instrumenter = new AppInstrumenter({
    selfMiddleware: nodebenchTraceMiddleware,
    onRootApp: (app) => wrapAppHandle(app, instrumenter, beginRequest),
    onExpressInstrumentation: (instrumentation) => spans.expressInstrumentationFound(instrumentation)
  })

  function nodebenchTraceMiddleware (req, res, next) {
    const app = req[APP]
    if (app !== undefined && !instrumenter.isInstrumented(app)) {
      instrumenter.instrumentTree(app)
      dependencies.onAppFound(app)
      if (spans.enabled) spans.ensureStarted()
    }
    let context = null
    settleRecord(res)
    if (recordOf(res) === undefined && !res.writableEnded) {
      // The request that found the app: timed from here on, after nodebench's own set-up (the layers
      // before this one are not in its record). (A finished response has no record any more: a layer
      // that calls next() after ending it does not start a second one.)
      try {
        context = beginRequest(req, res, false)
      } catch (err) {
        reportInternalError('begin request', err)
      }
    }
    if (metricsPath !== null && pathnameOf(req) === metricsPath) {
      serveOwnPath(req, res, next, 'serve metrics', () => metrics.serve(req, res, config.access))
      return
    }
    if (exposePath !== false && pathnameOf(req) === exposePath) {
      serveOwnPath(req, res, next, 'expose', () => serveBreakdown(req, res, { access: config.access, source: breakdownSource }))
      return
    }
    if (context !== null) api.context.with(context, next)
    else next()
  }

  /** Answers a request to one of nodebench's own paths, which is not an operation of the app. */
  function serveOwnPath (req, res, next, what, serve) {
    const record = recordOf(res)
    if (record !== undefined) record.skip = true
    try {
      serve()
    } catch (err) {
      reportInternalError(what, err)
      next(err)
    }
  }

  function breakdown () {
    // The layers' names are resolved here, when first asked for, not while the app serves its first request.
    resolveNames()
    const snapshot = breakdownAggregator().snapshot({ droppedSpans: spans.droppedSpans() })
    if (metrics !== null) snapshot.dropped.metricExports = metrics.failedExports()
    const internalErrors = internalErrorCount()
    if (internalErrors > 0) snapshot.internalErrors = internalErrors
    const requestContext = dependencies.requestContextKind()
    if (requestContext !== undefined) snapshot.requestContext = requestContext
    return snapshot
  }

  /** What the breakdown covers: the aggregator, and any reset figures given back to it. */
  function breakdownAggregator () {
    return merged(aggregator, absorbed)
  }

  /** Everything this process served: what resets took out, and the aggregator's own. */
  function lifetime () {
    return merged(lifetimeBase, aggregator)
  }

  /** `first` and `second` added in that order; the one alone when the other is null. */
  function merged (first, second) {
    if (first === null || second === null) return first ?? second
    const all = newAggregator()
    all.add(first)
    all.add(second)
    return all
  }

  function newAggregator () {
    return new BreakdownAggregator({ service: config.serviceName, maxOperations: config.maxOperations })
  }

  function reset () {
    if (keepsLifetime) {
      try {
        lifetimeBase ??= newAggregator()
        lifetimeBase.add(aggregator)
      } catch (err) {
        reportInternalError('keep the lifetime figures over a reset', err)
      }
    }
    aggregator.reset()
    absorbed = null
  }

  /** What the expose path serves: this process's breakdown, or the whole cluster's when the primary merges. */
  const breakdownSource = Object.freeze({
    local (resetAfter) {
      const snapshot = breakdown()
      if (resetAfter) reset()
      return snapshot
    },
    cluster (resetAfter) {
      return inCluster && clusterBreakdownAvailable() ? requestClusterBreakdown({ reset: resetAfter }) : null
    },
    absorb
  })

  /** Adds a merged breakdown state (a cluster reset nobody received) back to this process's aggregates. */
  function absorb (state) {
    try {
      if (!keepsLifetime) {
        aggregator.mergeState(state)
      } else {
        absorbed ??= newAggregator()
        absorbed.mergeState(state)
      }
    } catch (err) {
      reportInternalError('keep a reset breakdown', err)
    }
  }

  const inCluster = joinCluster({
    service: config.serviceName,
    /** This process's state; `lifetime`: everything it served (for the primary's metrics), not the breakdown. */
    exportState (resetAfter, { lifetime: whole = false } = {}) {
      resolveNames()
      const state = {
        breakdown: (whole ? lifetime() : breakdownAggregator()).exportState(),
        droppedSpans: spans.droppedSpans(),
        internalErrors: internalErrorCount(),
        requestContext: dependencies.requestContextKind() ?? null
      }
      if (resetAfter) reset()
      return state
    },
    absorb,
    keepLifetime () {
      keepsLifetime = true
    }
  })

  /**
   * The W3C `traceparent` for a call this request makes to another service: the trace of the request, the
   * segment running now as the parent (its span id fixed now), so the other service's spans (traced by
   * nodebench, or by any OpenTelemetry SDK) join the trace under it. A request that is not sampled gets a
   * traceparent that says so (flags 00), so the other service samples none of its part either.
   */
  function traceparent (req) {
    try {
      const record = req !== null && typeof req === 'object' && req.res ? recordOf(req.res) : undefined
      if (record !== undefined && record.sampled) {
        const parent = record.parentSpan ?? record.span
        if (parent !== null) {
          const context = parent.spanContext()
          return `00-${context.traceId}-${context.spanId}-01`
        }
        ensureRequestIds(record)
        const running = record.runningSegment()
        const spanId = running === -1 ? record.spanId : record.presetSpanId(running, randomSpanId)
        return `00-${record.traceId}-${spanId}-01`
      }
    } catch (err) {
      reportInternalError('traceparent', err)
    }
    return `00-${randomTraceId()}-${randomSpanId()}-00`
  }

  const middleware = nodebenchTraceMiddleware
  middleware.breakdown = breakdown
  middleware.traceparent = traceparent
  middleware.reset = reset
  middleware.flush = () => Promise.all([spans.flush(), metrics?.flush()]).then(() => {})
  middleware.shutdown = () => Promise.all([spans.shutdown(), metrics?.shutdown()]).then(() => {})
  middleware.options = config
  middleware.enabled = true
  return middleware
}

/**
 * Wraps the root app's `handle` (what http.Server calls) so a request is timed from the moment it
 * enters the app, before any layer runs, and the request span is active while the app handles it.
 */
function wrapAppHandle (app, instrumenter, beginRequest) {
  const original = app.handle
  const handle = function handle (req, res, callback) {
    if (recordOf(res) !== undefined) return original.call(this, req, res, callback)
    let context = null
    try {
      instrumenter.refreshApp(app)
      context = beginRequest(req, res, true)
    } catch (err) {
      reportInternalError('begin request', err)
    }
    try {
      if (context !== null) return api.context.with(context, original, this, req, res, callback)
      return original.call(this, req, res, callback)
    } finally {
      settleRecord(res)
    }
  }
  copyFunctionIdentity(original, handle)
  app.handle = handle
}

module.exports = { nodebenchTrace }
