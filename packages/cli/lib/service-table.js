'use strict'

const services = require('@nodebench/services')
const { jaegerService } = require('@nodebench/collector')

// The services the command knows: the embedded database (built into @nodebench/services) and Jaeger
// (from @nodebench/collector), which the command adds to the services' registry when it first asks for them.

/** @nodebench/services with Jaeger registered: what `nodebench services` starts, stops and reports. */
function commandServices () {
  if (!services.serviceNames().includes('jaeger')) services.registerService('jaeger', jaegerService)
  return services
}

module.exports = { commandServices }
