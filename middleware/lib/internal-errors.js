'use strict'

const { debuglog } = require('util')

// A failure inside nodebench (a bug, a throwing exporter) must never reach the app. It is caught where it
// happens, counted, and described once per place through NODE_DEBUG=nodebench.
const log = debuglog('nodebench')
const reported = new Set()
let count = 0

function reportInternalError (where, err) {
  count++
  if (reported.has(where)) return
  reported.add(where)
  log('internal error in %s (further ones there are only counted): %s', where, err && err.stack ? err.stack : err)
}

function internalErrorCount () {
  return count
}

module.exports = { reportInternalError, internalErrorCount, log }
