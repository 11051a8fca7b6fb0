'use strict'

const { PERCENTILES } = require('./report-data')
const { scaleOutOf, measured } = require('./report-scale-out')
const { isNumber, processesText, formatShare } = require('../render/format')
const { chartSpec, renderCharts: renderSvgs } = require('../render/charts')
const { AB_PERCENTILES } = require('../kernel/load-observer')

// The bench report's charts, as Vega-Lite specs (render/charts.js draws them as SVG). Each chart draws measured
// cells only; the failed cells it leaves out are returned beside it so the page can say so under the chart.

const FORMAT_COLORS = Object.freeze({ domain: ['html', 'json'], range: ['#f58518', '#4c78a8'] })
const TOPOLOGY_COLORS = Object.freeze({ domain: ['cluster', 'nginx'], range: ['#4c78a8', '#e45756'] })

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

// The scale-out section's charts (report-scale-out.js).

/** Requests/s by processes, a line per topology: one chart per operation and format (when both ran). */
function topologyCharts (scaleOut) {
  if (!scaleOut.compared) return []
  const groups = new Map()
  for (const row of scaleOut.topologies) {
    const key = `${row.label} (${row.format})`
    if (!groups.has(key)) groups.set(key, { scenario: row.scenario, format: row.format, values: [] })
    for (const [topology, cell] of [['cluster', row.cluster], ['nginx', row.nginx]]) {
      if (!measured(cell)) continue
      groups.get(key).values.push({ processes: row.processes, topology, requestsPerSec: cell.requestsPerSec.mean })
    }
  }
  return Array.from(groups, ([title, { scenario, format, values }]) => ({
    kind: 'topology',
    scenario,
    format,
    title: `${title}: node:cluster against nginx`,
    leftOut: [],
    spec: chartSpec({
      title: { text: `${title}: node:cluster against nginx`, subtitle: 'requests/s by processes (instances behind nginx)' },
      width: 300,
      height: 200,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'processes', type: 'ordinal', title: 'processes', axis: { labelAngle: 0 } },
        y: { field: 'requestsPerSec', type: 'quantitative', title: 'requests/s' },
        color: { field: 'topology', type: 'nominal', scale: TOPOLOGY_COLORS, title: 'topology' }
      }
    })
  })).filter((chart) => chart.spec.data.values.length > 0)
}

/** An elasticity repetition second by second: requests/s, p99 latency and failures, the events as rules. */
function elasticityCharts (scaleOut) {
  return scaleOut.elasticity.map(({ cell, rep, timeline, events }) => {
    const values = timeline.map((s) => ({
      second: s.second,
      requests: s.requests,
      p99: s.latencyMs === null ? null : s.latencyMs.p99,
      failures: Object.values(s.failures).reduce((sum, n) => sum + n, 0)
    }))
    const rules = events.events.map((event) => ({
      second: event.atSec, event: event.type === 'add' ? 'instance added' : 'instance killed'
    }))
    const eventColor = { domain: ['instance added', 'instance killed'], range: ['#54a24b', '#e45756'] }
    const x = { field: 'second', type: 'quantitative', title: 'seconds into the run', scale: { domain: [0, values.length] } }
    const most = Math.max(1, ...values.map((v) => v.failures))
    const panel = (field, title, mark, y = {}) => ({
      width: 560,
      height: 110,
      layer: [
        {
          data: { values },
          transform: [{ filter: `isValid(datum.${field})` }],
          mark,
          encoding: { x, y: { field, type: 'quantitative', title, ...y } }
        },
        {
          data: { values: rules },
          mark: { type: 'rule', strokeDash: [4, 3] },
          encoding: {
            x: { field: 'second', type: 'quantitative', scale: x.scale },
            color: { field: 'event', type: 'nominal', title: 'event', scale: eventColor }
          }
        }
      ]
    })
    return {
      kind: 'elasticity',
      scenario: cell.scenario,
      format: cell.format,
      title: `${cell.title}, repetition ${rep}: second by second`,
      leftOut: [],
      spec: chartSpec({
        title: { text: `${cell.title}, repetition ${rep}`, subtitle: 'per second: requests answered, p99 latency (ms), failures' },
        vconcat: [
          panel('requests', 'requests/s', { type: 'line', point: true }),
          panel('p99', 'p99 ms', { type: 'line', point: true, color: '#f58518' }),
          panel('failures', 'failures/s', { type: 'bar', color: '#e45756', width: 4 },
            { scale: { domain: [0, most] }, axis: { format: 'd', tickMinStep: 1 } })
        ]
      })
    }
  })
}

/** Every chart of the report, in the order the page shows them: where the time goes first, then the study's figures. */
function chartsOf (summary) {
  const scaleOut = scaleOutOf(summary)
  const charts = [...topologyCharts(scaleOut), ...elasticityCharts(scaleOut)]
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

// The sweep section's charts (report-sweep.js). They and the two sections' below are not in chartsOf: report-html.js
// draws each in its own section.

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

// The charts of the servers side by side (report-targets.js).

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

// The charts of CPU and memory by process (report-processes.js).

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

module.exports = { chartsOf, renderCharts, sweepCharts, targetCharts, targetPercentileCharts, processCharts }
