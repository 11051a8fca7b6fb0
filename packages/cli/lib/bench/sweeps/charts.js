'use strict'

const { chartSpec } = require('../../render/charts')

// The sweep section's charts, as Vega-Lite specs (render/charts.js draws them).

/** Response time against each varied name: a line per series (log scales over wide ranges). */
function sweepCharts (sweep) {
  return sweep.groups.map((group) => {
    const values = group.series.flatMap((series) => [...series.points.values()].filter((point) => point.ms !== null)
      .map((point) => ({ series: series.name, x: point.x, ms: point.ms })))
    if (values.length === 0) return null
    const wide = group.xs[0] > 0 && group.xs[group.xs.length - 1] / group.xs[0] >= 20
    const title = `Response time against ${group.over}`
    return {
      kind: 'sweep',
      title,
      leftOut: [],
      spec: chartSpec({
        title: { text: title, subtitle: 'mean ms per request, one line per scenario and its other values' },
        width: 420,
        height: 240,
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: {
            field: 'x', type: 'quantitative', title: group.over, scale: wide ? { type: 'log' } : { zero: false }, axis: { values: group.xs }
          },
          y: { field: 'ms', type: 'quantitative', title: 'response time (ms)', scale: wide ? { type: 'log' } : {} },
          color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2, labelLimit: 300 } }
        }
      })
    }
  }).filter(Boolean)
}

module.exports = { sweepCharts }
