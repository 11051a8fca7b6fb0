'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { breakdownFromJaeger, breakdownFromApp, breakdownFromPrometheus, parseSince, readTrace, JaegerClient } = require('@nodebench/collector')
const { commandServices } = require('../kernel/service-table')
const { isNodebenchError } = require('@nodebench/errors')
const { renderReportPage } = require('./page')

// `runReport`, the report feature's API: the breakdown of a service read back from where it was recorded: the
// traces Jaeger holds or the metrics Prometheus holds (any number of processes and machines), or one app's
// expose path. The same snapshot as an app's own, rendered by the same tables (render.js). From Jaeger, each
// operation's exemplar requests (its slowest, a median one) are read whole and drawn as waterfalls on a page
// of its own, report.html (page.js): the Jaeger a checkout builds has no UI to open them in. `runTrace`: one
// trace's waterfall.

const DEFAULT_PROMETHEUS_URL = 'http://localhost:9090'

/** The snapshot `config` names (its source's), with `onProgress` hearing what is read. */
async function readSnapshot (config, { env, onProgress }) {
  if (config.source === 'app') {
    onProgress(`reading ${config.url}`)
    return breakdownFromApp({ url: config.url, headers: config.headers })
  }
  const since = parseSince(config.since)
  if (config.source === 'prometheus') {
    const url = config.prometheus ?? config.url ?? (await commandServices().serviceStatus('prometheus', { env })).uri ?? DEFAULT_PROMETHEUS_URL
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

/**
 * Each operation's exemplar traces, read whole (every process's spans): `{ [traceId]: waterfall }`. A trace that
 * cannot be read (Jaeger's memory store has dropped it since the search, say) is said on progress and left out;
 * the page says so where it would have been, and the breakdown is kept.
 */
async function readExemplars (snapshot, { url, onProgress }) {
  const exemplars = snapshot.operations.flatMap((o) => (o.exemplars ? [o.exemplars.slowest, o.exemplars.median] : []))
  const ids = [...new Set(exemplars)]
  onProgress(`reading ${ids.length} exemplar trace${ids.length === 1 ? '' : 's'} (each operation's slowest and a median one)`)
  const traces = {}
  for (const traceId of ids) {
    try {
      traces[traceId] = await readTrace({ url, traceId })
    } catch (err) {
      if (!isNodebenchError(err)) throw err
      onProgress(`trace ${traceId} left out of the page: ${err.message}`)
    }
  }
  return traces
}

/**
 * Resolves to `{ snapshot, traces, jaegerUi, page }` for `config`: `{ source: 'app', url, headers }`,
 * `{ source: 'prometheus', prometheus (its address; null: the prometheus service's, else localhost:9090), service,
 * since }` or `{ source: 'jaeger', jaeger, service, since }` (`since`: parseSince's text, e.g. '10m'), each with
 * `outDir` (where report.html goes; null: no page). `traces`: the exemplars' waterfalls by trace id (Jaeger; else {}),
 * `jaegerUi`: whether Jaeger's own UI answers there (else null), `page`: report.html's path, or null.
 */
async function runReport (config, { env = process.env, onProgress = () => {}, now = new Date() } = {}) {
  const snapshot = await readSnapshot(config, { env, onProgress })
  let traces = {}
  let jaegerUi = null
  if (config.source === 'jaeger') {
    traces = await readExemplars(snapshot, { url: config.jaeger, onProgress })
    jaegerUi = await new JaegerClient({ url: config.jaeger }).hasUi()
  }
  let page = null
  if (config.outDir) {
    fs.mkdirSync(config.outDir, { recursive: true })
    page = path.join(config.outDir, 'report.html')
    fs.writeFileSync(page, await renderReportPage(snapshot, { config, traces, jaegerUi, now }))
  }
  return { snapshot, traces, jaegerUi, page }
}

/** The waterfall of one trace (`{ jaeger, trace }`) as Jaeger holds it. */
function runTrace (config) {
  return readTrace({ url: config.jaeger, traceId: config.trace })
}

module.exports = { runReport, runTrace, readExemplars }
