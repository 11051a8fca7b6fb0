'use strict'

const { scaleOutOf } = require('./data')
const tables = require('./tables')
const { topologyCharts, elasticityCharts } = require('./charts')
const { section } = require('../../render/page')
const { htmlTable, markdownTable } = require('../../render/tables')
const { htmlList, markdownList } = require('../../render/findings')
const { chartGrid, renderCharts } = require('../../render/charts')

// Scale-out: instances behind nginx beside node:cluster, the TU Berlin study's gains, --find-max's best step and
// the elasticity runs (instances added and killed mid-run; elasticity.js analyses their events). Its cells:
// config.js reads their options, find-max.js and events.js run what they add to a cell (bench/matrix.js calls
// them). Its report: data.js computes the figures, findings.js says them, tables.js and charts.js show them; this
// is the report's section.

const TITLE = 'Scale-out: topologies, throughput at 0% errors, elasticity'

/** The report's scale-out section; none for a run without nginx, --find-max or events. */
const scaleOutSection = Object.freeze({
  id: 'scale-out',
  nav: 'Scale-out',
  of (report) {
    const scaleOut = scaleOutOf(report.summary)
    return scaleOut.present ? scaleOut : null
  },
  async html (scaleOut) {
    const charts = await renderCharts([...topologyCharts(scaleOut), ...elasticityCharts(scaleOut)])
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
    return section('scale-out', TITLE, parts.filter(Boolean).join('\n'))
  },
  markdown (scaleOut) {
    const parts = [`## ${TITLE}\n`, markdownList(scaleOut.findings), ...(scaleOut.notes.length ? [markdownList(scaleOut.notes)] : []),
      '### Requests per second by topology\n', markdownTable(tables.topologyTable(scaleOut))]
    if (scaleOut.study.length) parts.push('### Instances behind nginx, here and in the TU Berlin study\n', markdownTable(tables.studyTable(scaleOut)))
    if (scaleOut.findMax.length) parts.push('### Throughput at 0% errors (--find-max)\n', markdownTable(tables.findMaxTable(scaleOut)))
    if (scaleOut.elasticity.length) {
      parts.push('### Instances added and killed mid-run\n', markdownTable(tables.elasticityTable(scaleOut)),
        '#### Requests per instance (nginx\'s log)\n', markdownTable(tables.instanceTable(scaleOut)))
    }
    return parts.join('\n')
  }
})

module.exports = { scaleOutSection }
