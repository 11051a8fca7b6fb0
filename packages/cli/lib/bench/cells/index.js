'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const tables = require('./tables')
const { renderCharts } = require('./charts')
const { renderTimeShares, renderOwners } = require('./text')
const { sweepOf } = require('../sweeps')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { htmlList, markdownList } = require('../../render/findings')
const { chartGrid } = require('../../render/charts')
const { processesText } = require('../../render/format')

// The app's cells in the report: where the time goes (the answer, first), what this shows, what limits the
// figures, the latency, throughput and HTML-against-JSON charts, the cells' table, the study beside the run,
// each cell's breakdown, and the machine and configuration. data.js summarizes results.json (`summarize`),
// findings.js says what it shows, tables.js, charts.js and text.js (the terminal's) show it. A section marked
// `app` has nothing to show in a run of other servers only.

const ANSWER_ABOUT = 'Which function owns each operation\'s response time: the segment with the largest share (its time / the ' +
  'operation\'s response time in the app), at the lowest process count measured; then each segment\'s share in path order, ' +
  'one bar per process count. Unattributed is Express\'s own routing, the gaps between layers and the socket flush.'

const BREAKDOWN_ABOUT = 'Share = the segment\'s time / the operation\'s response time in the app;'

/** The charts of the cells' sections, rendered once per report. */
function chartsOf (report) {
  if (!report.charts) report.charts = renderCharts(report.summary)
  return report.charts
}

function leftOutCaption (chart) {
  if (chart.leftOut.length === 0) return ''
  const reasons = chart.leftOut.map((cell) => (cell.failed ? `${cell.title} (failed: ${cell.failure})` : `${cell.title} (no figures)`))
  return `<figcaption class="left-out">Not drawn, and in no average: ${escapeHtml(reasons.join('; '))}.</figcaption>`
}

const itself = (report) => report

/** The answer, first on the page: who owns each operation's time, as a table and as stacked bars. */
const answerSection = Object.freeze({
  id: 'answer',
  nav: 'Where the time goes',
  app: true,
  of: itself,
  async html (report) {
    const owners = tables.ownerTable(report.summary)
    if (owners.rows.length === 0) {
      return section('answer', 'Where the time goes', '<p class="left-out">No measured cell has a breakdown of its operation: which function owns the time is not known.</p>')
    }
    const charts = await chartsOf(report)
    const bars = chartGrid(charts.filter((chart) => chart.kind === 'time-share'), leftOutCaption)
    return section('answer', 'Where the time goes', `<p>${escapeHtml(ANSWER_ABOUT)}</p>\n` +
      `<h3>At ${escapeHtml(processesText(owners.processes))}</h3>\n${htmlTable(owners, { bars: true })}\n${bars}`)
  },
  markdown (report) {
    const owners = tables.ownerTable(report.summary)
    return ['## Where the time goes\n', owners.rows.length === 0
      ? 'No measured cell has a breakdown of its operation: which function owns the time is not known.\n'
      : `The function that owns each operation's response time (the largest share), at ${processesText(owners.processes)}; ` +
        'the time-share charts are in report.html beside this file.\n\n' + markdownTable(owners)].join('\n')
  },
  /** Each measured operation's time shares and the function that owns its time. */
  text (report) {
    const { results } = report
    return results.cells.length === 0 ? '' : renderTimeShares(results) + '\n' + renderOwners(results)
  }
})

const findingsSection = Object.freeze({
  id: 'findings',
  nav: 'What this shows',
  app: true,
  of: itself,
  html ({ summary }) {
    return section('findings', 'What this shows', htmlList(summary.findings, 'findings') + '\n' + (summary.reference.findings.length === 0
      ? ''
      : `<p class="study">${escapeHtml(summary.reference.intro)}</p>` + htmlList(summary.reference.findings, 'study')))
  },
  markdown ({ summary }) {
    return ['## What this shows\n', markdownList(summary.findings), ...(summary.reference.findings.length === 0
      ? []
      : [`${escapeMarkdown(summary.reference.intro)}\n`, markdownList(summary.reference.findings)])].join('\n')
  }
})

/** What limits these figures: the cells' notes, and what the machine's cores limit of the sweeps. */
const limitsSection = Object.freeze({
  id: 'limits',
  nav: 'What limits these figures',
  app: true,
  of: itself,
  html (report) {
    const sweep = sweepOf(report)
    return section('limits', 'What limits these figures', (htmlList(report.summary.notes, 'notes') ||
      '<p>Nothing: every cell finished with 2xx responses only.</p>') + (sweep === null ? '' : htmlList(sweep.limits, 'notes')))
  },
  markdown (report) {
    const sweep = sweepOf(report)
    return ['## What limits these figures\n', markdownList(report.summary.notes) || 'Nothing: every cell finished with 2xx responses only.\n',
      ...(sweep === null ? [] : [markdownList(sweep.limits)])].join('\n')
  }
})

/** A section of charts of one kind (report.html only: report.md points to it). */
function chartsSection ({ kind, title, about, when = () => true }) {
  return Object.freeze({
    id: kind,
    nav: title,
    app: true,
    of: (report) => (when(report.summary) ? report : null),
    async html (report) {
      const charts = await chartsOf(report)
      const body = chartGrid(charts.filter((chart) => chart.kind === kind), leftOutCaption) ||
        '<p class="left-out">No measured cell to draw.</p>'
      return section(kind, title, `<p>${escapeHtml(about)}</p>\n${body}`)
    }
  })
}

