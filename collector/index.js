'use strict'

const { JaegerClient, flattenSpans } = require('./lib/jaeger-client')
const { breakdownFromSpans } = require('./lib/spans-to-breakdown')
const { breakdownFromJaeger, breakdownFromApp, parseSince } = require('./lib/read-breakdown')
const { startJaeger } = require('./lib/jaeger')
const { jaegerBinary, JAEGER_VERSION } = require('./lib/jaeger-binary')
const { jaegerService } = require('./lib/jaeger-service')
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
  errorCodes: codes,
  NodebenchError
}
