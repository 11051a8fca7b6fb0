'use strict'

const { detectResource } = require('../resource')
const { SpanPipeline } = require('./pipeline')
const { isGlobalTracerProviderRegistered } = require('./otel-api')

/**
 * A SpanExporter given as `exporter`: nodebench's spans as SDK objects into a BatchSpanProcessor in front of it
 * (sdk-spans.js), made at construction; its provider is registered unless the app has one.
 */
class ExporterSpanPipeline extends SpanPipeline {
  /**
   * The SDK pipeline in front of the app's SpanExporter, made when nodebenchTrace() is called: loading the SDK
   * and detecting the resource took ~45 ms and ~4 ms, which the first request would otherwise wait for.
   */
  prepare () {
    const sdk = require('../sdk-spans')
    const { RandomIdGenerator } = require('@opentelemetry/sdk-trace')
    const dropCounter = sdk.createDropCounter()
    const resource = detectResource(this.config.serviceName)
    const { provider, processor } = sdk.createSdkProvider({
      resource, exporter: this.config.exporter, batching: this.batching, dropCounter
    })
    const direct = new sdk.DirectSpanWriter(processor, resource, new RandomIdGenerator(), this.scope)
    return { provider, processor, direct, dropCounter }
  }

  startPipeline () {
    const prepared = this.prepared
    this.prepared = null
    this.processor = prepared.processor
    this.sdkDrops = prepared.dropCounter.count
    this.direct = prepared.direct
    if (!isGlobalTracerProviderRegistered()) {
      this.registerGlobally(prepared.provider)
    } else {
      // The app has its own provider: nodebench's stays private, its exporter gets nodebench's spans.
      this.provider = prepared.provider
    }
  }
}

module.exports = { ExporterSpanPipeline }
