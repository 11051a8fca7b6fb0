'use strict'

const { ValueType } = require('@opentelemetry/api')
const { breakdownMetrics, REQUEST_METRIC, SEGMENT_METRIC, DEPENDENCY_METRIC } = require('@nodebench/breakdown')
const { detectResource } = require('./resource')
const { refusal } = require('./access')
const { reportInternalError } = require('./internal-errors')

// The breakdown as OpenTelemetry metrics (the `metrics` option). Nothing is added to the request path: the
// SDK's readers (a PeriodicExportingMetricReader with the OTLP exporter, and/or the Prometheus exporter) ask a
// MetricProducer of nodebench's own, which turns the aggregator's histograms into cumulative histogram data
// points when they collect (@nodebench/breakdown's metrics.js says which series). The MeterProvider is a
// private one, not registered globally: the app's own metrics setup stays the app's.
//
// Cumulative figures never go back while the process lives: `view` gives everything it served, resets of the
// breakdown (DELETE on the expose path, between bench cells) included (trace.js keeps what they cleared). In a
// cluster primary, `view` merges what the workers served (cluster-breakdown.js). An export that fails (an
// unreachable endpoint) is counted and dropped; nothing queues, and the next export carries the totals.

const SCOPE = Object.freeze({ name: '@nodebench/trace', version: require('../package.json').version })
const DESCRIPTIONS = Object.freeze({
  [REQUEST_METRIC]: 'Duration of HTTP server requests, from entering the Express app to the response\'s end',
  [SEGMENT_METRIC]: 'Duration of one layer\'s segment of a request (middleware, param handler, route handler, ' +
    'error handler), and of the time no segment covers (unattributed)',
  [DEPENDENCY_METRIC]: 'Time a segment waited on one dependency (a MongoDB command, an outgoing HTTP call, a ' +
    'template render, a JSON serialisation; overlapping calls counted once): count is the calls, sum the time'
})
// Resource attributes that the Prometheus exporter puts on every series (besides target_info), so that
// PromQL can select a service and tell its instances apart whatever the scrape job's labels are.
const PROMETHEUS_RESOURCE_LABELS = /^service\.(name|instance\.id)$/

/**
 * Starts the metrics `config.metrics` asks for. `view()` returns (or resolves to) the aggregator whose
 * cumulative figures are exported; `beforeCollect()` runs first (names the layers). Returns { serve(req, res,
 * access), path, failedExports(), flush(), shutdown() }.
 */
function createMetrics (config, { view, beforeCollect = () => {} }) {
  const sdk = require('@opentelemetry/sdk-metrics')
  const { hrTime } = require('@opentelemetry/core')
  const resource = detectResource(config.serviceName)
  const startTime = hrTime()
  let failed = 0

  const producer = {
    async collect () {
      try {
        beforeCollect()
        const scope = scopeMetrics(await view(), startTime, hrTime(), sdk)
        return { resourceMetrics: { resource, scopeMetrics: [scope] }, errors: [] }
      } catch (err) {
        reportInternalError('collect metrics', err)
        return { resourceMetrics: { resource, scopeMetrics: [] }, errors: [err] }
      }
    }
  }

  const readers = []
  if (config.metrics.otlp !== false) {
    const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-proto')
    const exporter = new OTLPMetricExporter()
    const { intervalMs } = config.metrics.otlp
    readers.push(new sdk.PeriodicExportingMetricReader({
      exporter: countingFailures(exporter, () => { failed++ }),
      exportIntervalMillis: intervalMs,
      exportTimeoutMillis: Math.min(intervalMs, 10000),
      metricProducers: [producer]
    }))
  }
  let prometheus = null
  const prometheusConfig = config.metrics.prometheus
  if (prometheusConfig !== false) {
    const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus')
    const onServer = prometheusConfig.port === undefined
      ? { preventServerStart: true }
      : { port: prometheusConfig.port, host: prometheusConfig.host, endpoint: '/metrics' }
    prometheus = new PrometheusExporter({
      ...onServer,
      withResourceConstantLabels: PROMETHEUS_RESOURCE_LABELS,
      metricProducers: [producer]
    }, (err) => {
      if (err) reportInternalError(`serve metrics on ${prometheusConfig.host}:${prometheusConfig.port}`, err)
    })
    readers.push(prometheus)
  }
  const provider = new sdk.MeterProvider({ resource, readers })

  return {
    path: prometheusConfig === false || prometheusConfig.path === undefined ? null : prometheusConfig.path,

    /** GET <metrics path> on the app: the Prometheus text format, to whom access.read allows. */
    serve (req, res, access) {
      const refused = refusal(access.read, req, 'access.read')
      if (refused !== null) {
        res.statusCode = 403
        res.setHeader('Content-Type', 'text/plain; charset=utf-8')
        res.end(`${refused}\n`)
        return
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.statusCode = 405
        res.setHeader('Allow', 'GET, HEAD')
        res.end()
        return
      }
      prometheus.getMetricsRequestHandler(req, res)
    },

    failedExports: () => failed,
    flush: () => provider.forceFlush().catch((err) => reportInternalError('flush metrics', err)),
    shutdown: () => provider.shutdown().catch((err) => reportInternalError('shut metrics down', err))
  }
}

/** `exporter`, calling `onFailure` for each export that did not succeed. */
function countingFailures (exporter, onFailure) {
  return {
    export (metrics, resultCallback) {
      exporter.export(metrics, (result) => {
        if (result.code !== 0) onFailure()
        resultCallback(result)
      })
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: (type) => exporter.selectAggregationTemporality(type),
    selectAggregation: (type) => exporter.selectAggregation(type)
  }
}

/** The ScopeMetrics of `aggregator`: two cumulative histograms, three when segments waited on dependencies. */
function scopeMetrics (aggregator, startTime, endTime, sdk) {
  const { requests, segments, dependencies } = breakdownMetrics(aggregator)
  const metrics = [
    histogramData(REQUEST_METRIC, requests, startTime, endTime, sdk),
    histogramData(SEGMENT_METRIC, segments, startTime, endTime, sdk)
  ]
  // Only when some segment waited on a dependency: an app without any exports the two histograms it did.
  if (dependencies.length > 0) metrics.push(histogramData(DEPENDENCY_METRIC, dependencies, startTime, endTime, sdk))
  return { scope: SCOPE, metrics }
}

function histogramData (name, points, startTime, endTime, sdk) {
  return {
    descriptor: { name, description: DESCRIPTIONS[name], unit: 's', valueType: ValueType.DOUBLE },
    aggregationTemporality: sdk.AggregationTemporality.CUMULATIVE,
    dataPointType: sdk.DataPointType.HISTOGRAM,
    dataPoints: points.map(({ attributes, histogram }) => ({
      attributes,
      startTime,
      endTime,
      value: {
        buckets: { boundaries: histogram.boundaries, counts: histogram.counts },
        sum: histogram.sum,
        count: histogram.count,
        max: histogram.max
      }
    }))
  }
}

module.exports = { createMetrics }
