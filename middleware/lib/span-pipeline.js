'use strict'

const api = require('@opentelemetry/api')
const { hrTimeDuration } = require('@opentelemetry/core')
const { reportInternalError, log } = require('./internal-errors')
const {
  layerAttributes, routerAttributes, spanName, requestEndAttributes, errorMessage, toHrTime, exceptionEvent, pathOf
} = require('./span-attributes')

const TRACER_NAME = '@nodebench/trace'
const TRACER_VERSION = require('../package.json').version
const PROCESSED_SPANS_METRIC = 'otel.sdk.processor.span.processed'

/**
 * Counts spans the BatchSpanProcessor could not deliver (queue full, or export failed), through the
 * processor's own self-observability hook (`selfObsMeterProvider`): it reports every finished batch to the
 * `otel.sdk.processor.span.processed` counter, with `error.type` set when the spans were lost.
 */
function createDropCounter () {
  let dropped = 0
  const noopMeter = api.createNoopMeter()
  const meter = Object.create(noopMeter)
  meter.createCounter = function createCounter (name, options) {
    if (name !== PROCESSED_SPANS_METRIC) return noopMeter.createCounter(name, options)
    return {
      add (count, attributes) {
        if (attributes && attributes['error.type'] !== undefined) dropped += count
      }
    }
  }
  return { meterProvider: { getMeter: () => meter }, count: () => dropped }
}

/** A user's exporter that throws must not break the export loop: a throw becomes a failed export. */
function guardExporter (exporter) {
  return {
    export (spans, resultCallback) {
      try {
        exporter.export(spans, resultCallback)
      } catch (err) {
        reportInternalError('span exporter', err)
        resultCallback({ code: 1, error: err })
      }
    },
    shutdown () {
      return Promise.resolve().then(() => exporter.shutdown())
    },
    forceFlush () {
      return typeof exporter.forceFlush === 'function' ? Promise.resolve().then(() => exporter.forceFlush()) : Promise.resolve()
    }
  }
}

/**
 * exporter 'otlp': the OTLPTraceExporter for the spans the app itself creates through the provider nodebench
 * registered, made when the first of them is exported. Most apps create none, and loading the exporter and
 * its serializer alongside the tracing SDK kept V8 from optimizing Express 5's route matcher in the
 * benchmark app, ~5 µs per request (benchmarks/README.md, "What V8 makes of this app").
 */
function lazyOtlpTraceExporter () {
  let exporter = null
  return {
    export (spans, resultCallback) {
      if (exporter === null) {
        const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto')
        exporter = new OTLPTraceExporter()
      }
      exporter.export(spans, resultCallback)
    },
    shutdown () {
      return exporter === null ? Promise.resolve() : exporter.shutdown()
    },
    forceFlush () {
      return exporter === null ? Promise.resolve() : exporter.forceFlush()
    }
  }
}

function isGlobalTracerProviderRegistered () {
  const provider = api.trace.getTracerProvider()
  if (typeof provider.getDelegate !== 'function') return true
  return provider.getDelegate() !== new api.ProxyTracerProvider().getDelegate()
}

