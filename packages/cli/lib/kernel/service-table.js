'use strict'

const services = require('@nodebench/services')
const { jaegerService, prometheusService } = require('@nodebench/collector')

// The services the command knows: the embedded database (built into @nodebench/services), Jaeger and
// Prometheus (from @nodebench/collector), which the command adds to the services' registry when it first
// asks for them.

/** @nodebench/services with Jaeger and Prometheus registered: what `nodebench services` starts and stops. */
function commandServices () {
  if (!services.serviceNames().includes('jaeger')) services.registerService('jaeger', jaegerService)
  if (!services.serviceNames().includes('prometheus')) services.registerService('prometheus', prometheusService)
  return services
}

module.exports = { commandServices }
