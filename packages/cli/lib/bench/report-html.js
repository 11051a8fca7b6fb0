'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { summarize } = require('./report-data')
const { renderCharts } = require('./report-charts')
const { scaleOutOf } = require('./report-scale-out')
const tables = require('./report-tables')
const { htmlPage, section } = require('../render/page')
const { htmlTable } = require('../render/tables')
const { htmlList } = require('../render/findings')
const { chartGrid } = require('../render/charts')
const { processesText } = require('../render/format')

// report.html: the bench report as one page (render/page.js: self-contained, inline CSS and SVG). Every string
// from the results is escaped; the charts' SVG comes from Vega, which escapes its text. The sections of the
// passes run after the matrix (flame's, the browser's) are theirs: `sections` (report.js).

const CHART_GROUPS = Object.freeze([
  { kind: 'latency', id: 'latency', title: 'Latency percentiles', about: 'Per operation and format: each percentile of latency as autocannon measured it, one line per process count.' },
  { kind: 'throughput', id: 'throughput', title: 'Requests per second by processes', about: 'Per operation: each format\'s requests/s against the number of processes.' },
  { kind: 'html-vs-json', id: 'html-vs-json', title: 'HTML against JSON', about: 'Per operation and process count: requests/s and mean latency of each format side by side.', when: (summary) => summary.comparesFormats }
])

const ANSWER_ABOUT = 'Which function owns each operation\'s response time: the segment with the largest share (its time / the ' +
  'operation\'s response time in the app), at the lowest process count measured; then each segment\'s share in path order, ' +
  'one bar per process count. Unattributed is Express\'s own routing, the gaps between layers and the socket flush.'

/** The answer, first on the page: who owns each operation's time, as a table and as stacked bars. */
function answerSection (summary, charts) {
  const owners = tables.ownerTable(summary)
  if (owners.rows.length === 0) {
    return section('answer', 'Where the time goes', '<p class="left-out">No measured cell has a breakdown of its operation: which function owns the time is not known.</p>')
  }
  const bars = chartGrid(charts.filter((chart) => chart.kind === 'time-share'), leftOutCaption)
  return section('answer', 'Where the time goes', `<p>${escapeHtml(ANSWER_ABOUT)}</p>\n` +
    `<h3>At ${escapeHtml(processesText(owners.processes))}</h3>\n${htmlTable(owners, { bars: true })}\n${bars}`)
}

function leftOutCaption (chart) {
  if (chart.leftOut.length === 0) return ''
  const reasons = chart.leftOut.map((cell) => (cell.failed ? `${cell.title} (failed: ${cell.failure})` : `${cell.title} (no figures)`))
  return `<figcaption class="left-out">Not drawn, and in no average: ${escapeHtml(reasons.join('; '))}.</figcaption>`
}

function chartSection (group, charts) {
  const body = chartGrid(charts.filter((chart) => chart.kind === group.kind), leftOutCaption) ||
    '<p class="left-out">No measured cell to draw.</p>'
  return section(group.id, group.title, `<p>${escapeHtml(group.about)}</p>\n${body}`)
}

function breakdownSection (summary) {
  return summary.allCells.map((cell) => {
    const title = `<h3>${escapeHtml(cell.title)}</h3>`
    if (cell.failed) return `${title}<p class="left-out"><strong>failed</strong>: ${escapeHtml(cell.failure)}</p>`
    if (!cell.operation) return `${title}<p>No breakdown of this operation was recorded.</p>`
    const others = tables.otherOperations(cell)
    return `${title}<p>${escapeHtml(tables.operationLine(cell))}</p>\n${htmlTable(tables.segmentTable(cell.operation), { bars: true })}` +
      (others.length ? `<p class="study">Also in this snapshot: ${escapeHtml(others.join('; '))}.</p>` : '')
  }).join('\n')
}

