'use strict'

// The services the command knows: the embedded database (built into @nodebench/services) and Jaeger
// (from @nodebench/collector). Registered once, on first use, before arguments are checked against them.

const services = require('@nodebench/services')
const { jaegerService } = require('@nodebench/collector')

if (!services.serviceNames().includes('jaeger')) services.registerService('jaeger', jaegerService)

module.exports = services
