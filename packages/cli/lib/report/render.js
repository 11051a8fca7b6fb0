'use strict'

const { pathToFileURL } = require('node:url')
const { renderTable, renderMarkdown, escapeMarkdown } = require('@nodebench/breakdown')
const { markdownTable, textTable } = require('../render/tables')
const fanOut = require('../render/fan-out')

// `report`'s output: the breakdown's tables (@nodebench/breakdown's renderers), and what each source adds: the
// instances a breakdown from Prometheus covered, links to exemplar traces: on report.html, where they are drawn
// (page.js), and in Jaeger's UI only when one answers (a Jaeger built from its Go module has none).

/**
 * The snapshot for a terminal (`table`) or as Markdown (`md`), with its source's extras. `page`: report.html's
 * path (null: none written); `jaegerUi`: whether Jaeger's own UI answers at `jaeger`.
 */
function renderReport (snapshot, { format, jaeger, page = null, jaegerUi = false }) {
  const markdown = format === 'md'
  let text = (markdown ? renderMarkdown(snapshot) : renderTable(snapshot, { color: false })) + '\n'
  if (snapshot.fanOut) text += renderFanOut(snapshot.fanOut, markdown)
  if (snapshot.source === 'jaeger') text += renderExemplars(snapshot, { jaeger, page, jaegerUi, markdown })
  if (snapshot.source === 'prometheus') text += renderInstances(snapshot, markdown)
  return text
}

/** Per operation that called other processes: each process's share and segments, and the critical path. */
function renderFanOut ({ operations }, markdown) {
  const parts = [markdown ? '\n## Fan-out: the processes each request called\n' : '\nFan-out: the processes each request called']
  for (const operation of operations) {
    if (markdown) {
      parts.push(`### ${escapeMarkdown(fanOut.fanOutTitle(operation))}\n`, markdownTable(fanOut.calleeTable(operation)),
        `${escapeMarkdown(fanOut.criticalPathText(operation))}\n`, markdownTable(fanOut.criticalSegmentTable(operation)))
    } else {
      parts.push(`\n${fanOut.fanOutTitle(operation)}`, textTable(fanOut.calleeTable(operation)).trimEnd(), fanOut.criticalPathText(operation))
    }
  }
  parts.push(markdown ? `${escapeMarkdown(fanOut.FAN_OUT_ABOUT)}\n` : fanOut.FAN_OUT_ABOUT)
  return parts.join('\n') + '\n'
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

/**
 * Per operation, its slowest and a median request: where each is drawn (report.html#trace-<id>), the command that
 * prints it, and Jaeger's UI when one answers.
 */
function renderExemplars (snapshot, { jaeger, page, jaegerUi, markdown }) {
  const base = jaeger.replace(/\/$/, '')
  const pageUrl = page === null ? null : pathToFileURL(page).href
  const where = [pageUrl === null ? null : 'report.html', jaegerUi ? 'Jaeger\'s UI' : null].filter(Boolean)
  const lines = [markdown ? '\n## Traces\n' : `\nTraces${where.length ? ` (${where.join(', ')})` : ''}; print one with nodebench report --trace <id>:`]
  for (const operation of snapshot.operations) {
    if (!operation.exemplars) continue
    const name = `${operation.method} ${operation.route} [${operation.format}]`
    const links = (traceId) => [pageUrl === null ? null : `${pageUrl}#trace-${traceId}`, jaegerUi ? `${base}/trace/${traceId}` : null]
      .filter(Boolean)
    const { slowest, median } = operation.exemplars
    if (markdown) {
      const link = (label, traceId) => {
        const [first] = links(traceId)
        return first === undefined ? `${label} \`${traceId}\`` : `[${label}](${first})`
      }
      lines.push(`- ${name}: ${link('slowest', slowest)}, ${link('median', median)}`)
    } else {
      lines.push(`  ${name}`)
      for (const [label, traceId] of [['slowest', slowest], ['median ', median]]) lines.push(`    ${label} ${[traceId, ...links(traceId)].join('  ')}`)
    }
  }
  return lines.join('\n') + '\n'
}

module.exports = { renderReport, renderExemplars, renderInstances, renderFanOut }
