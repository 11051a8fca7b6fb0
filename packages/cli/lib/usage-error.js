'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')

/**
 * A command line nodebench does not understand: printed with the usage text, exit code 2. `command`, when
 * given, prefixes the message (`bench: --reps must be ...`).
 */
function usageError (message, command) {
  return new NodebenchError(codes.NB_ERR_USAGE, command === undefined ? message : `${command}: ${message}`)
}

module.exports = { usageError }
