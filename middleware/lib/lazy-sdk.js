'use strict'

const api = require('@opentelemetry/api')

// What nodebench registers when it starts OpenTelemetry itself (exporter 'otlp', no TracerProvider of the
// app's): the TracerProvider and the W3C propagators NodeSDK would register, so spans the app creates with
// @opentelemetry/api are exported too and outgoing calls can carry the trace. Each loads the SDK when it is
// first used. nodebench's own spans need none of it (otlp-encoder.js, trace-context.js), and most apps never
// ask: loading @opentelemetry/sdk-trace with the rest of what it needs allocated ~3 MB when the app started,
// and the garbage collection that followed landed on its first request (benchmarks/first-request.js).

/** A TracerProvider that makes the SDK's (sdk-spans.js createSdkProvider) when the app first asks for a tracer. */
class LazyTracerProvider {
  /**
   * @param {() => { provider: object }} createSdk makes the SDK provider (and whatever carries its spans)
   * @param {object} records nodebench's own span export (otlp-export.js), shared with later nodebenchTrace()s
   */
  constructor (createSdk, records) {
    this.createSdk = createSdk
    this.records = records
    this.sdk = null
  }

  sdkProvider () {
    if (this.sdk === null) this.sdk = this.createSdk()
    return this.sdk.provider
  }

  /**
   * A tracer that stays right when the app registers a provider of its own later (a NodeSDK started after
   * nodebench's first request): the API's ProxyTracer keeps the first tracer it got for good, so instrumentations
   * made before that would go on sending their spans here rather than to the app's SDK.
   */
  getTracer (name, version, options) {
    return new FollowingTracer(this, this.sdkProvider().getTracer(name, version, options), name, version, options)
  }

  forceFlush () {
    return this.sdk === null ? Promise.resolve() : this.sdk.provider.forceFlush()
  }

  shutdown () {
    return this.sdk === null ? Promise.resolve() : this.sdk.provider.shutdown()
  }
}

/** Starts spans with nodebench's SDK tracer while nodebench's provider is the API's, else with the app's provider. */
class FollowingTracer {
  constructor (owner, ownTracer, name, version, options) {
    this.owner = owner
    this.ownTracer = ownTracer
    this.name = name
    this.version = version
    this.options = options
    this.appProvider = null
    this.appTracer = null
  }

  current () {
    const proxy = api.trace.getTracerProvider()
    const provider = typeof proxy.getDelegate === 'function' ? proxy.getDelegate() : proxy
    if (provider === this.owner) return this.ownTracer
    if (provider !== this.appProvider) {
      this.appProvider = provider
      this.appTracer = provider.getTracer(this.name, this.version, this.options)
    }
    return this.appTracer
  }

  startSpan (name, options, context) {
    return this.current().startSpan(name, options, context)
  }

  startActiveSpan (...args) {
    const tracer = this.current()
    return tracer.startActiveSpan(...args)
  }
}

const PROPAGATED_FIELDS = Object.freeze(['traceparent', 'tracestate', 'baggage'])

/** W3C trace-context and baggage propagation (@opentelemetry/core's), loaded on the first inject or extract. */
class LazyPropagator {
  constructor () {
    this.propagator = null
  }

  sdkPropagator () {
    if (this.propagator === null) {
      const { CompositePropagator, W3CTraceContextPropagator, W3CBaggagePropagator } = require('@opentelemetry/core')
      this.propagator = new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()]
      })
    }
    return this.propagator
  }

  inject (context, carrier, setter) {
    this.sdkPropagator().inject(context, carrier, setter)
  }

  extract (context, carrier, getter) {
    return this.sdkPropagator().extract(context, carrier, getter)
  }

  fields () {
    return PROPAGATED_FIELDS.slice()
  }
}

module.exports = { LazyTracerProvider, LazyPropagator }