function envInteger (env, name, fallback) {
  const value = Number(env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}

const NO_SPANS = Object.freeze({
  enabled: false,
  start () { return null },
  end () {},
  droppedSpans () { return 0 },
  flush () { return Promise.resolve() },
  shutdown () { return Promise.resolve() }
})

/**
 * The SDK modules a pipeline of nodebench's own needs. Loaded when nodebenchTrace() is called rather than
 * in the first request: loading them takes ~45 ms, which the first request would wait for, and the garbage
 * they leave would be collected while the app matches its first route (benchmarks/README.md, "What V8 makes
 * of this app").
 */
function loadSdk (exporter) {
  return {
    trace: require('@opentelemetry/sdk-trace'),
    resources: require('@opentelemetry/resources'),
    core: require('@opentelemetry/core'),
    RecordExporter: exporter === 'otlp' ? require('./otlp-export').RecordExporter : null
  }
}

/**
 * Creates spans for sampled requests. Started lazily on the first request: by then the app has
 * registered its own TracerProvider if it has one, and nodebench then uses it instead of starting one.
 */
class SpanPipeline {
  constructor (config, env = process.env) {
    this.config = config
    this.env = env
    this.enabled = true
    this.tracer = null
    this.registered = false
    this.provider = null
    this.processor = null
    this.dropCounter = createDropCounter()
    this.w3c = null
    this.closed = false
    this.resource = null
    this.ids = null
    this.direct = null
    this.records = null
    this.scope = Object.freeze({ name: TRACER_NAME, version: TRACER_VERSION })
    this.sdk = null
    try {
      this.sdk = loadSdk(config.exporter)
    } catch (err) {
      reportInternalError('load OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  /** Starts the export pipeline once. If that fails, spans are off and the breakdown carries on. */
  ensureStarted () {
    if (this.tracer !== null || this.closed) return
    try {
      this.startPipeline()
    } catch (err) {
      reportInternalError('start OpenTelemetry (spans are off)', err)
      this.closed = true
    }
  }

  startPipeline () {
    const config = this.config
    const appHasProvider = isGlobalTracerProviderRegistered()
    if (config.exporter === 'otlp' && appHasProvider) {
      // The app's own pipeline: spans go through its tracer, its processors and its exporter.
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
      return
    }
    const { BatchSpanProcessor, TracerProvider, ParentBasedSampler, AlwaysOnSampler, RandomIdGenerator } = this.sdk.trace
    const resources = this.sdk.resources
    // The resource NodeSDK would detect: env (OTEL_RESOURCE_ATTRIBUTES), process, host, os, instance id.
    this.resource = resources.defaultResource()
      .merge(resources.detectResources({
        detectors: [resources.envDetector, resources.processDetector, resources.hostDetector, resources.osDetector, resources.serviceInstanceIdDetector]
      }))
      .merge(resources.resourceFromAttributes({ 'service.name': config.serviceName }))
    // nodebench decides which requests are sampled (sampleRatio) before it creates any span.
    const sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })
    const batching = {
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: Math.min(config.maxQueueSize, envInteger(this.env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512)),
      scheduledDelayMillis: envInteger(this.env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
      exportTimeoutMillis: envInteger(this.env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000)
    }
    let exporter = config.exporter
    if (exporter === 'otlp') {
      // nodebench's own spans are encoded from the request records and sent as OTLP/HTTP protobuf
      // (otlp-export.js); the processor below carries the spans the app itself creates, if any.
      exporter = lazyOtlpTraceExporter()
      this.records = new this.sdk.RecordExporter({ resource: this.resource, scope: this.scope, ...batching })
    }
    this.processor = new BatchSpanProcessor({
      exporter: guardExporter(exporter),
      ...batching,
      selfObsMeterProvider: this.dropCounter.meterProvider
    })
    if (!appHasProvider) {
      this.registerGlobally(sampler)
    } else {
      // An exporter instance while the app has its own provider: a private provider, not registered.
      this.provider = new TracerProvider({ resource: this.resource, sampler, spanProcessors: [this.processor] })
      this.tracer = this.provider.getTracer(TRACER_NAME, TRACER_VERSION)
    }
    this.ids = new RandomIdGenerator()
    this.direct = this.records !== null ? new RecordWriter(this.records) : new DirectSpanWriter(this.processor, this.resource, this.ids, this.scope)
  }

  /**
   * What NodeSDK registers for traces, without NodeSDK: the SDK's TracerProvider (so spans the app creates
   * are exported too), W3C trace-context and baggage propagation, and an AsyncLocalStorage context manager
   * only with `activeContext`: it makes every async operation of the process pay for context propagation
   * (measured at ~20 µs per request on a small app). @opentelemetry/sdk-node itself loads the metrics and
   * logs SDKs and their exporters as well, ~15 MB of heap that every major garbage collection then walks:
   * 4% more instructions per request than this registration (benchmarks/README.md).
   */
  registerGlobally (sampler) {
    const { TracerProvider } = this.sdk.trace
    const { CompositePropagator, W3CTraceContextPropagator, W3CBaggagePropagator } = this.sdk.core
    this.provider = new TracerProvider({ resource: this.resource, sampler, spanProcessors: [this.processor] })
    if (!api.trace.setGlobalTracerProvider(this.provider)) throw new Error('a global TracerProvider could not be registered')
    this.registered = true
    api.propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }))
    if (this.config.activeContext) {
      const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
      api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    }
    this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
  }

  /**
   * Decides whether the request is sampled and, if nodebench owns the request span, opens it.
   * Returns the context to run the app in (only with `activeContext`), or null to run it as it is.
   */
  start (record, req) {
    this.ensureStarted()
    if (this.closed) return null
    const activeContext = api.context.active()
    const activeSpan = api.trace.getSpan(activeContext)
    if (activeSpan !== undefined) {
      // An HTTP server span is already active (e.g. instrumentation-http): ours become its children.
      if (!activeSpan.isRecording()) return null
      record.sampled = true
      record.parentSpan = activeSpan
      return null
    }
    const parentContext = req.headers.traceparent !== undefined ? this.extract(req.headers) : api.ROOT_CONTEXT
    const remote = api.trace.getSpanContext(parentContext)
    const hasRemote = remote !== undefined && api.isSpanContextValid(remote)
    const sampled = hasRemote ? (remote.traceFlags & api.TraceFlags.SAMPLED) !== 0 : Math.random() < this.config.sampleRatio
    if (!sampled) return null
    record.sampled = true
    let requestSpan
    if (this.direct !== null) {
      // Only ids now; the span is written when the response finishes.
      record.traceId = hasRemote ? remote.traceId : this.ids.generateTraceId()
      record.spanId = this.ids.generateSpanId()
      record.remoteParent = hasRemote ? remote : null
      if (!this.config.activeContext) return null
      requestSpan = api.trace.wrapSpanContext({ traceId: record.traceId, spanId: record.spanId, traceFlags: api.TraceFlags.SAMPLED })
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

  extract (headers) {
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, headers)
    if (api.trace.getSpanContext(extracted) !== undefined) return extracted
    // No propagator registered globally (nodebench uses a private provider): W3C Trace Context.
    if (this.w3c === null) this.w3c = new (require('@opentelemetry/core').W3CTraceContextPropagator)()
    return this.w3c.extract(api.ROOT_CONTEXT, headers, api.defaultTextMapGetter)
  }

  /** Writes the spans of a finished, sampled record with the times it recorded. */
  end (record, req) {
    if (!record.sampled) return
    try {
      if (record.parentSpan !== null) record.parentSpan.setAttribute('http.route', record.route)
      if (this.direct !== null) this.direct.write(record, req)
      else this.emitThroughTracer(record)
    } catch (err) {
      reportInternalError('create spans', err)
    }
  }

  /** The app's own TracerProvider is in charge: spans go through its tracer. */
  emitThroughTracer (record) {
    const tracer = this.tracer
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
    if (record.span !== null) {
      const span = record.span
      span.updateName(`${record.method} ${record.route}`)
      span.setAttributes(requestEndAttributes(record))
      if (record.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR })
      span.end(record.endMs)
    }
  }

  droppedSpans () {
    return this.dropCounter.count() + (this.records !== null ? this.records.droppedSpans() : 0)
  }

  /** Exports what is buffered. Never rejects: spans that could not be delivered are counted as dropped. */
  flush () {
    let flushing = Promise.resolve()
    if (this.processor !== null) {
      flushing = this.processor.forceFlush()
    } else if (this.tracer !== null) {
      const provider = api.trace.getTracerProvider()
      const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider
      if (typeof delegate.forceFlush === 'function') flushing = delegate.forceFlush()
    }
    if (this.records !== null) flushing = Promise.all([flushing, this.records.flush()])
    return flushing.then(noop, (err) => log('flush: spans could not all be exported: %s', err && err.message))
  }

  /** Flushes and stops what nodebench started. Never rejects; always releases the global registrations. */
  async shutdown () {
    if (this.closed) return
    this.closed = true
    try {
      if (this.records !== null) await this.records.shutdown()
      if (this.provider !== null) await this.provider.shutdown()
    } catch (err) {
      log('shutdown: spans could not all be exported: %s', err && err.message)
    } finally {
      if (this.registered) {
        // Leave the process as nodebench found it: no global provider, context manager or propagator.
        api.trace.disable()
        api.context.disable()
        api.propagation.disable()
      }
    }
  }
}

