'use strict'

const api = require('@opentelemetry/api')
const { hrTimeDuration } = require('@opentelemetry/core')
const { BatchSpanProcessor, TracerProvider, ParentBasedSampler, AlwaysOnSampler } = require('@opentelemetry/sdk-trace')
const { reportInternalError } = require('./internal-errors')
const { ensureRequestIds } = require('./trace-context')
const { dependencySpans } = require('./dependencies/spans')
const { layerAttributes, routerAttributes, spanName, requestEndAttributes, errorMessage, toHrTime, exceptionEvent } = require('./span-attributes')

// nodebench's spans as OpenTelemetry SDK objects, and the SDK pipeline that carries them: used when the app
// gives nodebench a SpanExporter, and for the spans an app creates itself through the TracerProvider nodebench
// registered. Loaded only then (span-pipeline/, lazy-sdk.js): nodebench's default path encodes its spans
// without the SDK (otlp-encoder.js).

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

/**
 * An SDK TracerProvider (not registered) with a BatchSpanProcessor in front of `exporter`; nodebench decides
 * which requests are sampled before it creates any span, so the sampler follows the parent, else records.
 */
function createSdkProvider ({ resource, exporter, batching, dropCounter }) {
  const processor = new BatchSpanProcessor({
    exporter: guardExporter(exporter),
    ...batching,
    selfObsMeterProvider: dropCounter.meterProvider
  })
  const provider = new TracerProvider({
    resource, sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [processor]
  })
  return { provider, processor }
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
  constructor (
    name, kind, traceId, spanId, parentSpanContext, startTime, endTime, attributes, status, events, resource, scope
  ) {
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

  write (record, urlPath) {
    if (record.parentSpan === null) ensureRequestIds(record)
    const traceId = record.parentSpan !== null ? record.parentSpan.spanContext().traceId : record.traceId
    const requestContext = record.parentSpan !== null
      ? record.parentSpan.spanContext()
      : { traceId, spanId: record.spanId, traceFlags: api.TraceFlags.SAMPLED }
    const spanContexts = new Array(record.segmentCount)
    for (let i = 0; i < record.segmentCount; i++) {
      const info = record.segmentInfo(i)
      const template = info.kind === 'router' ? record.entryTemplate(i) : null
      const preset = record.presetSpanIds === null ? undefined : record.presetSpanIds.get(i)
      const spanId = preset === undefined ? this.ids.generateSpanId() : preset
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
    if (record.dependencyCalls !== null) this.writeDependencies(record, traceId, spanContexts)
    if (record.parentSpan === null) {
      const attributes = requestEndAttributes(record)
      attributes['http.request.method'] = record.method
      attributes['url.path'] = urlPath
      if (record.serverAttributes !== null) Object.assign(attributes, record.serverAttributes)
      this.processor.onEnd(new FinishedSpan(
        `${record.method} ${record.route}`, api.SpanKind.SERVER, traceId, record.spanId, record.remoteParent || undefined,
        toHrTime(record.startMs), toHrTime(record.endMs), attributes,
        record.statusCode >= 500 ? { code: api.SpanStatusCode.ERROR } : OK_STATUS, NO_EVENTS,
        this.resource, this.scope))
    }
  }
}

/** Each call to a dependency: a CLIENT span (a render: INTERNAL) under its segment's span (dependencies/spans.js). */
DirectSpanWriter.prototype.writeDependencies = function writeDependencies (record, traceId, spanContexts) {
  for (const span of dependencySpans(record)) {
    this.processor.onEnd(new FinishedSpan(
      span.name, span.internal ? api.SpanKind.INTERNAL : api.SpanKind.CLIENT, traceId,
      this.ids.generateSpanId(), spanContexts[span.segment],
      toHrTime(span.startMs), toHrTime(span.endMs), span.attributes,
      span.error === null ? OK_STATUS : { code: api.SpanStatusCode.ERROR }, NO_EVENTS, this.resource, this.scope))
  }
}

module.exports = {
  createDropCounter,
  guardExporter,
  lazyOtlpTraceExporter,
  createSdkProvider,
  FinishedSpan,
  DirectSpanWriter
}
