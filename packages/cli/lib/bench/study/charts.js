'use strict'

const { isNumber } = require('../../render/format')
const { chartSpec } = require('../../render/charts')
const { cellsOf, FORMAT_COLORS } = require('../cells/charts')

// HTML beside JSON as a Vega-Lite spec (render/charts.js draws it).

/** 3. HTML beside JSON per process count: grouped bars of requests/s and of mean latency, one per operation. */
function htmlVsJsonChart (summary, scenario, label) {
  const cells = cellsOf(summary, scenario)
  const values = cells.filter((c) => c.measured).map((c) => ({
    processes: c.processes,
    format: c.format,
    requestsPerSec: c.requestsPerSec.mean,
    latencyMeanMs: isNumber(c.latencyMs.mean) ? c.latencyMs.mean : null
  }))
  if (values.length === 0) return null
  const panel = (field, title) => ({
    width: 170,
    height: 200,
    transform: [{ filter: `isValid(datum.${field})` }],
    mark: 'bar',
    encoding: {
      x: { field: 'processes', type: 'ordinal', title: 'processes', axis: { labelAngle: 0 } },
      xOffset: { field: 'format', scale: { domain: FORMAT_COLORS.domain } },
      y: { field, type: 'quantitative', title },
      color: { field: 'format', type: 'nominal', scale: FORMAT_COLORS, title: 'format' }
    }
  })
  return {
    kind: 'html-vs-json',
    scenario,
    title: `${label}: HTML vs JSON`,
    leftOut: cells.filter((c) => !c.measured),
    spec: chartSpec({
      title: { text: `${label}: HTML vs JSON`, subtitle: 'requests/s (higher is better) and mean latency (lower is better)' },
      data: { values },
      hconcat: [panel('requestsPerSec', 'requests/s'), panel('latencyMeanMs', 'mean latency (ms)')]
    })
  }
}

/** HTML beside JSON for every operation, when the run measured both. */
function htmlVsJsonCharts (summary) {
  if (!summary.comparesFormats) return []
  return summary.scenarios.map(({ name, label }) => htmlVsJsonChart(summary, name, label)).filter(Boolean)
}

module.exports = { htmlVsJsonCharts }
