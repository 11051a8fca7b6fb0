'use strict'

const { isNumber } = require('../../render/format')
const { chartSpec } = require('../../render/charts')

// The charts of CPU and memory by process, as Vega-Lite specs (render/charts.js draws them).

/** Mean CPU% by process (bar) and max (tick), one chart per cell. */
function processCharts (summary) {
  return summary.map((entry) => {
    const values = entry.rows.filter((row) => isNumber(row.cpu.mean))
      .map((row) => ({ process: row.name, mean: row.cpu.mean, max: row.cpu.max }))
    if (values.length === 0) return null
    const y = { field: 'process', type: 'nominal', title: null, sort: null }
    return {
      kind: 'processes',
      scenario: entry.scenario,
      format: entry.format,
      title: `${entry.title}: CPU by process`,
      leftOut: [],
      spec: chartSpec({
        title: { text: `${entry.title}: CPU by process`, subtitle: 'CPU % of one core while the load ran: mean (bar), max (tick)' },
        width: 340,
        height: { step: 16 },
        data: { values },
        layer: [
          { mark: { type: 'bar', color: '#4c78a8' }, encoding: { y, x: { field: 'mean', type: 'quantitative', title: 'CPU %' } } },
          { mark: { type: 'tick', color: '#e45756', thickness: 2 }, encoding: { y, x: { field: 'max', type: 'quantitative' } } }
        ]
      })
    }
  }).filter(Boolean)
}

module.exports = { processCharts }
