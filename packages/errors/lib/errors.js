'use strict'

// Every error a nodebench package throws at a user carries one of these codes, and every code is here, with
// the package that throws it and what it means (as fastify's lib/errors.js holds every FST_ERR_*). The message
// of each error says what was wrong and what was expected; test/errors.test.js pins that every code thrown
// anywhere in the repository is in this table and every code in it is thrown somewhere.
const CODES = Object.freeze({
  // @nodebench/trace: nodebenchTrace() options (TypeErrors, as Node.js's own invalid-argument errors)
  NB_ERR_OPTIONS_TYPE: 'nodebenchTrace(options): options is not an object',
  NB_ERR_UNKNOWN_OPTION: 'nodebenchTrace(options): an option nodebench does not know',
  NB_ERR_SERVICE_NAME: 'nodebenchTrace(options): serviceName is not a non-empty string',
  NB_ERR_EXPORTER: "nodebenchTrace(options): exporter is not 'otlp', 'none' or a SpanExporter",
  NB_ERR_SAMPLE_RATIO: 'nodebenchTrace(options): sampleRatio is not a number from 0 to 1',
  NB_ERR_SERVER_TIMING: 'nodebenchTrace(options): serverTiming is not a boolean or a function',
  NB_ERR_EXPOSE: 'nodebenchTrace(options): expose is not a path or a boolean',
  NB_ERR_ACCESS: 'nodebenchTrace(options): access is not a rule nodebench knows',
  NB_ERR_MAX_QUEUE_SIZE: 'nodebenchTrace(options): maxQueueSize is not a positive integer',
  NB_ERR_MAX_OPERATIONS: 'nodebenchTrace(options): maxOperations is not a positive integer',
  NB_ERR_ACTIVE_CONTEXT: 'nodebenchTrace(options): activeContext is not a boolean',
  NB_ERR_METRICS: 'nodebenchTrace(options): metrics is not one of the accepted forms, or asks for what this process cannot serve',
  NB_ERR_LAYER_SPANS: "nodebenchTrace(options): layerSpans is not 'nodebench' or 'instrumentation-express'",
  // @nodebench/trace: the cluster breakdown
  NB_ERR_CLUSTER: 'nodebenchPrimary() called outside the primary, or the primary did not answer a worker',
  // @nodebench/services: the real components nodebench runs
  NB_ERR_INVALID_OPTION: 'an option of a services function is not what it expects',
  NB_ERR_GO_MISSING: 'a build needs Go and `go` is not on PATH',
  NB_ERR_GO_BUILD: 'a Go build failed',
  NB_ERR_DB_START: 'the embedded database (FerretDB) did not start',
  NB_ERR_LOCK_TIMEOUT: 'another process held the database start lock too long',
  NB_ERR_SERVICE_UNKNOWN: 'a service name nodebench does not know',
  NB_ERR_SERVICE_NOT_ANSWERING: 'a service registered as running does not answer',
  NB_ERR_CHROMIUM_MISSING: 'Chromium is missing and cannot be installed',
  NB_ERR_VALGRIND_MISSING: 'valgrind is missing and cannot be installed',
  NB_ERR_PROMETHEUS_MISSING: 'Prometheus is missing and cannot be installed',
  NB_ERR_NGINX_MISSING: 'nginx is missing and cannot be installed',
  NB_ERR_NGINX_START: 'nginx did not start, or refused its configuration',
  NB_ERR_APACHE_MISSING: 'Apache httpd with PHP (apache2, libapache2-mod-php) is missing and cannot be installed',
  NB_ERR_APACHE_START: 'Apache httpd did not start, or refused its configuration',
  NB_ERR_NODE_UNAVAILABLE: 'a Node.js binary for the version matrix could not be had',
  // @nodebench/collector: Jaeger and an app's breakdown read back
  NB_ERR_JAEGER_START: 'Jaeger did not start',
  NB_ERR_JAEGER_URL: "Jaeger's query URL is not a URL",
  NB_ERR_JAEGER_UNREACHABLE: "Jaeger's query API does not answer",
  NB_ERR_JAEGER_RESPONSE: "Jaeger's query API answered something else than traces",
  NB_ERR_UNKNOWN_SERVICE: 'the backend (Jaeger, Prometheus) holds nothing of that service',
  NB_ERR_SINCE: '--since is not a duration',
  NB_ERR_NO_TRACES: 'no traces in the window',
  NB_ERR_UNKNOWN_TRACE: 'the backend (Jaeger) has no trace of that id',
  NB_ERR_PROMETHEUS_START: 'Prometheus did not start',
  NB_ERR_PROMETHEUS_TARGET: 'a scrape target is not host:port[/path] or an http URL',
  NB_ERR_PROMETHEUS_SCRAPE: 'Prometheus did not scrape the targets in time',
  NB_ERR_PROMETHEUS_URL: "Prometheus's URL is not a URL",
  NB_ERR_PROMETHEUS_UNREACHABLE: "Prometheus's HTTP API does not answer",
  NB_ERR_PROMETHEUS_RESPONSE: 'the URL answered, but not as the Prometheus HTTP API does',
  NB_ERR_NO_METRICS: "no request of the service in the window's metrics",
  NB_ERR_APP_URL: "the app's breakdown URL is not a URL",
  NB_ERR_APP_UNREACHABLE: "the app's breakdown URL does not answer",
  NB_ERR_APP_RESPONSE: "the app's breakdown URL answered something else than a breakdown",
  // nodebench (the command)
  NB_ERR_USAGE: 'the command line is not understood (exit 2)',
  NB_ERR_WORKLOAD: 'a workload file is missing or not right (exit 2 when read before the run)',
  NB_ERR_WORKLOAD_HOOK: "a workload's setup or teardown hook failed",
  NB_ERR_WORKLOAD_PROBE: "a workload's request does not answer the status it expects",
  NB_ERR_APP_START: 'the app bench runs did not start or answer',
  NB_ERR_TARGET_START: 'a server bench runs beside the app (a baseline target) did not start or answer',
  NB_ERR_BREAKDOWN_READ: "bench could not read the app's breakdown (/__nodebench)",
  NB_ERR_FLAME: 'a profiler could not profile the app',
  NB_ERR_COMPARE_INPUT: 'what nodebench compare was given is missing, unreadable, of a schema it does not know, or not comparable (exit 2)',
  NB_ERR_CHECKOUT: 'a git revision nodebench compare runs could not be checked out, or its dependencies installed',
  NB_ERR_CALLGRIND: "callgrind could not count the app's instructions"
})

