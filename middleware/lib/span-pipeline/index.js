'use strict'

const { OwnSpanPipeline } = require('./own')
const { AppSpanPipeline } = require('./app')
const { ExporterSpanPipeline } = require('./exporter')
const { isGlobalTracerProviderRegistered, registeredTracerProvider, TRACER_NAME } = require('./otel-api')

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
 * Three ways, a class each, chosen here once by `exporter` ('none': NO_SPANS):
 * - exporter 'otlp', nothing registered (the default): nodebench's own pipeline. Spans are encoded from the
 *   request records (otlp-export.js) and nothing of the SDK is loaded; nodebench offers a TracerProvider (as
 *   the API's delegate, not in its global slot: delegateTracerProvider) and registers propagators that load
 *   the SDK if the app itself uses @opentelemetry/api (lazy-sdk.js). A later nodebenchTrace() in the same
 *   process shares this pipeline (OwnSpanPipeline, own.js).
 * - exporter 'otlp' (or 'app': OTEL_TRACES_EXPORTER names an exporter only the app's SDK has, options.js) and
 *   the app registered a TracerProvider (e.g. NodeSDK): spans go through its tracer. The API's global slot is
 *   read again on each request that could have spans (one property read), so a provider the app registers
 *   after nodebench's first request carries the spans from then on. With 'app' and no provider of the app's,
 *   nodebench writes no spans (AppSpanPipeline, app.js; 'otlp' extends it).
 * - a SpanExporter: nodebench's spans as SDK objects into a BatchSpanProcessor in front of it (sdk-spans.js),
 *   made at construction; its provider is registered unless the app has one (ExporterSpanPipeline, exporter.js).
 *
 * What all three do alike (sampling, the request span, writing a finished record's spans, flushing) is
 * SpanPipeline (pipeline.js); what they read of @opentelemetry/api's globals, otel-api.js.
 */
function createSpanPipeline (config, env) {
  if (config.exporter === 'none') return NO_SPANS
  if (config.exporter === 'otlp') return new OwnSpanPipeline(config, env)
  if (config.exporter === 'app') return new AppSpanPipeline(config, env)
  return new ExporterSpanPipeline(config, env)
}

module.exports = { createSpanPipeline, isGlobalTracerProviderRegistered, registeredTracerProvider, TRACER_NAME }
