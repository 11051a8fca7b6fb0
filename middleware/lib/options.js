'use strict'

const cluster = require('cluster')
const { codes, NodebenchTypeError, invalidOption, describe } = require('./errors')
const { normalizeMetrics } = require('./metrics-options')
const { defaultServiceName } = require('./service-name')

const KNOWN_OPTIONS = [
  'serviceName', 'exporter', 'sampleRatio', 'serverTiming', 'expose', 'access', 'maxQueueSize', 'maxOperations', 'activeContext', 'metrics',
  'layerSpans'
]
const LAYER_SPANS = Object.freeze(['nodebench', 'instrumentation-express'])
const ACCESS_KEYS = ['read', 'reset']
const ACCESS_RULE = "'local' (this machine only), 'anyone', or a function (req) => boolean"
const DEFAULT_ACCESS = Object.freeze({ read: 'local', reset: 'local' })

function isSpanExporter (value) {
  return value !== null && typeof value === 'object' &&
    typeof value.export === 'function' && typeof value.shutdown === 'function'
}

/** OTEL_TRACES_SAMPLER(_ARG) as a ratio: always_on 1, always_off 0, *traceidratio the ARG, else 1. */
function defaultSampleRatio (env) {
  const sampler = (env.OTEL_TRACES_SAMPLER || '').trim().toLowerCase()
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') return 0
  if (sampler === 'always_on' || sampler === 'parentbased_always_on') return 1
  const fromEnv = env.OTEL_TRACES_SAMPLER_ARG
  if (fromEnv === undefined || fromEnv === '') return 1
  const ratio = Number(fromEnv)
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw invalidOption(codes.NB_ERR_SAMPLE_RATIO, 'sampleRatio (from OTEL_TRACES_SAMPLER_ARG)', fromEnv, 'a number from 0 to 1')
  }
  return ratio
}

/**
 * OTEL_TRACES_EXPORTER, a comma-separated list as an OpenTelemetry SDK reads it: `otlp` (the default, also in a
 * list) is nodebench's own OTLP export when the app has no TracerProvider; `none` alone is the breakdown only, no
 * spans; any other exporter (`console`, `zipkin`, ...) is the app's SDK's to make: 'app', nodebench's spans go
 * through the app's provider when it has one, and nowhere when it has none (span-pipeline/app.js says so once).
 */
