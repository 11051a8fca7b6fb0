'use strict'

const api = require('@opentelemetry/api')
const { reportInternalError, log, notice } = require('./internal-errors')
const { hasPendingNames, resolveNames } = require('./function-names')
const { parseTraceparent, ensureRequestIds } = require('./trace-context')
const { LazyTracerProvider, LazyPropagator } = require('./lazy-sdk')
const { detectResource } = require('./resource')
const { RecordExporter } = require('./otlp-export')
const { serverSpanAttributes } = require('./server-span-attributes')
const { startDependencySpans } = require('./dependencies/spans')
const { layerAttributes, routerAttributes, spanName, requestEndAttributes, errorMessage, pathOf } = require('./span-attributes')
const { settleLayerSpans } = require('./layer-spans')

const TRACER_NAME = '@nodebench/trace'
// Where every copy of @opentelemetry/api 1.x registers its globals (the context manager under `context`).
const OTEL_API_GLOBALS = Symbol.for('opentelemetry.js.api.1')
const TRACER_VERSION = require('../package.json').version

/** The TracerProvider registered with @opentelemetry/api, or null when none is. */
function registeredTracerProvider () {
  const provider = api.trace.getTracerProvider()
  if (typeof provider.getDelegate !== 'function') return provider
  const delegate = provider.getDelegate()
  return delegate === new api.ProxyTracerProvider().getDelegate() ? null : delegate
}

function isGlobalTracerProviderRegistered () {
  return registeredTracerProvider() !== null
}

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

// instrumentation-http runs a request in a context that holds, beside the active span, the request's SERVER span
// as RPC metadata (@opentelemetry/core's setRPCMetadata, under this key: createContextKey is Symbol.for). Spans
// active inside the request (instrumentation-express's layer span of a middleware before nodebench's, an app's
// own) do not change it.
const RPC_METADATA_KEY = api.createContextKey('OpenTelemetry SDK Context Key RPC_METADATA')

/**
 * The SERVER span of the request coming in (instrumentation-http's), or undefined: never merely the span that
 * happens to be active (one of the app's, or one that ended long ago in the context the server was started in).
 * Another HTTP server instrumentation's span counts when it is an SDK span of kind SERVER still recording.
 * Asked only with a context manager registered (`globals.context`): without one none can be active, and the
 * API's look-up cost ~10 µs a request on Node.js 24 (benchmarks/README.md, "sampleRatio 0.1's µs a span is
 * mostly not spans").
 */
function requestServerSpan () {
  const context = api.context.active()
  const metadata = context.getValue(RPC_METADATA_KEY)
  if (metadata !== undefined && metadata !== null && typeof metadata === 'object' && metadata.span !== undefined) {
    return metadata.span
  }
  const active = api.trace.getSpan(context)
  if (active !== undefined && active.kind === api.SpanKind.SERVER && active.isRecording()) return active
  return undefined
}

/**
 * Sets nodebench's TracerProvider as the delegate of the API's ProxyTracerProvider without taking the global
 * `trace` slot: the app's own SDK (a NodeSDK started after nodebench's first request) can still register its
 * provider, which then replaces nodebench's as the delegate. Returns false when the API has no such proxy.
 */
function delegateTracerProvider (provider) {
  const proxy = api.trace.getTracerProvider()
  if (!(proxy instanceof api.ProxyTracerProvider)) return false
  proxy.setDelegate(provider)
  return true
}

const NO_SPANS = Object.freeze({
  enabled: false,
  ensureStarted () {},
  // nodebench writes no spans: instrumentation-express's stay as the app configured them.
  expressInstrumentationFound () {},
  start () { return null },
  end () {},
  droppedSpans () { return 0 },
  flush () { return Promise.resolve() },
  shutdown () { return Promise.resolve() }
})

