'use strict'

const api = require('@opentelemetry/api')
const { reportInternalError, log } = require('../internal-errors')
const { hasPendingNames, resolveNames } = require('../function-names')
const { parseTraceparent, ensureRequestIds } = require('../trace-context')
const { LazyTracerProvider, LazyPropagator } = require('../lazy-sdk')
const { serverSpanAttributes } = require('../server-span-attributes')
const { startDependencySpans } = require('../dependencies/spans')
const { layerAttributes, routerAttributes, spanName, requestEndAttributes, errorMessage, pathOf } = require('../span-attributes')
const { settleLayerSpans } = require('../layer-spans')
const {
  TRACER_NAME, TRACER_VERSION, OTEL_API_GLOBALS, registeredTracerProvider, requestServerSpan, delegateTracerProvider
} = require('./otel-api')

function envInteger (env, name, fallback) {
  const value = Number(env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}

/** The BatchSpanProcessor settings NodeSDK takes from the environment, bounded by maxQueueSize. */
function batchingOf (config, env) {
  return Object.freeze({
    maxQueueSize: config.maxQueueSize,
    maxExportBatchSize: Math.min(config.maxQueueSize, envInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512)),
    scheduledDelayMillis: envInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
    exportTimeoutMillis: envInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000)
  })
}

/**
 * What every span pipeline does the same, whichever carries the spans: the sampling decision and the request
 * span (start, open), the spans of a finished record (end, write, emitThroughTracer), records waiting for their
 * layers' names, flushing, shutting down and leaving the API's globals as they were. A subclass per exporter
 * (index.js) prepares its pipeline at construction (prepare) and starts it on the first request (startPipeline).
 */