function defaultExporter (env) {
  const names = (env.OTEL_TRACES_EXPORTER || '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean)
  if (names.length === 0 || names.includes('otlp')) return 'otlp'
  if (names.every((name) => name === 'none')) return 'none'
  return 'app'
}

/** OTEL_SDK_DISABLED=true: the operator turned OpenTelemetry off; nodebench exports no spans nor metrics then. */
function sdkDisabled (env) {
  return (env.OTEL_SDK_DISABLED || '').trim().toLowerCase() === 'true'
}

/**
 * Validates the options of nodebenchTrace() once, at construction, and returns a frozen copy the request
 * path can trust.
 */
function normalizeOptions (options, env = process.env) {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new NodebenchTypeError(codes.NB_ERR_OPTIONS_TYPE,
      `nodebenchTrace: options must be an object; received ${describe(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new NodebenchTypeError(codes.NB_ERR_UNKNOWN_OPTION,
        `nodebenchTrace: unknown option "${key}"; expected one of ${KNOWN_OPTIONS.join(', ')}`)
    }
  }

  const serviceName = options.serviceName ?? env.OTEL_SERVICE_NAME ?? defaultServiceName()
  if (typeof serviceName !== 'string' || serviceName.trim() === '') {
    throw invalidOption(codes.NB_ERR_SERVICE_NAME, 'serviceName', serviceName, 'a non-empty string')
  }

  // Given, 'otlp', 'none' or a SpanExporter; from the environment, also 'app' (defaultExporter).
  const given = options.exporter
  if (given !== undefined && given !== 'otlp' && given !== 'none' && !isSpanExporter(given)) {
    throw invalidOption(codes.NB_ERR_EXPORTER, 'exporter', given,
      '"otlp", "none" or an OpenTelemetry SpanExporter (an object with export() and shutdown())')
  }
  let exporter = given ?? defaultExporter(env)

  const sampleRatio = options.sampleRatio ?? defaultSampleRatio(env)
  if (typeof sampleRatio !== 'number' || !(sampleRatio >= 0 && sampleRatio <= 1)) {
    throw invalidOption(codes.NB_ERR_SAMPLE_RATIO, 'sampleRatio', sampleRatio, 'a number from 0 to 1')
  }

  const serverTiming = options.serverTiming ?? false
  if (typeof serverTiming !== 'boolean' && typeof serverTiming !== 'function') {
    throw invalidOption(codes.NB_ERR_SERVER_TIMING, 'serverTiming', serverTiming,
      'true (every response), false, or a function (req) => boolean choosing the responses that carry it')
  }

  let expose = options.expose ?? false
  if (expose === true) expose = '/__nodebench'
  if (expose !== false && (typeof expose !== 'string' || !/^\/[^\s?#]*$/.test(expose))) {
    throw invalidOption(codes.NB_ERR_EXPOSE, 'expose', expose,
      'false, true, or a path starting with "/" without query or spaces (e.g. "/__nodebench")')
  }

  const access = normalizeAccess(options.access)

  const maxQueueSize = options.maxQueueSize ?? 2048
  if (!Number.isInteger(maxQueueSize) || maxQueueSize < 1) {
    throw invalidOption(codes.NB_ERR_MAX_QUEUE_SIZE, 'maxQueueSize', maxQueueSize, 'a positive integer (spans)')
  }

  const maxOperations = options.maxOperations ?? 500
  if (!Number.isInteger(maxOperations) || maxOperations < 1) {
    throw invalidOption(codes.NB_ERR_MAX_OPERATIONS, 'maxOperations', maxOperations, 'a positive integer')
  }

  const activeContext = options.activeContext ?? false
  if (typeof activeContext !== 'boolean') {
    throw invalidOption(codes.NB_ERR_ACTIVE_CONTEXT, 'activeContext', activeContext, 'true or false')
  }

  const layerSpans = options.layerSpans ?? 'nodebench'
  if (!LAYER_SPANS.includes(layerSpans)) {
    throw invalidOption(codes.NB_ERR_LAYER_SPANS, 'layerSpans', layerSpans,
      "'nodebench' (nodebench's layer spans stand, instrumentation-express's are turned off) or " +
      "'instrumentation-express' (its layer spans stand, nodebench writes none beside them)")
  }

  let metrics = normalizeMetrics(options.metrics, env, {
    where: 'nodebenchTrace', expose, role: cluster.isWorker ? 'worker' : 'app'
  })

  // The options are checked as always; the operator's switch then turns off what nodebench would export, as
  // OTEL_SDK_DISABLED turns a NodeSDK configured in code into a no-op. The breakdown is not an export: it stays.
  if (sdkDisabled(env)) {
    exporter = 'none'
    metrics = false
  }

  const normalized = { serviceName, exporter, sampleRatio, serverTiming, expose, access, maxQueueSize, maxOperations }
  return Object.freeze({ ...normalized, activeContext, metrics, layerSpans })
}

/** `access`: who may read nodebench's endpoints and reset the breakdown (access.js). Default: this machine. */
function normalizeAccess (access) {
  if (access === undefined) return DEFAULT_ACCESS
  if (access === null || typeof access !== 'object' || Array.isArray(access)) {
    throw invalidOption(codes.NB_ERR_ACCESS, 'access', access, `an object { read, reset }, each ${ACCESS_RULE}`)
  }
  for (const key of Object.keys(access)) {
    if (!ACCESS_KEYS.includes(key)) {
      throw new NodebenchTypeError(codes.NB_ERR_ACCESS,
        `nodebenchTrace: unknown key "${key}" in option "access"; expected read and reset, each ${ACCESS_RULE}`)
    }
  }
  const rules = {}
  for (const key of ACCESS_KEYS) {
    const rule = access[key] ?? DEFAULT_ACCESS[key]
    if (rule !== 'local' && rule !== 'anyone' && typeof rule !== 'function') {
      throw invalidOption(codes.NB_ERR_ACCESS, `access.${key}`, rule, ACCESS_RULE)
    }
    rules[key] = rule
  }
  return Object.freeze(rules)
}

module.exports = { normalizeOptions, KNOWN_OPTIONS }
