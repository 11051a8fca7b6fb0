'use strict'

const { breakdownFromJaeger, breakdownFromApp, breakdownFromPrometheus, parseSince } = require('@nodebench/collector')
const { renderTable, renderMarkdown } = require('@nodebench/breakdown')
const { commandServices } = require('../service-table')

// `nodebench report --source jaeger|prometheus|app`: the same breakdown tables from the traces Jaeger holds
// or the metrics Prometheus holds (any number of processes and machines), or from one app's expose path.

const DEFAULT_PROMETHEUS_URL = 'http://localhost:9090'

async function runReportCommand (parsed, { stdout, stderr, env }) {
  const progress = (message) => stderr.write(`nodebench report: ${message}\n`)
  let snapshot
  if (parsed.source === 'app') {
    progress(`reading ${parsed.url}`)
    snapshot = await breakdownFromApp({ url: parsed.url, headers: parsed.headers })
  } else if (parsed.source === 'prometheus') {
    const url = parsed.url ?? (await commandServices().serviceStatus('prometheus', { env })).uri ?? DEFAULT_PROMETHEUS_URL
    const since = parseSince(parsed.since)
    progress(`reading the metrics of "${parsed.service}" since ${since.toISOString()} from Prometheus at ${url}`)
    snapshot = await breakdownFromPrometheus({ url, service: parsed.service, since })
  } else {
    const since = parseSince(parsed.since)
    progress(`reading traces of "${parsed.service}" since ${since.toISOString()} from Jaeger at ${parsed.jaeger}`)
    snapshot = await breakdownFromJaeger({
      url: parsed.jaeger,
      service: parsed.service,
      since,
      onProgress: ({ traces, from, to }) => progress(`${traces} traces from ${from.toISOString()} to ${to.toISOString()}`)
    })
  }
  if (parsed.format === 'json') {
    stdout.write(JSON.stringify(snapshot, null, 2) + '\n')
    return 0
  }
  const render = parsed.format === 'md' ? renderMarkdown : (s) => renderTable(s, { color: false })
  stdout.write(render(snapshot) + '\n')
  if (snapshot.source === 'jaeger') stdout.write(renderExemplars(snapshot, parsed.jaeger, parsed.format === 'md'))
  if (snapshot.source === 'prometheus') stdout.write(renderInstances(snapshot, parsed.format === 'md'))
  return 0
}

/** The instances a breakdown from Prometheus covered, and how many requests each served in the window. */
function renderInstances (snapshot, markdown) {
  const lines = [markdown
    ? `\n## Instances (${snapshot.window.since} to ${snapshot.window.until})\n`
    : `Instances (${snapshot.window.since} to ${snapshot.window.until}):`]
  for (const instance of snapshot.instances) {
    const where = [instance.address, instance.host, instance.pid === null ? null : `pid ${instance.pid}`].filter(Boolean).join(', ')
    const text = `${instance.id}${where ? ` (${where})` : ''}: ${instance.requests} requests`
    lines.push(markdown ? `- ${text}` : `  ${text}`)
  }
  return lines.join('\n') + '\n'
}

/** Per operation, links to a median request's trace and the slowest one in Jaeger's UI. */
function renderExemplars (snapshot, jaegerUrl, markdown) {
  const base = jaegerUrl.replace(/\/$/, '')
  const lines = [markdown ? '\n## Traces\n' : '\nTraces (Jaeger UI):']
  for (const operation of snapshot.operations) {
    if (!operation.exemplars) continue
    const name = `${operation.method} ${operation.route} [${operation.format}]`
    const median = `${base}/trace/${operation.exemplars.median}`
    const slowest = `${base}/trace/${operation.exemplars.slowest}`
    lines.push(markdown
      ? `- ${name}: [median](${median}), [slowest](${slowest})`
      : `  ${name}\n    median  ${median}\n    slowest ${slowest}`)
  }
  return lines.join('\n') + '\n'
}

module.exports = { runReportCommand, renderExemplars, renderInstances }
