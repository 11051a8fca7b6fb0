'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const tables = require('./tables')
const { latencyCharts, throughputCharts } = require('./charts')
const { sweepOf } = require('../sweeps')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { htmlList, markdownList } = require('../../render/findings')
const { chartGrid, renderCharts } = require('../../render/charts')

// The app's cells in the report: what this shows, what limits the figures, the latency and throughput charts,
// the cells' table, each cell's breakdown, and the machine and configuration. data.js summarizes results.json
// (`summarize`, with the figures of owners/ and study/), findings.js says what it shows, tables.js and charts.js
// show it. A section marked `app` has nothing to show in a run of other servers only.

const BREAKDOWN_ABOUT = 'Share = the segment\'s time / the operation\'s response time in the app;'

function leftOutCaption (chart) {
  if (chart.leftOut.length === 0) return ''
  const reasons = chart.leftOut.map((cell) => (cell.failed ? `${cell.title} (failed: ${cell.failure})` : `${cell.title} (no figures)`))
  return `<figcaption class="left-out">Not drawn, and in no average: ${escapeHtml(reasons.join('; '))}.</figcaption>`
}

const itself = (report) => report

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

/** A section of charts of one kind, `charts(summary)` (report.html only: report.md points to it). */
function chartsSection ({ kind, title, about, charts, when = () => true }) {
  return Object.freeze({
    id: kind,
    nav: title,
    app: true,
    of: (report) => (when(report.summary) ? report.summary : null),
    async html (summary) {
      const body = chartGrid(await renderCharts(charts(summary)), leftOutCaption) || '<p class="left-out">No measured cell to draw.</p>'
      return section(kind, title, `<p>${escapeHtml(about)}</p>\n${body}`)
    }
  })
}

const latencySection = chartsSection({
  kind: 'latency',
  title: 'Latency percentiles',
  about: 'Per operation and format: each percentile of latency as autocannon measured it, one line per process count.',
  charts: latencyCharts
})

const throughputSection = chartsSection({
  kind: 'throughput',
  title: 'Requests per second by processes',
  about: 'Per operation: each format\'s requests/s against the number of processes.',
  charts: throughputCharts
})

const cellsSection = Object.freeze({
  id: 'cells',
  nav: 'Cells',
  app: true,
  of: itself,
  html: ({ summary }) => section('cells', 'Cells', htmlTable(tables.cellTable(summary))),
  markdown: ({ summary }) => ['## Cells\n', markdownTable(tables.cellTable(summary))].join('\n')
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
  findingsSection,
  limitsSection,
  latencySection,
  throughputSection,
  cellsSection,
  breakdownsSection,
  machineSection,
  chartsSection,
  leftOutCaption
}
