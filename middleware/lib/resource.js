'use strict'

const os = require('os')
const fs = require('fs')

// The resource of nodebench's spans: what NodeSDK detects (OTEL_RESOURCE_ATTRIBUTES, process, host, OS,
// service instance id) plus the service name, through @opentelemetry/resources. Made when nodebenchTrace()
// is called, so it is complete before the first batch is sent: made later, the first export waited for it
// (~25-65 ms) while the queue behind it filled, and spans were dropped (collector/test/jaeger-outage.test.js).
//
// One detector is nodebench's own: on Linux, host.id is the machine id read synchronously from the same files
// OpenTelemetry's host detector reads. That detector loads its platform module with import(), which on
// Node.js 20 starts the ESM loader in a CommonJS app (~10 ms of work spread over the next ~60 ms): it landed on
// the app's first and second requests (+0.7 and +2 ms, benchmarks/first-request.js). host.name and host.arch
// are what that detector reports (os.hostname(), os.arch() in the spec's names); elsewhere its own is used.

const MACHINE_ID_FILES = Object.freeze(['/etc/machine-id', '/var/lib/dbus/machine-id'])

/** os.arch() in the names of the host semantic conventions, as OpenTelemetry's host detector maps them. */
function hostArch (arch) {
  if (arch === 'arm') return 'arm32'
  if (arch === 'ppc') return 'ppc32'
  if (arch === 'x64') return 'amd64'
  return arch
}

function machineId (files = MACHINE_ID_FILES) {
  for (const file of files) {
    try {
      return fs.readFileSync(file, 'utf8').trim()
    } catch {}
  }
  return undefined
}

const linuxHostDetector = Object.freeze({
  detect () {
    return { attributes: { 'host.name': os.hostname(), 'host.arch': hostArch(os.arch()), 'host.id': machineId() } }
  }
})

const byServiceName = new Map()

/** The resource for `serviceName`, detected once per process and name. */
function detectResource (serviceName) {
  let resource = byServiceName.get(serviceName)
  if (resource === undefined) {
    const resources = require('@opentelemetry/resources')
    const hostDetector = process.platform === 'linux' ? linuxHostDetector : resources.hostDetector
    resource = resources.defaultResource()
      .merge(resources.detectResources({
        // Later detectors win: OTEL_RESOURCE_ATTRIBUTES last, so what the user gives (a stable
        // service.instance.id, say a pod's name) is never replaced by what is detected.
        detectors: [
          resources.processDetector, hostDetector, resources.osDetector, resources.serviceInstanceIdDetector,
          resources.envDetector
        ]
      }))
      .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    byServiceName.set(serviceName, resource)
  }
  return resource
}

module.exports = { detectResource, linuxHostDetector, machineId, hostArch }
