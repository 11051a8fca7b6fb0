'use strict'

const { breakdownFromJaeger, breakdownFromApp, breakdownFromPrometheus, parseSince } = require('@nodebench/collector')
const { commandServices } = require('../kernel/service-table')

// `runReport`, the report feature's API: the breakdown of a service read back from where it was recorded: the
// traces Jaeger holds or the metrics Prometheus holds (any number of processes and machines), or one app's
// expose path. The same snapshot as an app's own, rendered by the same tables (render.js).

const DEFAULT_PROMETHEUS_URL = 'http://localhost:9090'

/**
 * Resolves to the breakdown snapshot `config` names: `{ source: 'app', url, headers }`, `{ source:
 * 'prometheus', url (null: the prometheus service's, else localhost:9090), service, since }` or `{ source:
 * 'jaeger', jaeger, service, since }` (`since`: parseSince's text, e.g. '10m'). `onProgress` hears what it reads.
 */
async function runReport (config, { env = process.env, onProgress = () => {} } = {}) {
  if (config.source === 'app') {
    onProgress(`reading ${config.url}`)
    return breakdownFromApp({ url: config.url, headers: config.headers })
  }
  const since = parseSince(config.since)
  if (config.source === 'prometheus') {
    const url = config.url ?? (await commandServices().serviceStatus('prometheus', { env })).uri ?? DEFAULT_PROMETHEUS_URL
    onProgress(`reading the metrics of "${config.service}" since ${since.toISOString()} from Prometheus at ${url}`)
    return breakdownFromPrometheus({ url, service: config.service, since })
  }
  onProgress(`reading traces of "${config.service}" since ${since.toISOString()} from Jaeger at ${config.jaeger}`)
  return breakdownFromJaeger({
    url: config.jaeger,
    service: config.service,
    since,
    onProgress: ({ traces, from, to }) => onProgress(`${traces} traces from ${from.toISOString()} to ${to.toISOString()}`)
  })
}

module.exports = { runReport }
