'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { ownerTable } = require('./tables')
const { timeShareCharts } = require('./charts')
const { renderTimeShares, renderOwners } = require('./text')
const { leftOutCaption } = require('../cells')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { chartGrid, renderCharts } = require('../../render/charts')
const { processesText } = require('../../render/format')

// Who owns each operation's time: the function with the largest share of its response time (dominant.js: a
// workload's `dominant` matched by name, alias or plain form), the report's answer, first on its page and in
// the terminal. tables.js, charts.js (the time shares as stacked bars) and text.js (the terminal's) show it;
// the summary's figures are cells/data.js's.

const ANSWER_ABOUT = 'Which function owns each operation\'s response time: the segment with the largest share (its time / the ' +
  'operation\'s response time in the app), at the lowest process count measured; then each segment\'s share in path order, ' +
  'one bar per process count. Unattributed is Express\'s own routing, the gaps between layers and the socket flush.'

/** The answer, first on the page: who owns each operation's time, as a table and as stacked bars. */
const answerSection = Object.freeze({
  id: 'answer',
  nav: 'Where the time goes',
  app: true,
  of: (report) => report,
  async html (report) {
    const owners = ownerTable(report.summary)
    if (owners.rows.length === 0) {
      return section('answer', 'Where the time goes', '<p class="left-out">No measured cell has a breakdown of its operation: which function owns the time is not known.</p>')
    }
    const bars = chartGrid(await renderCharts(timeShareCharts(report.summary)), leftOutCaption)
    return section('answer', 'Where the time goes', `<p>${escapeHtml(ANSWER_ABOUT)}</p>\n` +
      `<h3>At ${escapeHtml(processesText(owners.processes))}</h3>\n${htmlTable(owners, { bars: true })}\n${bars}`)
  },
  markdown (report) {
    const owners = ownerTable(report.summary)
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

module.exports = { answerSection }
