'use strict'

const { isNumber, processesText } = require('../render/format')
const { chartSpec } = require('../render/charts')
const { valuesText } = require('../kernel/sweep')

// The report's section on what each process used while a cell's load ran (kernel/process-sampler.js): a table
// per cell (every process with its role, CPU% and resident memory, mean and max: the KIT study's Tables I and
// II), and a chart of mean CPU% by process with its max. A role of many processes (Apache's prefork pool) is one
// row, its processes' figures summed at each sample.

// Past this many processes of one role, the role is one row.
const ROLE_ROWS_ABOVE = 8

function percent (value) {
  return isNumber(value) ? value.toFixed(1) : '-'
}

function mebibytes (bytes) {
  return isNumber(bytes) ? (bytes / 1024 ** 2).toFixed(1) : '-'
}

/** A cell's title: its scenario, format, target and processes. */
function cellTitle (cell, labels) {
  const label = (labels[cell.scenario] && labels[cell.scenario].label) || cell.scenario
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

function resourceTable (entry) {
  const head = ['process', 'pid', 'CPU % mean', 'CPU % max', 'RSS MiB mean', 'RSS MiB max']
  const rows = entry.rows.map((row) => ({
    cells: [row.name, row.pid, percent(row.cpu.mean), percent(row.cpu.max), mebibytes(row.rss.mean),
      mebibytes(row.rss.max)]
  }))
  return { head, rows }
}

/** How a cell was sampled, in one line. */
function samplingLine (entry) {
  return `${entry.samples} samples, one every ${entry.intervalMs / 1000} s over ${entry.durationSec} s of load; CPU % of one core ` +
    '(100 = one core busy), resident memory (a role\'s total counts the pages its processes share once per process)' +
    (entry.error ? `; sampling failed at times: ${entry.error}` : '')
}

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

module.exports = { processesSummary, resourceTable, samplingLine, processCharts }