const chartSections = Object.freeze([
  chartsSection({ kind: 'latency', title: 'Latency percentiles', about: 'Per operation and format: each percentile of latency as autocannon measured it, one line per process count.' }),
  chartsSection({ kind: 'throughput', title: 'Requests per second by processes', about: 'Per operation: each format\'s requests/s against the number of processes.' }),
  chartsSection({ kind: 'html-vs-json', title: 'HTML against JSON', about: 'Per operation and process count: requests/s and mean latency of each format side by side.', when: (summary) => summary.comparesFormats })
])

const cellsSection = Object.freeze({
  id: 'cells',
  nav: 'Cells',
  app: true,
  of: itself,
  html: ({ summary }) => section('cells', 'Cells', htmlTable(tables.cellTable(summary))),
  markdown: ({ summary }) => ['## Cells\n', markdownTable(tables.cellTable(summary))].join('\n')
})

/** The workload's reference (a study) beside the run: JSON against HTML, its Table 1, who owns the time, sizes. */
const studySection = Object.freeze({
  id: 'study',
  nav: 'Comparison with the study',
  app: true,
  of: (report) => (report.summary.hasReference ? report.summary : null),
  html (summary) {
    return section('study', 'Comparison with the study', [
      ...(summary.comparesFormats ? ['<h3>JSON against HTML</h3>', htmlTable(tables.throughputTable(summary))] : []),
      '<h3>Table 1: the share of response time of the study\'s longest-running function</h3>', htmlTable(tables.table1Table(summary)),
      '<h3>Which function owns the time</h3>', htmlTable(tables.dominanceTable(summary)),
      '<h3>Response sizes</h3>', htmlTable(tables.responseSizeTable(summary))
    ].join('\n'))
  },
  markdown (summary) {
    return [
      '## Comparison with the study\n',
      ...(summary.comparesFormats ? ['### JSON against HTML\n', markdownTable(tables.throughputTable(summary))] : []),
      '### Table 1: the share of response time of the study\'s longest-running function\n',
      markdownTable(tables.table1Table(summary)),
      '### Which function owns the time\n',
      markdownTable(tables.dominanceTable(summary)),
      '### Response sizes\n',
      markdownTable(tables.responseSizeTable(summary))
    ].join('\n')
  }
})

/** Each cell's breakdown: its operation's segments and their shares. */
const breakdownsSection = Object.freeze({
  id: 'breakdowns',
  nav: 'Breakdowns',
  app: true,
  of: (report) => report.summary,
  html (summary) {
    const cells = summary.allCells.map((cell) => {
      const title = `<h3>${escapeHtml(cell.title)}</h3>`
      if (cell.failed) return `${title}<p class="left-out"><strong>failed</strong>: ${escapeHtml(cell.failure)}</p>`
      if (!cell.operation) return `${title}<p>No breakdown of this operation was recorded.</p>`
      const others = tables.otherOperations(cell)
      return `${title}<p>${escapeHtml(tables.operationLine(cell))}</p>\n${htmlTable(tables.segmentTable(cell.operation), { bars: true })}` +
        (others.length ? `<p class="study">Also in this snapshot: ${escapeHtml(others.join('; '))}.</p>` : '')
    }).join('\n')
    return section('breakdowns', 'Breakdowns', `<p>${BREAKDOWN_ABOUT} <em>unattributed</em> is ` +
      'Express\'s own routing, the gaps between layers and the socket flush.</p>\n' + cells)
  },
  markdown (summary) {
    let out = ''
    for (const cell of summary.allCells) {
      out += `### ${escapeMarkdown(cell.title)}\n\n`
      if (cell.failed) {
        out += `**failed**: ${escapeMarkdown(cell.failure)}\n\n`
        continue
      }
      if (!cell.operation) {
        out += 'No breakdown of this operation was recorded.\n\n'
        continue
      }
      out += `${escapeMarkdown(tables.operationLine(cell))}\n\n${markdownTable(tables.segmentTable(cell.operation))}\n`
      const others = tables.otherOperations(cell)
      if (others.length) out += `Also in this snapshot: ${escapeMarkdown(others.join('; '))}.\n\n`
    }
    return ['## Where the time goes, cell by cell\n', `${BREAKDOWN_ABOUT} *unattributed* is Express's own routing, ` +
      'the gaps between layers and the socket flush.\n', out].join('\n')
  }
})

/** The machine and how the run was configured, last. */
const machineSection = Object.freeze({
  id: 'machine',
  nav: 'Machine and configuration',
  of: (report) => report.summary,
  html: (summary) => section('machine', 'Machine and configuration', htmlTable(tables.machineTable(summary)) + '\n' + htmlTable(tables.configTable(summary))),
  markdown: (summary) => ['## Machine\n', markdownTable(tables.machineTable(summary)), '## Configuration\n', markdownTable(tables.configTable(summary))].join('\n')
})

module.exports = {
  answerSection,
  findingsSection,
  limitsSection,
  chartSections,
  cellsSection,
  studySection,
  breakdownsSection,
  machineSection
}
