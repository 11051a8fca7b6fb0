'use strict'

const { JaegerClient } = require('./lib/jaeger-client')
const { breakdownFromSpans } = require('./lib/spans-to-breakdown')
const { fanOutFromSpans } = require('./lib/fan-out')
const { breakdownFromJaeger, breakdownFromApp, parseSince } = require('./lib/read-breakdown')
const { traceWaterfall, readTrace } = require('./lib/trace-waterfall')
const { startJaeger } = require('./lib/jaeger')
const { jaegerBinary } = require('./lib/jaeger-binary')
const { jaegerService } = require('./lib/jaeger-service')
const { startPrometheus, prometheusForRun, writeTargets, waitForScrapes } = require('./lib/prometheus')
const { prometheusService } = require('./lib/prometheus-service')
const { breakdownFromPrometheus } = require('./lib/prometheus-breakdown')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  JaegerClient,
  breakdownFromSpans,
  fanOutFromSpans,
  breakdownFromJaeger,
  breakdownFromApp,
  parseSince,
  traceWaterfall,
  readTrace,
  startJaeger,
  jaegerBinary,
  jaegerService,
  breakdownFromPrometheus,
  startPrometheus,
  prometheusForRun,
  prometheusService,
  writeTargets,
  waitForScrapes,
  errorCodes: codes,
  NodebenchError
}