class SpanPipeline {
  constructor (config, env = process.env) {
    this.config = config
    this.enabled = true
    this.started = false
    this.closed = false
    this.batching = batchingOf(config, env)
    this.scope = Object.freeze({ name: TRACER_NAME, version: TRACER_VERSION })
    this.tracer = null // the app's tracer, when its provider carries nodebench's spans
    this.provider = null // the provider nodebench registered or owns
    this.registered = false
    this.propagator = null // the propagator nodebench registered, if it did
    this.contextManager = null // the context manager nodebench registered (activeContext), if it did
    this.followsApp = false // spans follow the API's global `trace` slot (AppSpanPipeline)
    this.traceSlot = undefined // the API's global `trace` slot when last read (followsApp)
    this.ownDirect = null // nodebench's own writer, kept while the app's provider carries the spans
    this.layerSpans = true // whether nodebench writes layer spans under another instrumentation's SERVER span
    this.ownPropagation = false // the propagator registered is nodebench's: W3C traceparent, parsed here
    this.processor = null // a BatchSpanProcessor of the SDK's, when one carries spans
    this.sdkDrops = null // () => spans that processor could not deliver
    this.records = null // nodebench's own export of encoded spans
    this.ownsRecords = false
    this.direct = null // writes a finished record's spans without the tracer
    this.detectedResource = null
    // Sampled requests that ended while some of their layers had no name yet: written when the export
    // schedule comes round, after resolveNames() (function-names.js), so the app's first requests do not
    // wait for naming. Never more than a batch.
    this.awaitingNames = []
    this.awaitingSpans = 0
    this.awaitingTimer = null
    this.prepared = null
    try {
      this.prepared = this.prepare()
    } catch (err) {
      reportInternalError('load OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  /** Starts the export pipeline once. If that fails, spans are off and the breakdown carries on. */
  ensureStarted () {
    if (this.started || this.closed) return
    this.started = true
    try {
      this.startPipeline()
    } catch (err) {
      reportInternalError('start OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  /**
   * The app runs instrumentation-express (found around its layers at instrumentation: foreign-wrappers.js):
   * whose layer spans stand (layer-spans.js).
   */
  expressInstrumentationFound (instrumentation) {
    // Spans are off (OpenTelemetry failed to load): instrumentation-express's stay as the app configured them.
    if (this.closed) return
    this.layerSpans = settleLayerSpans(this.config.layerSpans, instrumentation)
  }

  /**
   * What NodeSDK registers for traces, without NodeSDK: a TracerProvider (so spans the app creates are
   * exported too), W3C trace-context and baggage propagation, and an AsyncLocalStorage context manager
   * only with `activeContext`: it makes every async operation of the process pay for context propagation
   * (measured at ~20 µs per request on a small app). @opentelemetry/sdk-node itself loads the metrics and
   * logs SDKs and their exporters as well, ~15 MB of heap that every major garbage collection then walks:
   * 4% more instructions per request than this registration (benchmarks/README.md).
   */
  registerGlobally (provider) {
    this.provider = provider
    // nodebench's own provider (exporter 'otlp') is the API's delegate, not in its global slot, so a NodeSDK the
    // app starts later still registers its own (delegateTracerProvider); a SpanExporter's provider is registered.
    const registered = provider instanceof LazyTracerProvider
      ? delegateTracerProvider(provider)
      : api.trace.setGlobalTracerProvider(provider)
    if (!registered) throw new Error('a global TracerProvider could not be registered')
    this.registered = true
    const propagator = new LazyPropagator()
    this.ownPropagation = api.propagation.setGlobalPropagator(propagator)
    if (this.ownPropagation) this.propagator = propagator
    if (this.config.activeContext) {
      const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
      const contextManager = new AsyncLocalStorageContextManager().enable()
      if (api.context.setGlobalContextManager(contextManager)) this.contextManager = contextManager
    }
  }

  /**
   * Decides whether the request is sampled and, if nodebench owns the request span, opens it.
   * Returns the context to run the app in (only with `activeContext`), or null to run it as it is.
   */
  start (record, req) {
    this.ensureStarted()
    if (this.closed) return null
    const globals = globalThis[OTEL_API_GLOBALS]
    if (this.followsApp && (globals === undefined ? undefined : globals.trace) !== this.traceSlot) {
      this.followRegisteredProvider(globals === undefined ? undefined : globals.trace)
    }
    const serverSpan = globals === undefined || globals.context === undefined ? undefined : requestServerSpan()
    if (serverSpan !== undefined) {
      // The request's SERVER span is another instrumentation's (instrumentation-http): ours become its children.
      if (!serverSpan.isRecording()) return null
      record.sampled = true
      record.parentSpan = serverSpan
      return null
    }
    // exporter 'app' while the app has no provider: no spans.
    if (this.direct === null && this.tracer === null) return null
    // Without an incoming `traceparent` the ratio alone decides, before anything else is done for spans: a
    // request that is not sampled costs this test and no more (sampleRatio 0: not even a random number).
    const headers = req.headers
    if (headers.traceparent === undefined) {
      const ratio = this.config.sampleRatio
      if (ratio <= 0 || (ratio < 1 && Math.random() >= ratio)) return null
      return this.open(record, req, api.ROOT_CONTEXT, undefined)
    }
    const parentContext = this.extract(headers)
    const remote = api.trace.getSpanContext(parentContext)
    const hasRemote = remote !== undefined && api.isSpanContextValid(remote)
    const sampled = hasRemote
      ? (remote.traceFlags & api.TraceFlags.SAMPLED) !== 0
      : Math.random() < this.config.sampleRatio
    if (!sampled) return null
    return this.open(record, req, parentContext, hasRemote ? remote : undefined)
  }

  /**
   * A sampled request: its record marked, and the request span opened if nodebench owns it (the app's tracer).
   * `remote`: the incoming parent's span context, when valid.
   */
  open (record, req, parentContext, remote) {
    const hasRemote = remote !== undefined
    record.sampled = true
    let requestSpan
    if (this.direct !== null) {
      // The span is written when the response finishes; its ids are drawn then, unless asked for before.
      record.traceId = hasRemote ? remote.traceId : null
      record.remoteParent = hasRemote ? remote : null
      if (!this.config.activeContext) return null
      ensureRequestIds(record)
      requestSpan = api.trace.wrapSpanContext({
        traceId: record.traceId, spanId: record.spanId, traceFlags: api.TraceFlags.SAMPLED
      })
    } else {
      requestSpan = this.tracer.startSpan(req.method, {
        kind: api.SpanKind.SERVER,
        startTime: record.startMs,
        attributes: { 'http.request.method': req.method, 'url.path': pathOf(req.url) }
      }, parentContext)
      record.span = requestSpan
      if (!this.config.activeContext) return null
    }
    return api.trace.setSpan(parentContext, requestSpan)
  }

  /**
   * The context of an incoming `traceparent`: through the registered propagator when it is the app's, else
   * (nodebench's own, or none) parsed here, as @opentelemetry/core's W3C propagator would.
   */
  extract (headers) {
    if (!this.ownPropagation) {
      const extracted = api.propagation.extract(api.ROOT_CONTEXT, headers)
      if (api.trace.getSpanContext(extracted) !== undefined) return extracted
    }
    const remote = parseTraceparent(headers.traceparent)
    return remote === null ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, remote)
  }

  /** Writes the spans of a finished, sampled record with the times it recorded (once its layers are named). */
  end (record, req) {
    if (!record.sampled) return
    try {
      if (record.parentSpan !== null) {
        record.parentSpan.setAttribute('http.route', record.route)
        // instrumentation-express's layer spans stand (layerSpans): nodebench's would repeat them.
        if (!this.layerSpans) return
      }
      // nodebench's own export reaches no collector: the spans are counted as dropped and not built, but for a
      // probe once a schedule delay (otlp-export.js). Spans through the app's tracer are the app's pipeline's.
      const records = this.records
      if (records !== null && records.unreachable && record.span === null &&
        (this.direct !== null || record.parentSpan === null) && records.skips(record)) return
      // Inside a router req.url is relative to its mount path until the router hands over: originalUrl is whole.
      const urlPath = pathOf(req.originalUrl || req.url)
      record.serverAttributes = serverSpanAttributes(req, record)
      if (hasPendingNames()) this.awaitNames(record, urlPath)
      else this.write(record, urlPath)
    } catch (err) {
      reportInternalError('create spans', err)
    }
  }

  prepareExport () {
    try {
      this.records.prepare()
    } catch (err) {
      reportInternalError('prepare the export', err)
    }
  }

  write (record, urlPath) {
    if (record.span !== null) {
      this.emitThroughTracer(record)
      return
    }
    // A record started before the app's provider came (or went) is written by the pipeline it started in.
    const direct = this.direct !== null ? this.direct : record.parentSpan === null ? this.ownDirect : null
    if (direct !== null) direct.write(record, urlPath)
    else if (record.parentSpan !== null) this.emitThroughTracer(record)
  }

  /**
   * Holds a record until its layers are named: nodebench's own export waits for its schedule, or until the
   * waiting spans make a full batch, when an export would go out anyway (so the queue is never the limit).
   * Spans through the app's provider wait only for the current turn of the event loop: the app's processor has
   * a schedule of its own, and a wait here would add to it (seconds before the spans reach its exporter).
   */
  awaitNames (record, urlPath) {
    this.awaitingNames.push(record, urlPath)
    this.awaitingSpans += record.segmentCount + (record.parentSpan === null ? 1 : 0)
    if (this.awaitingSpans >= this.batching.maxExportBatchSize) {
      this.writeAwaiting()
    } else if (this.awaitingTimer === null) {
      const delay = this.direct === null ? 0 : this.batching.scheduledDelayMillis
      this.awaitingTimer = setTimeout(() => this.writeAwaiting(), delay)
      this.awaitingTimer.unref()
    }
  }

  /**
   * Names the layers, then writes the records that waited for it and sends them without another delay.
   * Resolves when they are exported (or counted as dropped); never rejects.
   */
  writeAwaiting () {
    if (this.awaitingTimer !== null) {
      clearTimeout(this.awaitingTimer)
      this.awaitingTimer = null
    }
    if (this.awaitingNames.length === 0) return Promise.resolve()
    const waiting = this.awaitingNames
    this.awaitingNames = []
    this.awaitingSpans = 0
    resolveNames()
    // The export's resource and HTTP client, made here too rather than by the first send, whose batch (and
    // the queue behind it) would wait for them: one pause of the event loop instead of two.
    if (this.ownsRecords) this.prepareExport()
    for (let i = 0; i < waiting.length; i += 2) {
      try {
        this.write(waiting[i], waiting[i + 1])
      } catch (err) {
        reportInternalError('create spans', err)
      }
    }
    if (this.records !== null) {
      this.records.sendNow()
      return this.records.flush()
    }
    if (this.processor !== null) return this.processor.forceFlush().then(noop, (err) => log('export failed: %s', err && err.message))
    return Promise.resolve()
  }

  /** The app's own TracerProvider is in charge: spans go through its tracer. */
  emitThroughTracer (record) {
    const tracer = this.tracer !== null ? this.tracer : api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
    const requestSpan = record.span !== null ? record.span : record.parentSpan
    const spans = new Array(record.segmentCount)
    for (let i = 0; i < record.segmentCount; i++) {
      const info = record.segmentInfo(i)
      const parentIndex = record.entryParent(i)
      const span = tracer.startSpan(spanName(info, record.entryTemplate(i)), {
        kind: api.SpanKind.INTERNAL,
        startTime: record.entryStart(i),
        attributes: info.kind === 'router' ? routerAttributes(record.entryTemplate(i)) : layerAttributes(info)
      }, api.trace.setSpan(api.ROOT_CONTEXT, parentIndex >= 0 ? spans[parentIndex] : requestSpan))
      const error = record.entryError(i)
      if (error !== null) {
        span.recordException(error instanceof Error ? error : String(error))
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorMessage(error) })
      }
      span.end(record.entryEnd(i))
      spans[i] = span
    }
    if (record.dependencyCalls !== null) startDependencySpans(tracer, record, spans)
    if (record.span !== null) {
      const span = record.span
      span.updateName(`${record.method} ${record.route}`)
      span.setAttributes(requestEndAttributes(record))
      if (record.serverAttributes !== null) span.setAttributes(record.serverAttributes)
      if (record.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR })
      span.end(record.endMs)
    }
  }

  droppedSpans () {
    return (this.sdkDrops !== null ? this.sdkDrops() : 0) + (this.records !== null ? this.records.droppedSpans() : 0)
  }

  /** Exports what is buffered. Never rejects: spans that could not be delivered are counted as dropped. */
  flush () {
    // A processor's forceFlush resolves at once while an earlier one still exports: wait for both.
    let awaiting = Promise.resolve()
    try {
      awaiting = this.writeAwaiting()
    } catch (err) {
      reportInternalError('create spans', err)
    }
    let flushing = Promise.resolve()
    if (this.processor !== null) {
      flushing = this.processor.forceFlush()
    } else if (this.tracer !== null) {
      const provider = registeredTracerProvider()
      if (provider !== null && typeof provider.forceFlush === 'function') flushing = provider.forceFlush()
    }
    if (this.records !== null) flushing = Promise.all([flushing, this.records.flush()])
    return Promise.all([awaiting, flushing]).then(noop, (err) => log('flush: spans could not all be exported: %s', err && err.message))
  }

  /** Flushes and stops what nodebench started. Never rejects; always releases the global registrations. */
  async shutdown () {
    if (this.closed) return
    try {
      await this.writeAwaiting()
    } catch (err) {
      reportInternalError('create spans', err)
    }
    this.closed = true
    try {
      if (this.records !== null) await (this.ownsRecords ? this.records.shutdown() : this.records.flush())
      if (this.provider !== null) await this.provider.shutdown()
    } catch (err) {
      log('shutdown: spans could not all be exported: %s', err && err.message)
    } finally {
      if (this.registered) this.unregister()
    }
  }

  /**
   * Leaves the process as nodebench found it: no provider, context manager or propagator of nodebench's; what
   * the app registered since (a NodeSDK started after nodebench's first request) stays.
   */
  unregister () {
    const globals = globalThis[OTEL_API_GLOBALS]
    // A provider the app registers replaces nodebench's as the delegate: nodebench's is there only if none came.
    if (registeredTracerProvider() === this.provider) api.trace.disable()
    if (globals === undefined) return
    if (this.contextManager !== null && globals.context === this.contextManager) api.context.disable()
    if (this.propagator !== null && globals.propagation === this.propagator) api.propagation.disable()
  }
}

function noop () {}

module.exports = { SpanPipeline, batchingOf }