// The brand every nodebench error carries, whichever package (and whichever copy of this one) made it.
const kNodebenchError = Symbol.for('nodebench.error')

function checkCode (code) {
  if (!Object.hasOwn(CODES, code)) throw new TypeError(`not a nodebench error code: ${String(code)}; the codes are those of @nodebench/errors`)
  return code
}

/**
 * A nodebench error: `code` (one of CODES) and a message saying what was wrong and what was expected.
 * `err instanceof NodebenchError` holds for every nodebench error, NodebenchTypeError's included.
 */
class NodebenchError extends Error {
  constructor (code, message, options) {
    super(message, options)
    this.name = 'NodebenchError'
    this.code = checkCode(code)
  }

  static [Symbol.hasInstance] (value) {
    return value !== null && typeof value === 'object' && value[kNodebenchError] === true
  }
}

/** An argument of the wrong type or value (nodebenchTrace's options): a TypeError, as Node.js's own. */
class NodebenchTypeError extends TypeError {
  constructor (code, message, options) {
    super(message, options)
    this.name = 'NodebenchError'
    this.code = checkCode(code)
  }
}

Object.defineProperty(NodebenchError.prototype, kNodebenchError, { value: true })
Object.defineProperty(NodebenchTypeError.prototype, kNodebenchError, { value: true })

/** Whether `err` is a nodebench error (what the command prints as one line, without a stack). */
function isNodebenchError (err) {
  return err instanceof NodebenchError
}

/** `{ NB_ERR_X: 'NB_ERR_X', ... }` for the names given, each checked against the table: a package's codes. */
function codesOf (names) {
  return Object.freeze(Object.fromEntries(names.map((name) => [checkCode(name), name])))
}

/** Every code by name, for `codes.NB_ERR_X` instead of a string literal. */
const codes = codesOf(Object.keys(CODES))

module.exports = { CODES, codes, codesOf, NodebenchError, NodebenchTypeError, isNodebenchError }
