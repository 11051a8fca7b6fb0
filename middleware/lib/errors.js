'use strict'

const { inspect } = require('util')
const { codesOf, NodebenchError, NodebenchTypeError } = require('@nodebench/errors')

// nodebenchTrace's option errors: TypeErrors of @nodebench/errors (its table holds every code, with what it
// means). The message names the option, shows the value received and says what was expected.

/** The codes @nodebench/trace throws (its `errorCodes`): nodebenchTrace's options, and the cluster's. */
const codes = codesOf([
  'NB_ERR_OPTIONS_TYPE', 'NB_ERR_UNKNOWN_OPTION', 'NB_ERR_SERVICE_NAME', 'NB_ERR_EXPORTER', 'NB_ERR_SAMPLE_RATIO',
  'NB_ERR_SERVER_TIMING', 'NB_ERR_EXPOSE', 'NB_ERR_ACCESS', 'NB_ERR_MAX_QUEUE_SIZE', 'NB_ERR_MAX_OPERATIONS',
  'NB_ERR_ACTIVE_CONTEXT', 'NB_ERR_METRICS', 'NB_ERR_LAYER_SPANS', 'NB_ERR_CLUSTER'
])

function describe (value) {
  return inspect(value, { depth: 0, breakLength: Infinity, maxStringLength: 80 })
}

/** `invalidOption(codes.NB_ERR_SAMPLE_RATIO, 'sampleRatio', 2, 'a number from 0 to 1')`. */
function invalidOption (code, option, received, expected, where = 'nodebenchTrace') {
  return new NodebenchTypeError(code,
    `${where}: option "${option}" must be ${expected}; received ${describe(received)}`)
}

module.exports = { codes, NodebenchError, NodebenchTypeError, invalidOption, describe }