function noop () {}

const OK_STATUS = Object.freeze({ code: api.SpanStatusCode.UNSET })
const NO_LINKS = Object.freeze([])
const NO_EVENTS = Object.freeze([])

/**
 * A finished span, as the SDK's ReadableSpan interface describes it, written straight from the request
 * record. Going through Tracer.startSpan costs ~4 µs per span (context objects, sampler, copying and
 * validating every attribute twice); a request has a span per layer, all already finished, with static
 * attributes, so nodebench hands them to its own BatchSpanProcessor directly.
 */
class FinishedSpan {
  constructor (name, kind, traceId, spanId, parentSpanContext, startTime, endTime, attributes, status, events, resource, scope) {
    this.name = name
    this.kind = kind
    this._spanContext = { traceId, spanId, traceFlags: api.TraceFlags.SAMPLED }
    this.parentSpanContext = parentSpanContext
    this.startTime = startTime
    this.endTime = endTime
    this.duration = hrTimeDuration(startTime, endTime)
    this.status = status
    this.attributes = attributes
    this.links = NO_LINKS
    this.events = events
    this.ended = true
    this.resource = resource
    this.instrumentationScope = scope
    this.droppedAttributesCount = 0
    this.droppedEventsCount = 0
    this.droppedLinksCount = 0
  }

