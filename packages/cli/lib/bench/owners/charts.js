'use strict'

const { processesText, formatShare } = require('../../render/format')
const { chartSpec } = require('../../render/charts')
const { cellsOf, processLabels } = require('../cells/charts')

// Each operation's time shares as stacked bars, a Vega-Lite spec (render/charts.js draws it).

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

/** The time-share charts of every operation and format, where the time goes. */
function timeShareCharts (summary) {
  return summary.scenarios.flatMap(({ name, label }) =>
    summary.formats.map((format) => timeShareChart(summary, name, label, format))).filter(Boolean)
}

module.exports = { timeShareCharts }
