'use strict'

const { renderTable, renderMarkdown } = require('@nodebench/breakdown')

// `report`'s output: the breakdown's tables (@nodebench/breakdown's renderers), and what each source adds: the
// instances a breakdown from Prometheus covered, links to exemplar traces in Jaeger's UI.

/** The snapshot for a terminal (`table`) or as Markdown (`md`), with its source's extras. */
function renderReport (snapshot, { format, jaeger }) {
  const markdown = format === 'md'
  let text = (markdown ? renderMarkdown(snapshot) : renderTable(snapshot, { color: false })) + '\n'
  if (snapshot.source === 'jaeger') text += renderExemplars(snapshot, jaeger, markdown)
  if (snapshot.source === 'prometheus') text += renderInstances(snapshot, markdown)
  return text
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

module.exports = { renderReport, renderExemplars, renderInstances }
