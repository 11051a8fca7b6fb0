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

const noticed = new Set()

/**
 * A notice the user acts on (not a failure): one line on stderr, `nodebench: ...`, once per process for each
 * `what`, as the line about a collector that does not answer (otlp-export.js).
 */
function notice (what, line) {
  if (noticed.has(what)) return
  noticed.add(what)
  try {
    process.stderr.write(`nodebench: ${line}\n`)
  } catch {}
}

module.exports = { reportInternalError, internalErrorCount, log, notice }
