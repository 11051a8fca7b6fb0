'use strict'

const { PERCENTILES } = require('./data')
const { isNumber, processesText } = require('../../render/format')
const { chartSpec } = require('../../render/charts')

// The bench report's charts, as Vega-Lite specs (render/charts.js draws them as SVG). Each chart draws measured
// cells only; the failed cells it leaves out are returned beside it so the page can say so under the chart.

const FORMAT_COLORS = Object.freeze({ domain: ['html', 'json'], range: ['#f58518', '#4c78a8'] })

/** A scenario's cells by process count; swept cells (their values apart) are drawn by the sweep section. */
function cellsOf (summary, scenario, format) {
  return summary.cells.filter((c) => c.scenario === scenario && (format === undefined || c.format === format) &&
    Object.keys(c.values).length === 0)
}

function processLabels (cells) {
  return [...new Set(cells.map((c) => c.processes))].sort((a, b) => a - b).map(processesText)
}

/** 1. Latency percentile curves, one line per process count: one chart per operation and format. */
function latencyChart (summary, scenario, label, format) {
  const cells = cellsOf(summary, scenario, format)
  const drawn = cells.filter((c) => c.measured)
  const values = drawn.flatMap((c) => PERCENTILES.filter((p) => isNumber(c.latencyMs[p.key]))
    .map((p) => ({ percentile: p.label, ms: c.latencyMs[p.key], processes: processesText(c.processes) })))
  if (values.length === 0) return null
  return {
    kind: 'latency',
    scenario,
    format,
    title: `${label} (${format}): latency percentiles`,
    leftOut: cells.filter((c) => !c.measured),
    spec: chartSpec({
      title: { text: `${label} (${format}): latency percentiles`, subtitle: 'ms, one line per process count' },
      width: 340,
      height: 210,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'percentile', type: 'ordinal', sort: PERCENTILES.map((p) => p.label), title: 'percentile', axis: { labelAngle: 0 } },
        y: { field: 'ms', type: 'quantitative', title: 'latency (ms)' },
        // Not the formats' orange and blue: here colour is the process count.
        // The same colour for a process count in every chart: the domain is every count of the run.
        color: { field: 'processes', type: 'ordinal', scale: { domain: summary.processes.map(processesText), scheme: { name: 'viridis', extent: [0, 0.75] } }, title: 'processes' }
      }
    })
  }
}

/** 2. Requests/s against processes, an HTML and a JSON line (min-max rules over repetitions): one per operation. */
function throughputChart (summary, scenario, label) {
  const series = summary.throughput.filter((s) => s.scenario === scenario)
  const values = series.flatMap((s) => s.points.map((p) => ({
    processes: p.processes, format: s.format, mean: p.mean, min: p.min, max: p.max
  })))
  if (values.length === 0) return null
  const color = { field: 'format', type: 'nominal', scale: FORMAT_COLORS, title: 'format' }
  const x = { field: 'processes', type: 'ordinal', title: 'processes', axis: { labelAngle: 0 } }
  return {
    kind: 'throughput',
    scenario,
    title: `${label}: requests/s by processes`,
    leftOut: series.flatMap((s) => s.failed),
    spec: chartSpec({
      title: { text: `${label}: requests/s by processes`, subtitle: 'mean over repetitions; a rule spans min to max' },
      width: 300,
      height: 210,
      data: { values },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2 }, encoding: { x, y: { field: 'min', type: 'quantitative' }, y2: { field: 'max' }, color } },
        { mark: { type: 'line', point: true }, encoding: { x, y: { field: 'mean', type: 'quantitative', title: 'requests/s' }, color } }
      ]
    })
  }
}

/** The latency charts of every operation and format. */
function latencyCharts (summary) {
  return summary.scenarios.flatMap(({ name, label }) =>
    summary.formats.map((format) => latencyChart(summary, name, label, format))).filter(Boolean)
}

/** The throughput charts of every operation. */
function throughputCharts (summary) {
  return summary.scenarios.map(({ name, label }) => throughputChart(summary, name, label)).filter(Boolean)
}

module.exports = { cellsOf, processLabels, latencyCharts, throughputCharts, FORMAT_COLORS }