/** Topologies, the TU Berlin study's figures, --find-max and the elasticity runs, with their charts. */
function scaleOutSection (scaleOut, charts) {
  const figures = (kind) => chartGrid(charts.filter((chart) => chart.kind === kind))
  const parts = [
    htmlList(scaleOut.findings, 'findings'),
    htmlList(scaleOut.notes.map((text) => ({ text, kind: 'warn' })), 'notes'),
    '<h3>Requests per second by topology</h3>', htmlTable(tables.topologyTable(scaleOut)), figures('topology')
  ]
  if (scaleOut.study.length) parts.push('<h3>Instances behind nginx, here and in the TU Berlin study</h3>', htmlTable(tables.studyTable(scaleOut)))
  if (scaleOut.findMax.length) {
    parts.push('<h3>Throughput at 0% errors (--find-max)</h3>', '<p>Connections doubled step by step until the first failure; ' +
      'the best step is the highest requests/s without one. The breakdown of such a cell covers every step.</p>',
    htmlTable(tables.findMaxTable(scaleOut)))
  }
  if (scaleOut.elasticity.length) {
    parts.push('<h3>Instances added and killed mid-run</h3>', htmlTable(tables.elasticityTable(scaleOut)), figures('elasticity'),
      '<h4>Requests per instance (nginx\'s log)</h4>', htmlTable(tables.instanceTable(scaleOut)))
  }
  return parts.filter(Boolean).join('\n')
}

/**
 * The bench report as one self-contained HTML page, charts rendered to inline SVG. `sections`: the passes'
 * (report.js), each shown when `results` holds its key.
 */
async function renderHtml (results, { sections = [] } = {}) {
  const summary = summarize(results)
  const charts = await renderCharts(summary)
  const scaleOut = scaleOutOf(summary)
  const app = summary.config.app || summary.config.cmd || summary.config.url || 'the app'
  const present = sections.filter((s) => results[s.key] !== undefined && results[s.key] !== null)
  const parts = [
    { id: 'answer', nav: 'Where the time goes', html: answerSection(summary, charts) },
    { id: 'findings', nav: 'What this shows', html: section('findings', 'What this shows', htmlList(summary.findings, 'findings') + '\n' + (summary.reference.findings.length === 0 ? '' : `<p class="study">${escapeHtml(summary.reference.intro)}</p>` + htmlList(summary.reference.findings, 'study'))) },
    { id: 'limits', nav: 'What limits these figures', html: section('limits', 'What limits these figures', htmlList(summary.notes, 'notes') || '<p>Nothing: every cell finished with 2xx responses only.</p>') },
    ...CHART_GROUPS.filter((group) => !group.when || group.when(summary))
      .map((group) => ({ id: group.id, nav: group.title, html: chartSection(group, charts) })),
    { id: 'cells', nav: 'Cells', html: section('cells', 'Cells', htmlTable(tables.cellTable(summary))) },
    ...(summary.hasReference
      ? [{
          id: 'study',
          nav: 'Comparison with the study',
          html: section('study', 'Comparison with the study', [
            ...(summary.comparesFormats ? ['<h3>JSON against HTML</h3>', htmlTable(tables.throughputTable(summary))] : []),
            '<h3>Table 1: the share of response time of the study\'s longest-running function</h3>', htmlTable(tables.table1Table(summary)),
            '<h3>Which function owns the time</h3>', htmlTable(tables.dominanceTable(summary)),
            '<h3>Response sizes</h3>', htmlTable(tables.responseSizeTable(summary))
          ].join('\n'))
        }]
      : []),
    ...(scaleOut.present
      ? [{ id: 'scale-out', nav: 'Scale-out', html: section('scale-out', 'Scale-out: topologies, throughput at 0% errors, elasticity', scaleOutSection(scaleOut, charts)) }]
      : []),
    {
      id: 'breakdowns',
      nav: 'Breakdowns',
      html: section('breakdowns', 'Breakdowns', '<p>Share = the segment\'s time / the operation\'s response time in the app; <em>unattributed</em> is ' +
        'Express\'s own routing, the gaps between layers and the socket flush.</p>\n' + breakdownSection(summary))
    }
  ]
  for (const extra of present) parts.push({ id: extra.id, nav: extra.nav, html: await extra.html(results[extra.key]) })
  parts.push({
    id: 'machine',
    nav: 'Machine and configuration',
    html: section('machine', 'Machine and configuration', htmlTable(tables.machineTable(summary)) + '\n' + htmlTable(tables.configTable(summary)))
  })
  return htmlPage({
    title: `nodebench bench report: ${app}`,
    headline: tables.headline(summary),
    nav: parts.map(({ id, nav }) => ({ id, title: nav })),
    body: parts.map((part) => part.html).join('\n')
  })
}

module.exports = { renderHtml }
