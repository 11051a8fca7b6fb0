'use strict'

const { LazyTracerProvider } = require('../lazy-sdk')
const { detectResource } = require('../resource')
const { RecordExporter } = require('../otlp-export')
const { AppSpanPipeline, RecordWriter } = require('./app')
const { registeredTracerProvider } = require('./otel-api')

/**
 * exporter 'otlp' (the default): the app's provider when it registered one (AppSpanPipeline), else nodebench's
 * own pipeline. Spans are encoded from the request records (otlp-export.js) and nothing of the SDK is loaded;
 * nodebench offers a TracerProvider (as the API's delegate, not in its global slot: delegateTracerProvider) and
 * registers propagators that load the SDK if the app itself uses @opentelemetry/api (lazy-sdk.js). A later
 * nodebenchTrace() in the same process shares this pipeline.
 */
class OwnSpanPipeline extends AppSpanPipeline {
  /**
   * nodebench's own export (exporter 'otlp'), made when nodebenchTrace() is called, with the resource: the
   * first request then only decides whose pipeline carries the spans. Nothing here is registered or sent.
   */
  prepare () {
    // sampleRatio 0 samples only a request whose traceparent asks for it: the resource (@opentelemetry/resources
    // and the semantic conventions, ~1.2 MB of heap every full collection walks) is detected when the first
    // batch is sent, not at start-up (benchmarks/LOG.md, "Sampling nothing loads nothing").
    if (!(this.config.sampleRatio > 0)) return { records: null }
    this.resource()
    // A nodebenchTrace() made while another one's pipeline runs will share that one (AppSpanPipeline startPipeline).
    return { records: registeredTracerProvider() instanceof LazyTracerProvider ? null : this.newRecordExporter() }
  }

  newRecordExporter () {
    return new RecordExporter({ resource: () => this.resource(), scope: this.scope, ...this.batching })
  }

  /** Nobody else's pipeline: nodebench's own export, and its provider offered to the app. */
  startAlone (prepared) {
    this.records = prepared.records !== null ? prepared.records : this.newRecordExporter()
    this.ownsRecords = true
    this.direct = this.ownDirect = new RecordWriter(this.records)
    const provider = new LazyTracerProvider(() => this.createAppSpanPipeline(), this.records)
    this.registerGlobally(provider)
    provider.ownPropagation = this.ownPropagation
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
    const sdk = require('../sdk-spans')
    const dropCounter = sdk.createDropCounter()
    const created = sdk.createSdkProvider({
      resource: this.resource(), exporter: sdk.lazyOtlpTraceExporter(), batching: this.batching, dropCounter
    })
    this.processor = created.processor
    this.sdkDrops = dropCounter.count
    return created
  }
}

module.exports = { OwnSpanPipeline }
