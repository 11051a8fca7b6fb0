'use strict'

const { enterRequestContext } = require('./calls')
const { observeHttpClients } = require('./http-client')
const { observeMongoDrivers } = require('./mongodb')
const { attributeCalls } = require('./attribution')
const { dependencySpans } = require('./spans')

// Dependencies inside a segment (docs/middleware.md): the calls a segment makes to a database or another
// service, timed in the request's async context and attributed to the segment open when each call starts.

/** From the first nodebenchTrace() on: outgoing calls are heard, and the MongoDB drivers loaded so far wrapped. */
function startDependencies () {
  observeHttpClients()
  observeMongoDrivers()
}

/** When nodebench finds the app (its first request): the drivers the app loaded since. */
function onAppFound () {
  observeMongoDrivers()
}

module.exports = { startDependencies, onAppFound, enterRequestContext, attributeCalls, dependencySpans }
