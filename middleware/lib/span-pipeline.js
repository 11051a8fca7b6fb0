'use strict'

const api = require('@opentelemetry/api')
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
  }

  ensureStarted () {
    if (this.tracer !== null) return
    const config = this.config
    const appHasProvider = isGlobalTracerProviderRegistered()
    if (config.exporter === 'otlp' && appHasProvider) {
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
      return
    }
    const { BatchSpanProcessor, TracerProvider, ParentBasedSampler, AlwaysOnSampler } = require('@opentelemetry/sdk-trace')
    let exporter = config.exporter
    if (exporter === 'otlp') {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto')
      exporter = new OTLPTraceExporter()
    }
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
        serviceName: config.serviceName,
        spanProcessors: [this.processor],
        sampler,
        instrumentations: [],
        // Start what nodebench is for (traces) and nothing the user did not ask for.
        metricReaders: [],
        logRecordProcessors: []
      })
      this.sdk.start()
      this.tracer = api.trace.getTracer(TRACER_NAME, TRACER_VERSION)
    } else {
      // An exporter instance while the app has its own provider: a private provider, not registered.
      const { resourceFromAttributes } = require('@opentelemetry/resources')
      this.provider = new TracerProvider({
        resource: resourceFromAttributes({ 'service.name': config.serviceName }),
        sampler,
        spanProcessors: [this.processor]
      })
      this.tracer = this.provider.getTracer(TRACER_NAME, TRACER_VERSION)
    }
  }

  /**
   * Decides whether the request is sampled and, if nodebench owns the request span, starts it.
   * Returns the context to run the app in, or null to run it as it is.
   */
  start (record, req) {
    if (this.closed) return null
    this.ensureStarted()
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
    const sampled = remote !== undefined && api.isSpanContextValid(remote)
      ? (remote.traceFlags & api.TraceFlags.SAMPLED) !== 0
      : Math.random() < this.config.sampleRatio
    if (!sampled) return null
    const span = this.tracer.startSpan(req.method, {
      kind: api.SpanKind.SERVER,
      startTime: record.startMs,
      attributes: {
        'http.request.method': req.method,
        'url.path': pathOf(req.url)
      }
    }, parentContext)
    record.sampled = true
    record.span = span
    return api.trace.setSpan(parentContext, span)
  }

  extract (headers) {
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, headers)
    if (api.trace.getSpanContext(extracted) !== undefined) return extracted
    // No propagator registered globally (nodebench uses a private provider): W3C Trace Context.
    if (this.w3c === null) this.w3c = new (require('@opentelemetry/core').W3CTraceContextPropagator)()
    return this.w3c.extract(api.ROOT_CONTEXT, headers, api.defaultTextMapGetter)
  }

  /** Creates the segment spans from the finished record, with the times it recorded. */
  end (record) {
    if (!record.sampled) return
    try {
      this.emitSpans(record)
    } catch (err) {
      reportInternalError('create spans', err)
    }
  }

  emitSpans (record) {
    const tracer = this.tracer
    const requestSpan = record.span !== null ? record.span : record.parentSpan
    const spans = new Array(record.segmentCount)
    for (let i = 0; i < record.segmentCount; i++) {
      const info = record.segmentInfo[i]
      const parentIndex = record.entryParent[i]
      const parent = parentIndex >= 0 ? spans[parentIndex] : requestSpan
      const isRouter = info.kind === 'router'
      const template = record.entryTemplate[i]
      const attributes = {
        'nodebench.kind': info.kind,
        'nodebench.order': i,
        'nodebench.format': record.format,
        'http.route': record.route,
        'express.type': EXPRESS_TYPES[info.kind],
        'express.name': isRouter ? template || '/' : info.name,
        'code.function.name': info.name
      }
      if (info.file !== null) attributes['code.file.path'] = info.file
      if (info.line !== null) attributes['code.line.number'] = info.line
      const span = tracer.startSpan(isRouter ? `router - ${template || '/'}` : `${info.kind} - ${info.name}`, {
        kind: api.SpanKind.INTERNAL,
        startTime: record.entryStart[i],
        attributes
      }, api.trace.setSpan(api.ROOT_CONTEXT, parent))
      const error = record.entryError[i]
      if (error !== null) {
        span.recordException(error instanceof Error ? error : String(error))
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
      }
      span.end(record.entryEnd[i])
      spans[i] = span
    }
    if (record.span !== null) {
      const span = record.span
      span.updateName(`${record.method} ${record.route}`)
      span.setAttributes({
        'http.route': record.route,
        'http.response.status_code': record.statusCode,
        'nodebench.format': record.format,
        'nodebench.kind': 'request'
      })
      if (record.aborted) span.setAttribute('nodebench.aborted', true)
      if (record.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR })
      span.end(record.endMs)
    } else if (record.parentSpan !== null) {
      record.parentSpan.setAttribute('http.route', record.route)
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

function pathOf (url) {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function createSpanPipeline (config, env) {
  return config.exporter === 'none' ? NO_SPANS : new SpanPipeline(config, env)
}

module.exports = { createSpanPipeline, createDropCounter, guardExporter, isGlobalTracerProviderRegistered, TRACER_NAME }
