'use strict'

const { processesText } = require('../../render/format')
const { valuesText } = require('../../kernel/sweep')
const { scenarioLabel } = require('../scenario-label')

// The figures of the report's section on what each process used while a cell's load ran
// (kernel/process-sampler.js): per cell, every process with its role, CPU% and resident memory, mean and max (the
// KIT study's Tables I and II). A role of many processes (Apache's prefork pool) is one row, its processes'
// figures summed at each sample.

// Past this many processes of one role, the role is one row.
const ROLE_ROWS_ABOVE = 8

/** A cell's title: its scenario, format, target and processes. */
function cellTitle (cell, labels) {
  const label = scenarioLabel(labels, cell.scenario)
  const servers = cell.processes === null ? 'its prefork pool' : cell.topology === 'nginx' ? `${cell.processes} behind nginx` : processesText(cell.processes)
  const { processes, ...values } = cell.values && typeof cell.values === 'object' ? cell.values : {}
  const valuesPart = Object.keys(values).length ? `${valuesText(values)}, ` : ''
  return `${label} (${cell.format}), ${valuesPart}${cell.target ?? 'app'}, ${servers}`
}

/** The rows of a cell's resources: a process each, or a role's total when it has many. */
function resourceRows (resources) {
  const roles = Array.isArray(resources.roles) ? resources.roles : []
  const many = new Set(roles.filter((role) => role.processes > ROLE_ROWS_ABOVE).map((role) => role.role))
  const rows = []
  for (const role of roles) {
    if (many.has(role.role)) {
      rows.push({ name: `${role.role} (${role.processes} processes, summed)`, pid: '-', cpu: role.cpuPercent, rss: role.rssBytes })
      continue
    }
    for (const process of (resources.processes ?? []).filter((p) => p.role === role.role)) {
      rows.push({ name: process.name, pid: String(process.pid), cpu: process.cpuPercent, rss: process.rssBytes })
    }
  }
  return rows
}

/** The cells with sampled resources, each with its title and rows. */
function processesSummary (results) {
  const labels = (results.workload && results.workload.scenarios) || {}
  const cells = [...(results.cells ?? []), ...(results.targetCells ?? [])]
    .filter((cell) => cell.resources && Array.isArray(cell.resources.processes) && cell.resources.processes.length > 0)
  return cells.map((cell) => ({
    title: cellTitle(cell, labels),
    scenario: cell.scenario,
    format: cell.format,
    intervalMs: cell.resources.intervalMs,
    samples: cell.resources.samples,
    durationSec: cell.resources.durationSec,
    error: cell.resources.error ?? null,
    rows: resourceRows(cell.resources)
  }))
}

module.exports = { processesSummary }
