'use strict'

const { codes, NodebenchTypeError, invalidOption } = require('./errors')

// The `metrics` option of nodebenchTrace() and nodebenchPrimary(), validated once at construction. Given, it
// decides; not given, OpenTelemetry's own variables do, as an SDK reads them: OTEL_METRICS_EXPORTER (a comma-
// separated list of otlp, prometheus, none, and console, which is the app's SDK's), OTEL_EXPORTER_PROMETHEUS_HOST
// and _PORT (default localhost and 9464), OTEL_METRIC_EXPORT_INTERVAL. So a tool that starts the app (nodebench
// bench) or a deployment turns the metrics on without a change to the app's code.

const KEYS = Object.freeze(['otlp', 'prometheus'])
const FORMS = 'false, true (OTLP push), or { otlp, prometheus }'
const DEFAULT_EXPORT_INTERVAL_MS = 60000
// `console` is an exporter of the app's SDK (NodeSDK makes it): nodebench makes none for it, and does not fail.
const ENV_EXPORTERS = Object.freeze(['otlp', 'prometheus', 'none', 'console'])
const DEFAULT_PROMETHEUS_PORT = 9464

/**
 * Returns false or a frozen { otlp: false | { intervalMs }, prometheus: false | { path } | { port, host } }.
 * @param {*} metrics the option as given (undefined: from the environment)
 * @param {NodeJS.ProcessEnv} env
 * @param {object} context
 * @param {string} context.where the function whose option it is, for messages ('nodebenchTrace')
 * @param {string|false} [context.expose] the expose path, which a scrape path may not be
 * @param {'app'|'worker'|'primary'} context.role where the metrics are served from: an app has paths, a
 *   node:cluster worker leaves a scrape port from the environment to its primary (every worker has the same
 *   environment, so they would share one port), the primary has no paths
 */
function normalizeMetrics (metrics, env, { where, expose = false, role }) {
  if (metrics === undefined) return metricsFromEnv(env, { where, role })
  if (metrics === false) return false
  if (metrics === true) metrics = { otlp: true }
  if (metrics === null || typeof metrics !== 'object' || Array.isArray(metrics)) {
    throw invalidOption(codes.NB_ERR_METRICS, 'metrics', metrics, FORMS, where)
  }
  for (const key of Object.keys(metrics)) {
    if (!KEYS.includes(key)) {
      throw new NodebenchTypeError(codes.NB_ERR_METRICS,
        `${where}: unknown key "${key}" in option "metrics"; expected otlp and prometheus`)
    }
  }
  const otlp = normalizeOtlp(metrics.otlp ?? false, env, where)
  const prometheus = normalizePrometheus(metrics.prometheus ?? false, { where, expose, role })
  if (otlp === false && prometheus === false) {
    throw invalidOption(codes.NB_ERR_METRICS, 'metrics', metrics, `${FORMS}, with otlp or prometheus on`, where)
  }
  return Object.freeze({ otlp, prometheus })
}

function metricsFromEnv (env, { where, role }) {
  const text = (env.OTEL_METRICS_EXPORTER ?? '').trim().toLowerCase()
  if (text === '') return false
  const names = text.split(',').map((name) => name.trim())
  for (const name of names) {
    if (!ENV_EXPORTERS.includes(name)) {
      throw invalidOption(codes.NB_ERR_METRICS, 'metrics (from OTEL_METRICS_EXPORTER)', env.OTEL_METRICS_EXPORTER,
        'a comma-separated list of otlp, prometheus, console (the app\'s SDK\'s) and none', where)
    }
  }
  const otlp = names.includes('otlp') ? normalizeOtlp(true, env, where) : false
  let prometheus = false
  if (names.includes('prometheus') && role !== 'worker') {
    const portText = env.OTEL_EXPORTER_PROMETHEUS_PORT
    const port = portText === undefined || portText === '' ? DEFAULT_PROMETHEUS_PORT : Number(portText)
    const host = env.OTEL_EXPORTER_PROMETHEUS_HOST || 'localhost'
    prometheus = normalizePrometheus({ port, host }, { where, role, from: ' (from OTEL_EXPORTER_PROMETHEUS_PORT)' })
  }
  return otlp === false && prometheus === false ? false : Object.freeze({ otlp, prometheus })
}

