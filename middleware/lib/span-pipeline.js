'use strict'

const api = require('@opentelemetry/api')
const { performance } = require('node:perf_hooks')
const { hrTimeDuration } = require('@opentelemetry/core')
const { reportInternalError, log } = require('./internal-errors')

const TRACER_NAME = '@nodebench/trace'
const TRACER_VERSION = require('../package.json').version
const PROCESSED_SPANS_METRIC = 'otel.sdk.processor.span.processed'

const EXPRESS_TYPES = Object.freeze({
  middleware: 'middleware',
  param: 'middleware',
  'error-handler': 'middleware',
  handler: 'request_handler',
  router: 'router'
})

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
 * Creates spans for sampled requests. Started lazily on the first request: by then the app has
 * registered its own TracerProvider if it has one, and nodebench then uses it instead of starting one.
 */
class SpanPipeline {
  constructor (config, env = process.env) {
    this.config = config
    this.env = env
    this.enabled = true
    this.tracer = null
    this.sdk = null
    this.provider = null
    this.processor = null
    this.dropCounter = createDropCounter()
    this.w3c = null
    this.closed = false
    this.resource = null
    this.ids = null
    this.direct = null
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
    const { BatchSpanProcessor, TracerProvider, ParentBasedSampler, AlwaysOnSampler, RandomIdGenerator } = require('@opentelemetry/sdk-trace')
    const resources = require('@opentelemetry/resources')
    let exporter = config.exporter
    if (exporter === 'otlp') {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto')
      exporter = new OTLPTraceExporter()
    }
    // The same resource NodeSDK would detect, built here so the spans nodebench writes itself carry it.
    this.resource = resources.defaultResource()
      .merge(resources.detectResources({
        detectors: [resources.envDetector, resources.processDetector, resources.hostDetector, resources.osDetector, resources.serviceInstanceIdDetector]
      }))
      .merge(resources.resourceFromAttributes({ 'service.name': config.serviceName }))
    // nodebench decides which requests are sampled (sampleRatio) before it creates any span.
    const sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })
    this.processor = new BatchSpanProcessor({
      exporter: guardExporter(exporter),
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: Math.min(config.maxQueueSize, envInteger(this.env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512)),
      scheduledDelayMillis: envInteger(this.env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
      exportTimeoutMillis: envInteger(this.env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000),
      selfObsMeterProvider: this.dropCounter.meterProvider
    })
    if (!appHasProvider) {
      const { NodeSDK } = require('@opentelemetry/sdk-node')
      this.sdk = new NodeSDK({
        resource: this.resource,
        autoDetectResources: false,
        spanProcessors: [this.processor],
        sampler,
        instrumentations: [],
        // Start what nodebench is for (traces) and nothing the user did not ask for.
        metricReaders: [],
        logRecordProcessors: [],
        // An AsyncLocalStorage context manager makes every async operation of the process pay for context
        // propagation once anything calls context.with() (the BatchSpanProcessor does, on every export):
        // measured at ~20 µs per request on a small app. Registered only when the app wants nodebench's
        // request span as its active context.
        contextManager: config.activeContext ? undefined : null
      })
      this.sdk.start()
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
    } else {
      // An exporter instance while the app has its own provider: a private provider, not registered.
      this.provider = new TracerProvider({ resource: this.resource, sampler, spanProcessors: [this.processor] })
      this.tracer = this.provider.getTracer(TRACER_NAME, TRACER_VERSION)
    }
    this.ids = new RandomIdGenerator()
    this.direct = new DirectSpanWriter(this.processor, this.resource, this.ids)
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
    return this.dropCounter.count()
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
    return flushing.then(noop, (err) => log('flush: spans could not all be exported: %s', err && err.message))
  }

  /** Flushes and stops what nodebench started. Never rejects; always releases the global registrations. */
  async shutdown () {
    if (this.closed) return
    this.closed = true
    try {
      if (this.sdk !== null) await this.sdk.shutdown()
      else if (this.provider !== null) await this.provider.shutdown()
    } catch (err) {
      log('shutdown: spans could not all be exported: %s', err && err.message)
    } finally {
      if (this.sdk !== null) {
        // Leave the process as nodebench found it: no global provider, context manager or propagator.
        api.trace.disable()
        api.context.disable()
        api.propagation.disable()
      }
    }
  }
}

function noop () {}

// Span attributes that only depend on the layer are built once per layer.
const attributesByLayer = new WeakMap()

function layerAttributes (info) {
  let attributes = attributesByLayer.get(info)
  if (attributes === undefined) {
    attributes = {
      'nodebench.kind': info.kind,
      'express.type': EXPRESS_TYPES[info.kind],
      'express.name': info.name,
      'code.function.name': info.name
    }
    if (info.file !== null) attributes['code.file.path'] = info.file
    if (info.line !== null) attributes['code.line.number'] = info.line
    attributesByLayer.set(info, Object.freeze(attributes))
  }
  return attributes
}

const attributesByRouter = new Map()

function routerAttributes (template) {
  const name = template || '/'
  let attributes = attributesByRouter.get(name)
  if (attributes === undefined) {
    attributes = Object.freeze({ 'nodebench.kind': 'router', 'express.type': 'router', 'express.name': name })
    if (attributesByRouter.size < 1000) attributesByRouter.set(name, attributes)
  }
  return attributes
}

function spanName (info, template) {
  return info.kind === 'router' ? `router - ${template || '/'}` : `${info.kind} - ${info.name}`
}

function requestEndAttributes (record) {
  const attributes = {
    'http.route': record.route,
    'http.response.status_code': record.statusCode,
    'nodebench.kind': 'request',
    'nodebench.format': record.format
  }
  if (record.aborted) attributes['nodebench.aborted'] = true
  return attributes
}

function errorMessage (error) {
  return error instanceof Error ? error.message : String(error)
}

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
  constructor (processor, resource, ids) {
    this.processor = processor
    this.resource = resource
    this.ids = ids
    this.scope = Object.freeze({ name: TRACER_NAME, version: TRACER_VERSION })
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

// performance.now() -> [seconds, nanoseconds] since the epoch. The origin is split into whole seconds and a
// sub-second remainder so the sum stays exact to the nanosecond in a double.
const ORIGIN_SECONDS = Math.trunc(performance.timeOrigin / 1000)
const ORIGIN_REMAINDER_MS = performance.timeOrigin - ORIGIN_SECONDS * 1000

function toHrTime (performanceMs) {
  const ms = ORIGIN_REMAINDER_MS + performanceMs
  const seconds = Math.trunc(ms / 1000)
  return [ORIGIN_SECONDS + seconds, Math.round((ms - seconds * 1000) * 1e6)]
}

/** What Span.recordException writes. */
function exceptionEvent (error, time) {
  const attributes = error instanceof Error
    ? { 'exception.type': error.name, 'exception.message': error.message, 'exception.stacktrace': String(error.stack) }
    : { 'exception.message': String(error) }
  return { name: 'exception', attributes, time, droppedAttributesCount: 0 }
}

function pathOf (url) {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function createSpanPipeline (config, env) {
  return config.exporter === 'none' ? NO_SPANS : new SpanPipeline(config, env)
}

module.exports = { createSpanPipeline, createDropCounter, guardExporter, isGlobalTracerProviderRegistered, TRACER_NAME }
