'use strict'

// What nodebench reads and sets of @opentelemetry/api's globals: the provider registered, the request's
// SERVER span, the `trace` slot a pipeline follows.

const api = require('@opentelemetry/api')

const TRACER_NAME = '@nodebench/trace'
// Where every copy of @opentelemetry/api 1.x registers its globals (the context manager under `context`).
const OTEL_API_GLOBALS = Symbol.for('opentelemetry.js.api.1')
const TRACER_VERSION = require('../../package.json').version

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

/** What the API's global `trace` slot holds (the ProxyTracerProvider once a provider is registered), or undefined. */
function traceSlot () {
  const globals = globalThis[OTEL_API_GLOBALS]
  return globals === undefined ? undefined : globals.trace
}

module.exports = {
  TRACER_NAME,
  TRACER_VERSION,
  OTEL_API_GLOBALS,
  registeredTracerProvider,
  isGlobalTracerProviderRegistered,
  requestServerSpan,
  delegateTracerProvider,
  traceSlot
}