  spanContext () {
    return this._spanContext
  }
}

class DirectSpanWriter {
  constructor (processor, resource, ids, scope) {
    this.processor = processor
    this.resource = resource
    this.ids = ids
    this.scope = scope
  }

  write (record, req) {
    const traceId = record.parentSpan !== null ? record.parentSpan.spanContext().traceId : record.traceId
    const requestContext = record.parentSpan !== null
      ? record.parentSpan.spanContext()
      : { traceId, spanId: record.spanId, traceFlags: api.TraceFlags.SAMPLED }
    const spanContexts = new Array(record.segmentCount)
    for (let i = 0; i < record.segmentCount; i++) {
      const info = record.segmentInfo(i)
      const template = info.kind === 'router' ? record.entryTemplate(i) : null
      const spanId = this.ids.generateSpanId()
      const parentIndex = record.entryParent(i)
      const startTime = toHrTime(record.entryStart(i))
      const endTime = toHrTime(record.entryEnd(i))
      const error = record.entryError(i)
      const span = new FinishedSpan(
        spanName(info, template), api.SpanKind.INTERNAL, traceId, spanId,
        parentIndex >= 0 ? spanContexts[parentIndex] : requestContext,
        startTime, endTime,
        template !== null ? routerAttributes(template) : layerAttributes(info),
        error === null ? OK_STATUS : { code: api.SpanStatusCode.ERROR, message: errorMessage(error) },
        error === null ? NO_EVENTS : [exceptionEvent(error, endTime)],
        this.resource, this.scope)
      spanContexts[i] = span.spanContext()
      this.processor.onEnd(span)
    }
    if (record.parentSpan === null) {
      const attributes = requestEndAttributes(record)
      attributes['http.request.method'] = record.method
      // Inside a router req.url is relative to its mount path until the router hands over: originalUrl is whole.
      attributes['url.path'] = pathOf(req.originalUrl || req.url)
      this.processor.onEnd(new FinishedSpan(
        `${record.method} ${record.route}`, api.SpanKind.SERVER, traceId, record.spanId, record.remoteParent || undefined,
        toHrTime(record.startMs), toHrTime(record.endMs), attributes,
        record.statusCode >= 500 ? { code: api.SpanStatusCode.ERROR } : OK_STATUS, NO_EVENTS,
        this.resource, this.scope))
    }
  }
}

/** exporter 'otlp': the record's spans are encoded as OTLP protobuf bytes at once (otlp-export.js). */
class RecordWriter {
  constructor (records) {
    this.records = records
  }

  write (record, req) {
    // Inside a router req.url is relative to its mount path until the router hands over: originalUrl is whole.
    this.records.add(record, pathOf(req.originalUrl || req.url))
  }
}

function createSpanPipeline (config, env) {
  return config.exporter === 'none' ? NO_SPANS : new SpanPipeline(config, env)
}

module.exports = { createSpanPipeline, DirectSpanWriter, createDropCounter, guardExporter, isGlobalTracerProviderRegistered, TRACER_NAME }
