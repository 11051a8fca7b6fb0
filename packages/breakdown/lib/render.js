'use strict'

const Table = require('cli-table3')
const { escapeHtml, escapeMarkdown } = require('./escape')
const { htmlPage, section } = require('./page')

// Renderers return strings; callers decide where they go (stdout, a file, an HTTP response).

function percent (share) {
  return (share * 100).toFixed(2) + '%'
}

function ms (value) {
  // null: a figure the source cannot give (Prometheus's text format has no maximum).
  return value === null ? 'n/a' : value.toFixed(3)
}

function operationTitle (operation) {
  return `${operation.method} ${operation.route} [${operation.format}]`
}

function operationSummary (operation) {
  const rt = operation.responseTimeMs
  return `${operation.count} requests, ${operation.errors} errors, response time mean ${ms(rt.mean)} ms, ` +
    `p50 ${ms(rt.p50)}, p95 ${ms(rt.p95)}, p99 ${ms(rt.p99)}, max ${ms(rt.max)}`
}

/** Rows of one operation: its segments in path order, then `unattributed`. */
function segmentRows (operation) {
  const rows = operation.segments.map((segment) => [
    String(segment.order + 1),
    segment.name,
    segment.kind,
    String(segment.count),
    ms(segment.meanMs),
    ms(segment.p50Ms),
    ms(segment.p95Ms),
    ms(segment.p99Ms),
    percent(segment.share)
  ])
  rows.push(['', 'unattributed', '', '', '', '', '', '', percent(operation.unattributedShare)])
  return rows
}

/**
 * The terminal table's rows: each segment followed by the dependencies it waited on (`└ mongodb find users`,
 * calls per invocation of the segment, time waited per invocation, share of the response time), then
 * `unattributed`.
 */
function segmentRowsWithDependencies (operation) {
  return rowsWithDependencies(operation).map(({ row }) => row)
}

/**
 * The rows of segmentRowsWithDependencies, each with what it is of (`{ row, segment }` or `{ row, dependency }`;
 * neither: unattributed): the HTML page's titles and bars.
 */
function rowsWithDependencies (operation) {
  const rows = segmentRows(operation)
  const withDependencies = []
  operation.segments.forEach((segment, i) => {
    withDependencies.push({ row: rows[i], segment })
    for (const dependency of segment.dependencies ?? []) {
      withDependencies.push({
        row: [
          '',
          `  └ ${dependency.system} ${dependency.operation} ${dependency.target}`.trimEnd(),
          'dependency',
          `${dependency.count} ${dependency.count === 1 ? 'call' : 'calls'}`,
          ms(dependency.meanMs),
          '', '', '',
          percent(dependency.share)
        ],
        dependency
      })
    }
  })
  withDependencies.push({ row: rows[rows.length - 1] })
  return withDependencies
}

// No rule between body rows: one line per segment.
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }

const HEADER = ['#', 'segment', 'kind', 'count', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'share']

function emptyMessage (snapshot) {
  return `nodebench: no requests recorded for ${snapshot.service} since ${snapshot.since}\n`
}

/** A terminal table per operation. `color: false` gives plain text (files, CI logs). */
function renderTable (snapshot, { color = false } = {}) {
  if (snapshot.operations.length === 0) return emptyMessage(snapshot)
  const style = color ? { head: ['cyan'] } : { head: [], border: [] }
  let out = ''
  for (const operation of snapshot.operations) {
    const table = new Table({ head: HEADER, style, chars: COMPACT, colAligns: ['right', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'] })
    for (const row of segmentRowsWithDependencies(operation)) table.push(row)
    out += `${operationTitle(operation)}: ${operationSummary(operation)}\n${table.toString()}\n\n`
  }
  return out + droppedLine(snapshot)
}

function droppedLine (snapshot) {
  const dropped = snapshot.dropped || {}
  const parts = []
  if (dropped.spans) parts.push(`${dropped.spans} spans dropped (exporter queue full or export failed)`)
  if (dropped.operations) parts.push(`${dropped.operations} requests not counted (operation limit reached)`)
  return parts.length ? `nodebench: ${parts.join('; ')}\n` : ''
}

function renderMarkdown (snapshot) {
  if (snapshot.operations.length === 0) return emptyMessage(snapshot)
  let out = ''
  for (const operation of snapshot.operations) {
    out += `### ${escapeMarkdown(operationTitle(operation))}\n\n${operationSummary(operation)}\n\n`
    out += `| ${HEADER.join(' | ')} |\n|${HEADER.map((_, i) => (i === 1 || i === 2 ? '---' : '---:')).join('|')}|\n`
    for (const row of segmentRowsWithDependencies(operation)) out += `| ${row.map(escapeMarkdown).join(' | ')} |\n`
    out += '\n'
  }
  return out + droppedLine(snapshot)
}

// The page's own rule: the segment's name and kind read left-aligned.
const PAGE_STYLE = 'td.c1,td.c2,th:nth-child(2),th:nth-child(3){text-align:left}\n'

/** A self-contained HTML page (page.js, the reports' shell) with one table per operation. */
function renderHtml (snapshot) {
  const sections = snapshot.operations.map((operation, index) => {
    const rows = rowsWithDependencies(operation).map(({ row, segment, dependency }) => {
      const title = segment && segment.file ? ` title="${escapeHtml(segment.file + ':' + segment.line)}"` : ''
      const share = (segment ?? dependency)?.share ?? operation.unattributedShare
      return `<tr${title}>${row.map((cell, c) => `<td class="c${c}">${escapeHtml(cell)}</td>`).join('')}` +
        `<td class="bar"><span style="width:${share * 100}%"></span></td></tr>`
    }).join('\n')
    return section(`operation-${index + 1}`, operationTitle(operation), `<p>${escapeHtml(operationSummary(operation))}</p>
<table><thead><tr>${HEADER.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}<th></th></tr></thead><tbody>
${rows}
</tbody></table>`)
  }).join('\n')
  return htmlPage({
    title: `nodebench breakdown: ${snapshot.service}`,
    headline: `Process ${snapshot.pid}, since ${snapshot.since}. Share = the segment's time / the operation's response time; ` +
      'unattributed is Express\'s own routing, gaps between layers and the socket flush.',
    body: `${sections || `<p>${escapeHtml(emptyMessage(snapshot))}</p>`}\n<p>${escapeHtml(droppedLine(snapshot))}</p>`,
    style: PAGE_STYLE
  })
}

function renderJson (snapshot) {
  return JSON.stringify(snapshot, null, 2) + '\n'
}

module.exports = { renderTable, renderMarkdown, renderHtml, renderJson }
