'use strict'

const { inspect } = require('node:util')

// Every error nodebench throws at a user is one of these codes. The message names the option, shows the
// value received and says what was expected; test/errors.test.js pins each code.
const codes = Object.freeze({
  NB_ERR_OPTIONS_TYPE: 'NB_ERR_OPTIONS_TYPE',
  NB_ERR_UNKNOWN_OPTION: 'NB_ERR_UNKNOWN_OPTION',
  NB_ERR_SERVICE_NAME: 'NB_ERR_SERVICE_NAME',
  NB_ERR_EXPORTER: 'NB_ERR_EXPORTER',
  NB_ERR_SAMPLE_RATIO: 'NB_ERR_SAMPLE_RATIO',
  NB_ERR_SERVER_TIMING: 'NB_ERR_SERVER_TIMING',
  NB_ERR_EXPOSE: 'NB_ERR_EXPOSE',
  NB_ERR_ACCESS: 'NB_ERR_ACCESS',
  NB_ERR_MAX_QUEUE_SIZE: 'NB_ERR_MAX_QUEUE_SIZE',
  NB_ERR_MAX_OPERATIONS: 'NB_ERR_MAX_OPERATIONS',
  NB_ERR_ACTIVE_CONTEXT: 'NB_ERR_ACTIVE_CONTEXT'
})

class NodebenchError extends TypeError {
  constructor (code, message) {
    super(message)
    this.name = 'NodebenchError'
    this.code = code
  }
}

function describe (value) {
  return inspect(value, { depth: 0, breakLength: Infinity, maxStringLength: 80 })
}

/** `invalidOption('sampleRatio', 2, 'a number from 0 to 1')` -> NB_ERR_SAMPLE_RATIO. */
function invalidOption (code, option, received, expected) {
  return new NodebenchError(code,
    `nodebenchTrace: option "${option}" must be ${expected}; received ${describe(received)}`)
}

module.exports = { codes, NodebenchError, invalidOption, describe }