/**
 * Creates spans for sampled requests. Started on the first request: by then the app has registered its own
 * TracerProvider if it has one, and nodebench then uses it instead of starting one.
 *
 * Three ways:
 * - exporter 'otlp', nothing registered (the default): nodebench's own pipeline. Spans are encoded from the
 *   request records (otlp-export.js) and nothing of the SDK is loaded; nodebench offers a TracerProvider (as
 *   the API's delegate, not in its global slot: delegateTracerProvider) and registers propagators that load
 *   the SDK if the app itself uses @opentelemetry/api (lazy-sdk.js). A later nodebenchTrace() in the same
 *   process shares this pipeline.
 * - exporter 'otlp' (or 'app': OTEL_TRACES_EXPORTER names an exporter only the app's SDK has, options.js) and
 *   the app registered a TracerProvider (e.g. NodeSDK): spans go through its tracer. The API's global slot is
 *   read again on each request that could have spans (one property read), so a provider the app registers
 *   after nodebench's first request carries the spans from then on. With 'app' and no provider of the app's,
 *   nodebench writes no spans.
 * - a SpanExporter: nodebench's spans as SDK objects into a BatchSpanProcessor in front of it (sdk-spans.js),
 *   made at construction; its provider is registered unless the app has one. Chosen once.
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
    this.followsApp = config.exporter !== 'none' && typeof config.exporter === 'string' // 'otlp' or 'app'
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
      // sampleRatio 0 samples only a request whose traceparent asks for it: the resource (@opentelemetry/resources
      // and the semantic conventions, ~1.2 MB of heap every full collection walks) is detected when the first
      // batch is sent, not at start-up (benchmarks/LOG.md, "Sampling nothing loads nothing").
      if (config.exporter === 'otlp') this.prepared = config.sampleRatio > 0 ? this.prepareOwnPipeline() : { records: null }
      else if (config.exporter === 'app') this.prepared = { records: null }
      else this.prepared = this.prepareExporterPipeline()
    } catch (err) {
      reportInternalError('load OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  /**
   * nodebench's own export (exporter 'otlp'), made when nodebenchTrace() is called, with the resource: the
   * first request then only decides whose pipeline carries the spans. Nothing here is registered or sent.
   */
  prepareOwnPipeline () {
    this.resource()
    // A nodebenchTrace() made while another one's pipeline runs will share that one (startOtlp).
    return { records: registeredTracerProvider() instanceof LazyTracerProvider ? null : this.newRecordExporter() }
  }

  newRecordExporter () {
    return new RecordExporter({ resource: () => this.resource(), scope: this.scope, ...this.batching })
  }

  /**
   * The SDK pipeline in front of the app's SpanExporter, made when nodebenchTrace() is called: loading the SDK
   * and detecting the resource took ~45 ms and ~4 ms, which the first request would otherwise wait for.
   */
  prepareExporterPipeline () {
    const sdk = require('./sdk-spans')
    const { RandomIdGenerator } = require('@opentelemetry/sdk-trace')
    const dropCounter = sdk.createDropCounter()
    const resource = detectResource(this.config.serviceName)
    const { provider, processor } = sdk.createSdkProvider({
      resource, exporter: this.config.exporter, batching: this.batching, dropCounter
    })
    const direct = new sdk.DirectSpanWriter(processor, resource, new RandomIdGenerator(), this.scope)
    return { provider, processor, direct, dropCounter }
  }

  /** Starts the export pipeline once. If that fails, spans are off and the breakdown carries on. */
  ensureStarted () {
    if (this.started || this.closed) return
    this.started = true
    try {
      if (this.followsApp) this.startOtlp()
      else this.startWithExporter()
    } catch (err) {
      reportInternalError('start OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  startOtlp () {
    const prepared = this.prepared
    this.prepared = null
    this.traceSlot = traceSlot()
    const registered = registeredTracerProvider()
    if (registered instanceof LazyTracerProvider && !registered.records.closed) {
      // Another nodebenchTrace() of this process started OpenTelemetry: one export for the process.
      this.records = registered.records
      this.direct = this.ownDirect = new RecordWriter(this.records)
      this.ownPropagation = registered.ownPropagation
      return
    }
    if (registered !== null) {
      // The app's own pipeline: spans go through its tracer, its processors and its exporter.
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
      return
    }
    if (this.config.exporter === 'app') {
      notice('no provider for the app\'s exporter', `OTEL_TRACES_EXPORTER=${process.env.OTEL_TRACES_EXPORTER} is an exporter of the app's ` +
        "OpenTelemetry SDK, and the app has registered no TracerProvider, so nodebench's spans wait for one (the " +
        'breakdown carries on). Start the SDK (e.g. NodeSDK) before the app serves, or set OTEL_TRACES_EXPORTER=otlp')
      return
    }
    this.records = prepared.records !== null ? prepared.records : this.newRecordExporter()
    this.ownsRecords = true
    this.direct = this.ownDirect = new RecordWriter(this.records)
    const provider = new LazyTracerProvider(() => this.createAppSpanPipeline(), this.records)
    this.registerGlobally(provider)
    provider.ownPropagation = this.ownPropagation
  }

  /**
   * The API's global `trace` slot changed since the last request (the app registered its provider, or removed
   * it): spans go through the app's provider when it has one, else through nodebench's own pipeline, if any.
   */
  followRegisteredProvider (slot) {
    this.traceSlot = slot
    const registered = registeredTracerProvider()
    if (registered !== null && !(registered instanceof LazyTracerProvider)) {
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
      this.direct = null
    } else {
      this.tracer = null
      this.direct = this.ownDirect
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

  /** The resource (resource.js), detected when nodebenchTrace() is called. */
  resource () {
    if (this.detectedResource === null) this.detectedResource = detectResource(this.config.serviceName)
    return this.detectedResource
  }

  /**
   * For the spans the app creates through the provider nodebench registered: the SDK's provider and a
   * BatchSpanProcessor in front of an OTLPTraceExporter (made when the first of them is exported).
   */
  createAppSpanPipeline () {
    const sdk = require('./sdk-spans')
    const dropCounter = sdk.createDropCounter()
    const created = sdk.createSdkProvider({
      resource: this.resource(), exporter: sdk.lazyOtlpTraceExporter(), batching: this.batching, dropCounter
    })
    this.processor = created.processor
    this.sdkDrops = dropCounter.count
    return created
  }

  startWithExporter () {
    const prepared = this.prepared
    this.prepared = null
    this.processor = prepared.processor
    this.sdkDrops = prepared.dropCounter.count
    this.direct = prepared.direct
    if (!isGlobalTracerProviderRegistered()) {
      this.registerGlobally(prepared.provider)
    } else {
      // The app has its own provider: nodebench's stays private, its exporter gets nodebench's spans.
      this.provider = prepared.provider
    }
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

/** What the API's global `trace` slot holds (the ProxyTracerProvider once a provider is registered), or undefined. */
function traceSlot () {
  const globals = globalThis[OTEL_API_GLOBALS]
  return globals === undefined ? undefined : globals.trace
}

function noop () {}

/** exporter 'otlp': the record's spans are encoded as OTLP protobuf bytes at once (otlp-export.js). */
class RecordWriter {
  constructor (records) {
    this.records = records
  }

  write (record, urlPath) {
    this.records.add(record, urlPath)
  }
}

function createSpanPipeline (config, env) {
  return config.exporter === 'none' ? NO_SPANS : new SpanPipeline(config, env)
}

module.exports = { createSpanPipeline, isGlobalTracerProviderRegistered, registeredTracerProvider, TRACER_NAME }
