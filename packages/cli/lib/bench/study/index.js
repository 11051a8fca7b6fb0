'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const tables = require('./tables')
const { htmlVsJsonCharts } = require('./charts')
const { chartsSection } = require('../cells')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')

// The run beside its workload's reference (the 2017 study for examples/mongo-admin): JSON against HTML, the
// study's Table 1, which function owns the time, response sizes. data.js computes the figures (into the
// summary), findings.js checks the study's findings against them, tables.js and charts.js show them.

const WAITS_TITLE = 'Inside the study\'s function: the database and the rest'
const WAITS_ABOUT = 'How much of the function Table 1 measures was waiting on the database (and any other dependency it ' +
  'called): each part of the function\'s own time, so the database\'s share of the response time is the function\'s share ' +
  'times its part. The rest is the function\'s own code (rendering a page, serialising JSON) and its wait behind other requests.'

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
      ...(summary.functionWaits.length ? [`<h3>${WAITS_TITLE}</h3>`, `<p>${escapeHtml(WAITS_ABOUT)}</p>`, htmlTable(tables.functionWaitsTable(summary))] : []),
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
      ...(summary.functionWaits.length ? [`### ${WAITS_TITLE}\n`, `${WAITS_ABOUT}\n`, markdownTable(tables.functionWaitsTable(summary))] : []),
      '### Which function owns the time\n',
      markdownTable(tables.dominanceTable(summary)),
      '### Response sizes\n',
      markdownTable(tables.responseSizeTable(summary))
    ].join('\n')
  }
})

const htmlVsJsonSection = chartsSection({
  kind: 'html-vs-json',
  title: 'HTML against JSON',
  about: 'Per operation and process count: requests/s and mean latency of each format side by side.',
  charts: htmlVsJsonCharts,
  when: (summary) => summary.comparesFormats
})

module.exports = { studySection, htmlVsJsonSection }
