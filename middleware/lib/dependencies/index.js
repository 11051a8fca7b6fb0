'use strict'

const { enterRequestContext, leaveRequestContext, requestContextKind } = require('./calls')
const { observeHttpClients } = require('./http-client')
const { observeMongoDrivers } = require('./mongodb')
const { attributeCalls } = require('@nodebench/breakdown')
const { observeOtelClients } = require('./otel-client')
const { registeredTracerProvider } = require('../span-pipeline')
const { LazyTracerProvider } = require('../lazy-sdk')
const { dependencySpans } = require('./spans')
const { observeRendering } = require('./rendering')

// Dependencies inside a segment (docs/middleware.md): the calls a segment makes to a database or another
// service, timed in the request's async context and attributed to the segment open when each call starts.

/**
 * From the first nodebenchTrace() on: outgoing calls are heard, the MongoDB drivers loaded so far wrapped, and
 * the CLIENT spans of the TracerProvider the app registered observed.
 */
function startDependencies () {
  observeHttpClients()
  observeMongoDrivers()
  observeOtelClients(appTracerProvider())
}

/**
 * When nodebench finds the app (its first request): the drivers and the provider the app set up since, and how
 * its Express renders and serialises.
 */
function onAppFound (app) {
  observeRendering(app)
  observeMongoDrivers()
  observeOtelClients(appTracerProvider())
}

/** The TracerProvider the app registered, or null (none, or nodebench's own). */
function appTracerProvider () {
  const provider = registeredTracerProvider()
  return provider instanceof LazyTracerProvider ? null : provider
}

module.exports = {
  startDependencies,
  onAppFound,
  enterRequestContext,
  leaveRequestContext,
  requestContextKind,
  attributeCalls,
  dependencySpans
}
