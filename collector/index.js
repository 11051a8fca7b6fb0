'use strict'

const { JaegerClient, flattenSpans } = require('./lib/jaeger-client')
const { breakdownFromSpans } = require('./lib/spans-to-breakdown')
const { breakdownFromJaeger, breakdownFromApp, parseSince } = require('./lib/read-breakdown')
const { startJaeger } = require('./lib/jaeger')
const { jaegerBinary, JAEGER_VERSION } = require('./lib/jaeger-binary')
const { jaegerService } = require('./lib/jaeger-service')
const { startPrometheus, prometheusForRun, writeTargets, parseTarget, waitForScrapes } = require('./lib/prometheus')
const { prometheusService } = require('./lib/prometheus-service')
const { PrometheusClient } = require('./lib/prometheus-client')
const { breakdownFromPrometheus } = require('./lib/prometheus-breakdown')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  JaegerClient,
  flattenSpans,
  breakdownFromSpans,
  breakdownFromJaeger,
  breakdownFromApp,
  parseSince,
  startJaeger,
  jaegerBinary,
  jaegerService,
  JAEGER_VERSION,
  PrometheusClient,
  breakdownFromPrometheus,
  startPrometheus,
  prometheusForRun,
  prometheusService,
  writeTargets,
  parseTarget,
  waitForScrapes,
  errorCodes: codes,
  NodebenchError
}
