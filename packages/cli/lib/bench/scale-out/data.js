'use strict'

const { isNumber } = require('../../render/format')
const { scaleOutFindings, scaleOutNotes } = require('./findings')

// The figures of the bench report's scale-out section: the topologies beside each other at the same process
// counts (node:cluster against independent instances behind nginx), the TU Berlin study's figures beside the
// run's, --find-max's highest error-free throughput, failures by class, and the elasticity runs (instances added
// or killed mid-run) second by second. Everything is computed from the summary's cells (cells/data.js); a run
// without any of it has no such section.

function measured (cell) {
  return cell && cell.measured ? cell : null
}

/** The scale-out reference of a scenario (the workload's `reference.scaleOut`), or null. */
function studyOf (summary, scenario) {
  const described = summary.workload.scenarios[scenario]
  const scaleOut = described && described.reference && described.reference.scaleOut
  return scaleOut && typeof scaleOut === 'object' ? scaleOut : null
}

/** Rows of requests/s per operation, format and process count: each topology's, and nginx over cluster. */
function topologyRows (summary) {
  const rows = []
  const keys = new Set(summary.allCells.map((c) => `${c.scenario}\u0000${c.format}\u0000${c.processes}`))
  for (const key of keys) {
    const [scenario, format, processesText] = key.split('\u0000')
    const processes = Number(processesText)
    const of = (topology) => summary.allCells.find((c) => c.scenario === scenario && c.format === format &&
      c.processes === processes && c.topology === topology) ?? null
    const cluster = of('cluster')
    const nginx = of('nginx')
    const label = (cluster ?? nginx).label
    rows.push({
      scenario,
      label,
      format,
      processes,
      cluster,
      nginx,
      nginxOverCluster: measured(cluster) && measured(nginx)
        ? nginx.requestsPerSec.mean / cluster.requestsPerSec.mean
        : null
    })
  }
  const text = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
  return rows.sort((a, b) => text(a.label, b.label) || text(a.format, b.format) || a.processes - b.processes)
}

/** Behind nginx, each instance count's throughput over the lowest one's, beside the study's gain. */
function studyRows (summary) {
  const rows = []
  const series = new Map()
  for (const cell of summary.allCells) {
    if (cell.topology !== 'nginx' || !cell.measured || studyOf(summary, cell.scenario) === null) continue
    const key = `${cell.scenario} ${cell.format}`
    if (!series.has(key)) series.set(key, [])
    series.get(key).push(cell)
  }
  for (const cells of series.values()) {
    cells.sort((a, b) => a.processes - b.processes)
    const [first] = cells
    const gains = studyOf(summary, first.scenario).oneMachine?.throughputGain ?? {}
    for (const cell of cells.slice(1)) {
      const known = isNumber(gains[cell.processes]) && isNumber(gains[first.processes])
      const study = known ? gains[cell.processes] / gains[first.processes] : null
      rows.push({
        label: first.label,
        format: first.format,
        from: first.processes,
        to: cell.processes,
        gain: cell.requestsPerSec.mean / first.requestsPerSec.mean,
        study
      })
    }
  }
  return rows
}

/** Everything the section shows; `present` false when the run has none of it. */
function scaleOutOf (summary) {
  const cells = summary.allCells
  const nginxCells = cells.filter((c) => c.topology === 'nginx')
  const findMax = cells.filter((c) => c.findMax !== null && !c.failed)
  // Each repetition with events: its timeline, and `events` the analysis (elasticity.js: { events, traffic }).
  const elasticity = cells.flatMap((cell) => cell.elasticity.map(({ rep, timeline, elasticity: events }) =>
    ({ cell, rep, timeline, events })))
  const failing = cells.filter((c) => Object.keys(c.failures).length > 0)
  const topologies = topologyRows(summary)
  const study = studyRows(summary)
  const studied = cells.find((c) => studyOf(summary, c.scenario) !== null)
  const scaleOut = {
    present: nginxCells.length > 0 || findMax.length > 0 || elasticity.length > 0,
    compared: summary.topologies.length > 1,
    topologies,
    study,
    // The study's scale-out reference of the run's first scenario that has one (what the notes cite), or null.
    reference: studied === undefined ? null : studyOf(summary, studied.scenario),
    findMax,
    failing,
    elasticity
  }
  scaleOut.findings = scaleOutFindings(summary, scaleOut)
  scaleOut.notes = scaleOutNotes(summary, scaleOut)
  return scaleOut
}

module.exports = { scaleOutOf, measured }
