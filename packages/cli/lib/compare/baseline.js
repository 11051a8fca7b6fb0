'use strict'

const { readRun, inputError } = require('./read-run')
const { displayPath } = require('../kernel/paths')

// `bench --baseline <results.json> [--fail-on <percent>]`: a stored run the new one is compared with, read and
// checked before any load, so that a run that cannot be compared fails at once (NB_ERR_COMPARE_INPUT, exit 2):
// unreadable, another workload, no cell in common, or another load on a cell in common. --fail-on is compare's.

/** `--fail-on <percent>` as a number from 0 to 1000; null without it. */
function failOnOf (values, usageError) {
  if (values['fail-on'] === undefined) return null
  const failOn = Number(values['fail-on'])
  if (String(values['fail-on']).trim() === '' || !Number.isFinite(failOn) || failOn < 0 || failOn > 1000) {
    throw usageError(`--fail-on must be a percentage from 0 to 1000 (e.g. 5); received '${values['fail-on']}'`)
  }
  return failOn
}

/** A cell's place in the plan: two runs' cells are the same cell when these match. */
function cellKey ({ scenario, format, processes, topology, values }) {
  return `${scenario}|${format}|${processes}|${topology ?? 'cluster'}|${JSON.stringify(values ?? {})}`
}

function loadText (connections, amount, duration) {
  return `${connections} connections, ${amount ?? duration} ${amount !== null && amount !== undefined ? 'requests' : 's'}`
}

/**
 * `{ baseline: { file, results }, failOn }` for a bench run of `config` whose app cells are `cells` (its plan's,
 * bench/matrix.js), or null without --baseline. `usageError`: the command's (bench's).
 */
function baselineOf (values, config, cells, usageError) {
  if (values.baseline === undefined) {
    if (values['fail-on'] !== undefined) throw usageError('--fail-on goes with --baseline <results.json>: a regression against a stored run')
    return null
  }
  const failOn = failOnOf(values, usageError)
  const { file, results } = readRun(values.baseline)
  const where = `--baseline ${displayPath(file)}`
  if (results.workload.name !== config.workload.name) {
    throw inputError(`${where} ran workload '${results.workload.name}', this run '${config.workload.name}': compare needs the same workload`)
  }
  const stored = new Map(results.cells.filter((cell) => cell.status === 'ok').map((cell) => [cellKey(cell), cell]))
  const common = cells.filter((cell) => stored.has(cellKey(cell)))
  if (common.length === 0) {
    throw inputError(`${where} measured no cell this run will (the same scenario, format, processes, topology and varied values)`)
  }
  // The same load on every common cell, checked now rather than after the run (compare-runs.js checks it again).
  for (const cell of common) {
    const before = stored.get(cellKey(cell))
    const was = loadText(before.connections, before.amount, before.duration)
    const connections = cell.values.connections ?? config.connections[cell.scenario]
    const now = loadText(connections, config.amounts[cell.scenario], config.duration)
    if (was !== now) throw inputError(`${where} sent ${cell.scenario} (${cell.format}) ${was} per repetition, this run would send ${now}: compare needs the same load`)
  }
  return { baseline: Object.freeze({ file, results }), failOn }
}

module.exports = { baselineOf, failOnOf }
