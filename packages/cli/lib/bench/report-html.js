'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { summarize } = require('./report-data')
const { renderCharts, sweepCharts, targetCharts, targetPercentileCharts, processCharts } = require('./report-charts')
const { scaleOutOf } = require('./report-scale-out')
const { targetsSummary } = require('./report-targets')
const { processesSummary } = require('./report-processes')
const { sweepSummary } = require('./report-sweep')
const { ladderSentence } = require('./report-findings')
const tables = require('./report-tables')
const { htmlPage, section } = require('../render/page')
const { htmlTable } = require('../render/tables')
const { htmlList } = require('../render/findings')
const { chartGrid, renderCharts: renderSvgs } = require('../render/charts')
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

/** The servers measured side by side (report-targets.js): what each is, the ladder, the reference, each group. */
async function targetsSection (targets) {
  const parts = []
  if (targets.reference !== null && targets.reference.findings.length) {
    parts.push(`<p class="study">The study found (${escapeHtml(targets.reference.source)}):</p>`, htmlList(targets.reference.findings, 'study'))
  }
  parts.push(htmlTable(tables.targetTable(targets)))
  const ladders = targets.groups.filter((group) => group.ladder !== null)
  if (ladders.length) {
    parts.push('<h3>From bare Node.js to the traced app</h3>', '<p>Each step\'s cost per request is 1 / requests per second, what a ' +
      'request costs the server at saturation; the steps add up to the gap between bare node:http and the traced app.</p>')
    for (const group of ladders) parts.push(htmlList([ladderSentence(group, group.ladder)], 'findings'), htmlTable(tables.ladderTable(group.ladder)))
  }
  const reference = targets.reference === null ? null : tables.targetReferenceTable(targets)
  if (reference !== null) {
    parts.push(`<h3>${escapeHtml(targets.reference.table ?? 'The study')} beside this run</h3>`,
      `<p>${escapeHtml(`${targets.reference.source}${targets.reference.setup ? `: ${targets.reference.setup}` : ''}. Here: ${tables.targetGroupTitle(reference.group)}.`)}</p>`,
      htmlTable(reference))
  }
  if (targets.notes.length) parts.push(htmlList(targets.notes.map((text) => ({ text, kind: 'warn' })), 'notes'))
  const charts = await renderSvgs([...targetCharts(targets), ...targetPercentileCharts(targets)])
  parts.push(chartGrid(charts))
  for (const group of targets.groups) parts.push(`<h3>${escapeHtml(tables.targetGroupTitle(group))}</h3>`, htmlTable(tables.targetGroupTable(group)))
  return parts.join('\n')
}

/** Response time against each varied value, the study's comparisons beside it, what the cores can show. */
async function sweepSection (sweep) {
  const charts = await renderSvgs(sweepCharts(sweep))
  const parts = [htmlList(sweep.limits.map((text) => ({ text, kind: 'warn' })), 'notes'), chartGrid(charts)]
  for (const group of sweep.groups) {
    parts.push(`<h3>Response time against ${escapeHtml(group.over)} (mean ms per request)</h3>`, htmlTable(tables.sweepGroupTable(group)))
  }
  if (sweep.comparisons.length) {
    parts.push(`<h3>The study beside this run${sweep.source ? ` (${escapeHtml(sweep.source)})` : ''}</h3>`,
      '<p>Ratio: this run\'s response time over the other\'s; gain: how much faster (the other\'s time over this one\'s). ' +
      'A figure that needs more cores than this machine has is shown, not claimed.</p>', htmlTable(tables.sweepComparisonTable(sweep)))
  }
  if (sweep.resources.length) parts.push('<h3>Per-process load beside the study\'s tables</h3>', htmlTable(tables.sweepResourceTable(sweep)))
  return parts.join('\n')
}

/** Every process of every cell while its load ran (report-processes.js). */
async function processesSection (entries) {
  const charts = await renderSvgs(processCharts(entries))
  const parts = [chartGrid(charts)]
  for (const entry of entries) {
    parts.push(`<h3>${escapeHtml(entry.title)}</h3>`, `<p class="study">${escapeHtml(tables.samplingLine(entry))}</p>`, htmlTable(tables.processResourceTable(entry)))
  }
  return parts.join('\n')
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
  const targets = targetsSummary(results)
  const resources = processesSummary(results)
  const sweep = sweepSummary(summary, results)
  const parts = [
    { id: 'answer', nav: 'Where the time goes', html: answerSection(summary, charts) },
    { id: 'findings', nav: 'What this shows', html: section('findings', 'What this shows', htmlList(summary.findings, 'findings') + '\n' + (summary.reference.findings.length === 0 ? '' : `<p class="study">${escapeHtml(summary.reference.intro)}</p>` + htmlList(summary.reference.findings, 'study'))) },
    { id: 'limits', nav: 'What limits these figures', html: section('limits', 'What limits these figures', (htmlList(summary.notes, 'notes') || '<p>Nothing: every cell finished with 2xx responses only.</p>') + (sweep === null ? '' : htmlList(sweep.limits, 'notes'))) },
    ...(sweep === null ? [] : [{ id: 'sweep', nav: 'Sweeps', html: section('sweep', 'Sweeps: response time against the varied values', await sweepSection(sweep)) }]),
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
  // A run of other servers only (a workload without the app): none of the app's sections has anything to show.
  const serversOnly = summary.allCells.length === 0 && targets !== null
  if (serversOnly) parts.length = 0
  if (targets !== null) {
    const at = serversOnly ? 0 : parts.findIndex((part) => part.id === 'limits') + 1
    parts.splice(at, 0, { id: 'targets', nav: 'Servers side by side', html: section('targets', 'Servers side by side', await targetsSection(targets)) })
  }
  if (resources.length) parts.push({ id: 'processes', nav: 'CPU and memory by process', html: section('processes', 'CPU and memory by process', await processesSection(resources)) })
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