function normalizeOtlp (otlp, env, where) {
  if (otlp === false) return false
  const expected = 'true, false or { intervalMs } (milliseconds between exports, default OTEL_METRIC_EXPORT_INTERVAL, else 60000)'
  if (otlp !== true && (otlp === null || typeof otlp !== 'object' || Array.isArray(otlp))) {
    throw invalidOption(codes.NB_ERR_METRICS, 'metrics.otlp', otlp, expected, where)
  }
  let intervalMs = otlp === true ? undefined : otlp.intervalMs
  let from = 'metrics.otlp.intervalMs'
  const fromEnv = env.OTEL_METRIC_EXPORT_INTERVAL
  if (intervalMs === undefined && fromEnv !== undefined && fromEnv !== '') {
    intervalMs = Number(fromEnv)
    from = 'metrics.otlp.intervalMs (from OTEL_METRIC_EXPORT_INTERVAL)'
  }
  if (otlp !== true) {
    for (const key of Object.keys(otlp)) {
      if (key !== 'intervalMs') throw invalidOption(codes.NB_ERR_METRICS, 'metrics.otlp', otlp, expected, where)
    }
  }
  intervalMs ??= DEFAULT_EXPORT_INTERVAL_MS
  if (!Number.isInteger(intervalMs) || intervalMs < 100) {
    throw invalidOption(codes.NB_ERR_METRICS, from, intervalMs, 'a whole number of milliseconds, at least 100', where)
  }
  return Object.freeze({ intervalMs })
}

function normalizePrometheus (prometheus, { where, expose, role, from = '' }) {
  if (prometheus === false) return false
  const onApp = role === 'primary' ? '' : 'a path on the app ("/metrics"), or '
  const expected = `false, ${onApp}{ port, host } for a server of its own (host default "0.0.0.0")`
  if (typeof prometheus === 'string') {
    if (role === 'primary') {
      throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus', prometheus,
        '{ port, host }: the primary serves no app, so it scrapes on a server of its own', where)
    }
    if (!/^\/[^\s?#]*$/.test(prometheus)) throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus', prometheus, expected, where)
    if (prometheus === expose) {
      throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus', prometheus, `a path other than expose's ("${expose}")`, where)
    }
    if (role === 'worker') {
      // Each scrape would reach one worker, and Prometheus would see a different process at every scrape.
      throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus', prometheus,
        'not a path on the app in a node:cluster worker (a scrape reaches one worker at a time): serve the whole ' +
        'cluster from the primary with nodebenchPrimary({ metrics: { prometheus: { port } } }), or use otlp, which ' +
        'every worker pushes as an instance of its own', where)
    }
    return Object.freeze({ path: prometheus })
  }
  if (prometheus === null || typeof prometheus !== 'object' || Array.isArray(prometheus) ||
    Object.keys(prometheus).some((key) => key !== 'port' && key !== 'host')) {
    throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus', prometheus, expected, where)
  }
  const { port, host = '0.0.0.0' } = prometheus
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw invalidOption(codes.NB_ERR_METRICS, `metrics.prometheus.port${from}`, port, 'an integer from 1 to 65535', where)
  }
  if (typeof host !== 'string' || host === '') {
    throw invalidOption(codes.NB_ERR_METRICS, 'metrics.prometheus.host', host, 'an address to listen on, such as "127.0.0.1"', where)
  }
  return Object.freeze({ port, host })
}

module.exports = { normalizeMetrics, DEFAULT_PROMETHEUS_PORT }
