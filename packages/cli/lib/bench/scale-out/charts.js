'use strict'

const { measured } = require('./data')
const { chartSpec } = require('../../render/charts')

// The scale-out section's charts, as Vega-Lite specs (render/charts.js draws them).

const TOPOLOGY_COLORS = Object.freeze({ domain: ['cluster', 'nginx'], range: ['#4c78a8', '#e45756'] })

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

module.exports = { topologyCharts, elasticityCharts }
