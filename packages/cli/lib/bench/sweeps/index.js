'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { sweepSummary } = require('./data')
const tables = require('./tables')
const { sweepCharts } = require('./charts')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { htmlList, markdownList } = require('../../render/findings')
const { chartGrid, renderCharts } = require('../../render/charts')

// Sweeps (kernel/sweep.js: a scenario's values varied cell by cell): response time against the first varied
// value, the study's comparisons beside it, what the machine's cores can show. data.js computes the figures,
// findings.js says what the cores limit, tables.js and charts.js show them; this is the report's section (its
// limits are also among the report's, sweepOf).

const TITLE = 'Sweeps: response time against the varied values'

/** The sweeps' figures of a report (`{ results, summary }`), computed once; null for a run without any. */
function sweepOf (report) {
  if (!('sweep' in report)) report.sweep = sweepSummary(report.summary, report.results)
  return report.sweep
}

const sweepSection = Object.freeze({
  id: 'sweep',
  nav: 'Sweeps',
  of: sweepOf,
  async html (sweep) {
    const charts = await renderCharts(sweepCharts(sweep))
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
    return section('sweep', TITLE, parts.join('\n'))
  },
  markdown (sweep) {
    const parts = [`## ${TITLE}\n`, markdownList(sweep.limits)]
    for (const group of sweep.groups) {
      parts.push(`### Response time against ${escapeMarkdown(group.over)} (mean ms per request)\n`, markdownTable(tables.sweepGroupTable(group)))
    }
    if (sweep.comparisons.length) {
      parts.push(`### The study beside this run${sweep.source ? ` (${escapeMarkdown(sweep.source)})` : ''}\n`,
        'Ratio: this run\'s response time over the other\'s; gain: how much faster (the other\'s time over this one\'s). ' +
        'A figure that needs more cores than this machine has is shown, not claimed.\n', markdownTable(tables.sweepComparisonTable(sweep)))
    }
    if (sweep.resources.length) parts.push('### Per-process load beside the study\'s tables\n', markdownTable(tables.sweepResourceTable(sweep)))
    return parts.join('\n')
  }
})

module.exports = { sweepSection, sweepOf }
