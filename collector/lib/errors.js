'use strict'

const { NodebenchError } = require('@nodebench/services')

// The collector's error codes; the errors are the services package's NodebenchError (code + message).
// Each message says what was wrong and what to do instead.

const codes = Object.freeze({
  NB_ERR_JAEGER_URL: 'NB_ERR_JAEGER_URL',
  NB_ERR_JAEGER_UNREACHABLE: 'NB_ERR_JAEGER_UNREACHABLE',
  NB_ERR_JAEGER_RESPONSE: 'NB_ERR_JAEGER_RESPONSE',
  NB_ERR_UNKNOWN_SERVICE: 'NB_ERR_UNKNOWN_SERVICE',
  NB_ERR_SINCE: 'NB_ERR_SINCE',
  NB_ERR_NO_TRACES: 'NB_ERR_NO_TRACES',
  NB_ERR_APP_URL: 'NB_ERR_APP_URL',
  NB_ERR_APP_UNREACHABLE: 'NB_ERR_APP_UNREACHABLE',
  NB_ERR_APP_RESPONSE: 'NB_ERR_APP_RESPONSE'
})

module.exports = { codes, NodebenchError }
