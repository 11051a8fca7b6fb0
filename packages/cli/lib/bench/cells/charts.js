'use strict'

const { PERCENTILES } = require('./data')
const { isNumber, processesText, formatShare } = require('../../render/format')
const { chartSpec, renderCharts: renderSvgs } = require('../../render/charts')

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

/** Segment names in path order across cells, then `unattributed`: the colours' order. */
function segmentOrder (operations) {
  const firstOrder = new Map()
  for (const operation of operations) {
    for (const segment of operation.segments || []) {
      if (!firstOrder.has(segment.name) || segment.order < firstOrder.get(segment.name)) {
        firstOrder.set(segment.name, segment.order)
      }
    }
  }
  return [...firstOrder.entries()].sort((a, b) => a[1] - b[1]).map(([name]) => name).concat('unattributed')
}

/** 4. Stacked time shares, segments in path order then `unattributed`: one bar per process count. */
function timeShareChart (summary, scenario, label, format) {
  const cells = cellsOf(summary, scenario, format)
  const drawn = cells.filter((c) => c.measured && c.operation)
  if (drawn.length === 0) return null
  const values = drawn.flatMap((c) => {
    const top = c.top
    return [
      ...(c.operation.segments || []).map((s) => ({
        processes: processesText(c.processes),
        segment: s.name,
        order: s.order,
        share: Math.max(0, s.share),
        // The bar's label: the function that owns the time, named on its own segment.
        label: top && s.name === top.name && s.share === top.share ? `${s.name} ${formatShare(s.share)}` : null
      })),
      { processes: processesText(c.processes), segment: 'unattributed', order: Number.MAX_SAFE_INTEGER, share: Math.max(0, c.operation.unattributedShare || 0), label: null }
    ]
  })
  const labels = processLabels(drawn)
  return {
    kind: 'time-share',
    scenario,
    format,
    title: `${label} (${format}): where the time goes`,
    leftOut: cells.filter((c) => !c.measured || !c.operation),
    spec: chartSpec({
      title: { text: `${label} (${format}): where the time goes`, subtitle: 'share of response time per segment, in path order' },
      width: 340,
      height: Math.max(60, 34 * labels.length),
      data: { values },
      encoding: {
        y: { field: 'processes', type: 'ordinal', sort: labels, title: null }
      },
      layer: [
        {
          mark: { type: 'bar', clip: true },
          encoding: {
            x: { field: 'share', type: 'quantitative', stack: 'zero', scale: { domain: [0, 1] }, axis: { format: '%', values: [0, 0.25, 0.5, 0.75, 1] }, title: 'share of response time' },
            color: { field: 'segment', type: 'nominal', sort: segmentOrder(drawn.map((c) => c.operation)), scale: { scheme: 'tableau20' }, title: 'segment' },
            order: { field: 'order', type: 'quantitative' }
          }
        },
        {
          transform: [{ filter: 'isValid(datum.label)' }],
          mark: { type: 'text', align: 'left', dx: 6, color: '#202124', fontSize: 11 },
          encoding: { x: { datum: 0 }, text: { field: 'label' } }
        }
      ]
    })
  }
}

/** Every chart of the report, in the order the page shows them: where the time goes first, then the study's figures. */
function chartsOf (summary) {
  const charts = []
  const add = (chart) => chart && charts.push(chart)
  for (const { name, label } of summary.scenarios) {
    for (const format of summary.formats) add(timeShareChart(summary, name, label, format))
  }
  for (const { name, label } of summary.scenarios) {
    for (const format of summary.formats) add(latencyChart(summary, name, label, format))
  }
  for (const { name, label } of summary.scenarios) add(throughputChart(summary, name, label))
  if (summary.comparesFormats) {
    for (const { name, label } of summary.scenarios) add(htmlVsJsonChart(summary, name, label))
  }
  return charts
}

/** The charts of `summary`, each with its SVG: [{ kind, scenario, format, title, leftOut, spec, svg }]. */
function renderCharts (summary) {
  return renderSvgs(chartsOf(summary))
}

module.exports = { chartsOf, renderCharts }
