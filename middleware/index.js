'use strict'

const { codes, NodebenchError } = require('./lib/errors')
const { switchedOff, untracedMiddleware } = require('./lib/untraced')

// nodebench's modules are loaded when it is first used, and not at all when NODEBENCH=off switches it off
// (lib/untraced.js): the app then loads only what it would load without nodebench, and a few small modules.

/** Times every layer of the Express app it is mounted in (lib/trace.js); the app untouched with NODEBENCH=off. */
function nodebenchTrace (options) {
  if (switchedOff()) return untracedMiddleware(options)
  return require('./lib/trace').nodebenchTrace(options)
}

/** In a node:cluster primary: merges the workers' breakdowns (lib/cluster-breakdown.js). */
function nodebenchPrimary (options) {
  return require('./lib/cluster-breakdown').nodebenchPrimary(options)
}

module.exports = {
  nodebenchTrace,
  nodebenchPrimary,
  errorCodes: codes,
  NodebenchError
}
