'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { processesSummary } = require('./data')
const tables = require('./tables')
const { processCharts } = require('./charts')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { chartGrid, renderCharts } = require('../../render/charts')

// CPU and memory by process (kernel/process-sampler.js): every process of every cell while its load ran. data.js
// computes the rows, tables.js and charts.js show them; this is the report's section.

const TITLE = 'CPU and memory by process'

const processesSection = Object.freeze({
  id: 'processes',
  nav: TITLE,
  of (report) {
    const entries = processesSummary(report.results)
    return entries.length ? entries : null
  },
  async html (entries) {
    const charts = await renderCharts(processCharts(entries))
    const parts = [chartGrid(charts)]
    for (const entry of entries) {
      parts.push(`<h3>${escapeHtml(entry.title)}</h3>`, `<p class="study">${escapeHtml(tables.samplingLine(entry))}</p>`, htmlTable(tables.processResourceTable(entry)))
    }
    return section('processes', TITLE, parts.join('\n'))
  },
  markdown (entries) {
    return [`## ${TITLE}\n`, ...entries.flatMap((entry) => [
      `### ${escapeMarkdown(entry.title)}\n`, `${escapeMarkdown(tables.samplingLine(entry))}\n`, markdownTable(tables.processResourceTable(entry))
    ])].join('\n')
  }
})

module.exports = { processesSection }
