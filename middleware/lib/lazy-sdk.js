'use strict'

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

  getTracer (name, version, options) {
    return this.sdkProvider().getTracer(name, version, options)
  }

  forceFlush () {
    return this.sdk === null ? Promise.resolve() : this.sdk.provider.forceFlush()
  }

  shutdown () {
    return this.sdk === null ? Promise.resolve() : this.sdk.provider.shutdown()
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
