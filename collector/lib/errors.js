'use strict'

// The collector's errors are NodebenchErrors of @nodebench/errors, whose table holds every code. Each message
// says what was wrong and what to do instead.

const { codesOf, NodebenchError } = require('@nodebench/errors')

/** The codes @nodebench/collector throws (its `errorCodes`). */
const codes = codesOf([
  'NB_ERR_JAEGER_START', 'NB_ERR_JAEGER_URL', 'NB_ERR_JAEGER_UNREACHABLE', 'NB_ERR_JAEGER_RESPONSE', 'NB_ERR_UNKNOWN_SERVICE',
  'NB_ERR_SINCE', 'NB_ERR_NO_TRACES', 'NB_ERR_APP_URL', 'NB_ERR_APP_UNREACHABLE', 'NB_ERR_APP_RESPONSE'
])

module.exports = { codes, NodebenchError }
