'use strict'

const { ensureGoBinary } = require('./lib/go-binary')
const { startLoggedChild } = require('./lib/processes')
const { readState: readServiceState, writeState: writeServiceState } = require('./lib/service-state')

// `@nodebench/services/components`: the building blocks of a component another package runs as a nodebench
// service (the collector's Jaeger and Prometheus, added with registerService): a Go program built once and
// cached by version, a child whose output goes to a log file, and the service's state file.

module.exports = { ensureGoBinary, startLoggedChild, readServiceState, writeServiceState }
