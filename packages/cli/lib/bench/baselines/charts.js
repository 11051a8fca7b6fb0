'use strict'

const { processesText } = require('../../render/format')
const { chartSpec } = require('../../render/charts')
const { AB_PERCENTILES } = require('../../kernel/load-observer')

// The charts of the servers side by side, as Vega-Lite specs (render/charts.js draws them).

/** Requests/s by target, one chart per scenario and format (a bar per target and process count). */
function targetCharts (summary) {
  const charts = new Map()
  for (const group of summary.groups) {
    const key = `${group.scenario} ${group.format}`
    if (!charts.has(key)) charts.set(key, { group, values: [] })
    for (const row of group.rows.filter((r) => r.ok)) {
      charts.get(key).values.push({ target: row.target.name, processes: group.processes === null ? 'its own' : processesText(group.processes), requestsPerSec: row.requestsPerSec })
    }
  }
  return [...charts.values()].filter(({ values }) => values.length > 0).map(({ group, values }) => ({
    kind: 'targets',
    scenario: group.scenario,
    format: group.format,
    title: `${group.label} (${group.format}): requests/s by server`,
    leftOut: [],
    spec: chartSpec({
      title: { text: `${group.label} (${group.format}): requests/s by server`, subtitle: 'one bar per target and process count' },
      width: 360,
      height: 200,
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'target', type: 'nominal', title: null, sort: summary.targets.map((t) => t.name) },
        yOffset: { field: 'processes', type: 'nominal' },
        x: { field: 'requestsPerSec', type: 'quantitative', title: 'requests/s' },
        color: { field: 'processes', type: 'nominal', title: 'processes', scale: { scheme: 'tableau10' } }
      }
    })
  }))
}

/** Latency percentiles (Apache Bench's) by target, one chart per group. */
function targetPercentileCharts (summary) {
  return summary.groups.map((group) => {
    const values = group.rows.filter((row) => row.ok && row.percentiles)
      .flatMap((row) => AB_PERCENTILES.map((p) => ({ target: row.target.name, percentile: `${p}%`, ms: row.percentiles[p] })))
    if (values.length === 0) return null
    const where = group.processes === null ? '' : `, ${processesText(group.processes)}`
    return {
      kind: 'target-percentiles',
      scenario: group.scenario,
      format: group.format,
      title: `${group.label} (${group.format})${where}: requests served within`,
      leftOut: [],
      spec: chartSpec({
        title: { text: `${group.label} (${group.format})${where}: requests served within`, subtitle: 'ms at each percentile (Apache Bench\'s), a line per target' },
        width: 360,
        height: 210,
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'percentile', type: 'ordinal', sort: AB_PERCENTILES.map((p) => `${p}%`), title: 'requests served within', axis: { labelAngle: 0 } },
          y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { type: 'symlog' } },
          color: { field: 'target', type: 'nominal', title: 'target', sort: summary.targets.map((t) => t.name) }
        }
      })
    }
  }).filter(Boolean)
}

module.exports = { targetCharts, targetPercentileCharts }
