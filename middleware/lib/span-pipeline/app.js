'use strict'

const api = require('@opentelemetry/api')
const { notice } = require('../internal-errors')
const { LazyTracerProvider } = require('../lazy-sdk')
const { SpanPipeline } = require('./pipeline')
const { TRACER_NAME, TRACER_VERSION, registeredTracerProvider, traceSlot } = require('./otel-api')

/**
 * exporter 'app' (OTEL_TRACES_EXPORTER names an exporter only the app's SDK has, options.js), and the base of
 * exporter 'otlp' (own.js): spans go through the tracer of the TracerProvider the app registered (e.g. NodeSDK).
 * The API's global slot is read again on each request that could have spans (one property read, start()), so a
 * provider the app registers after nodebench's first request carries the spans from then on. A pipeline of
 * another nodebenchTrace() of the process (its LazyTracerProvider) is shared. With no provider of the app's,
 * nodebench writes no spans (startAlone).
 */
class AppSpanPipeline extends SpanPipeline {
  constructor (config, env) {
    super(config, env)
    this.followsApp = true
  }

  prepare () {
    return { records: null }
  }

  startPipeline () {
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
    this.startAlone(prepared)
  }

  /** No provider of the app's and no pipeline of nodebench's: spans wait for the app to register one. */
  startAlone () {
    notice('no provider for the app\'s exporter', `OTEL_TRACES_EXPORTER=${process.env.OTEL_TRACES_EXPORTER} is an exporter of the app's ` +
      "OpenTelemetry SDK, and the app has registered no TracerProvider, so nodebench's spans wait for one (the " +
      'breakdown carries on). Start the SDK (e.g. NodeSDK) before the app serves, or set OTEL_TRACES_EXPORTER=otlp')
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
}

/** exporter 'otlp': the record's spans are encoded as OTLP protobuf bytes at once (otlp-export.js). */
class RecordWriter {
  constructor (records) {
    this.records = records
  }

  write (record, urlPath) {
    this.records.add(record, urlPath)
  }
}

module.exports = { AppSpanPipeline, RecordWriter }
