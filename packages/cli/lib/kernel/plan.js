'use strict'

const path = require('node:path')
const { targetOf } = require('./targets')
const { runHook } = require('./workload')

// The load plan of a run, bench's and compare's: its cells, scenarios x formats x processes x topologies x
// varied values (kernel/sweep.js) x targets (kernel/targets.js), in the order they run, and the run of them
// between the workload's setup and teardown. A configuration without topologies runs node:cluster; one without
// targets, the app alone. What a cell does (start, setup, warm-up, measure, teardown) is the strategy's: bench's
// matrix, compare's paired cells, each over cell.js's lifecycle. The options a plan is read from: plan-options.js.

// The app alone, when the configuration names no other target.
const APP_ONLY = Object.freeze([targetOf({ kind: 'app' })])

/**
 * The cells of the plan, in run order: process counts outermost (the slowest change), as the study; then each
 * scenario's combinations of varied values (kernel/sweep.js), the first name outermost; a scenario's targets
 * innermost, the app first (the bare servers serve its answer). Targets other than the app run once per process
 * count in the first topology (as node:cluster), Apache once (its prefork pool is its own). A scenario that varies
 * `processes` runs its own counts, once, instead of the run's.
 */
function cellsOf (config) {
  const cells = []
  for (const [processIndex, runProcesses] of config.processes.entries()) {
    for (const [topologyIndex, topology] of (config.topologies ?? ['cluster']).entries()) {
      for (const scenario of config.scenarios) {
        const formats = config.workload.scenarios[scenario].formats
        for (const format of config.formats) {
          if (!formats.includes(format)) continue
          for (const values of config.sweep?.byScenario[scenario] ?? [{}]) {
            if (values.processes !== undefined && processIndex > 0) continue
            const processes = values.processes ?? runProcesses
            const first = processIndex === 0 || values.processes !== undefined
            for (const target of targetsOf(config)) {
              if (target.kind === 'app') cells.push({ scenario, format, processes, topology, values, target })
              else if (target.kind === 'apache-php') {
                if (topologyIndex === 0 && first) cells.push({ scenario, format, processes: null, topology: 'prefork', values, target })
              } else if (topologyIndex === 0) cells.push({ scenario, format, processes, topology: 'cluster', values, target })
            }
          }
        }
      }
    }
  }
  return cells
}

/**
 * The plan's cells (cellsOf's, in order) as the steps a run takes: each cell alone, but with `paired`, an app
 * cell and its `app-untraced` baseline's of the same scenario, format, processes, topology and values as one step
 * at the app cell's place (their repetitions interleaved: bench/matrix.js). `[[{ cell, index }, ...]]`, each
 * cell's index its place in the run (the untraced cell's right after the app's).
 */
function stepsOf (cells, { paired = false } = {}) {
  // Each app cell's untraced partner, by their places in cellsOf's order (one partner each).
  const partnerOf = new Map()
  if (paired) {
    for (const [position, cell] of cells.entries()) {
      if (cell.target.kind !== 'app') continue
      const taken = new Set(partnerOf.values())
      const partner = cells.findIndex((other, i) => !taken.has(i) && sameCell(cell, other))
      if (partner !== -1) partnerOf.set(position, partner)
    }
  }
  const partners = new Set(partnerOf.values())
  const steps = []
  let index = 0
  for (const [position, cell] of cells.entries()) {
    if (partners.has(position)) continue
    const step = [{ cell, index: index++ }]
    if (partnerOf.has(position)) step.push({ cell: cells[partnerOf.get(position)], index: index++ })
    steps.push(step)
  }
  return steps
}

/** Whether `other` is the untraced app's cell in the same place as the app's `cell`. */
function sameCell (cell, other) {
  return other.target.kind === 'app-untraced' && other.scenario === cell.scenario && other.format === cell.format &&
    other.processes === cell.processes && other.topology === cell.topology &&
    JSON.stringify(other.values) === JSON.stringify(cell.values)
}

/** The servers a run measures: the configuration's, else the app alone. */
function targetsOf (config) {
  return config.targets ?? APP_ONLY
}

// What a cell's run resolves to when the run must stop (the next cells would fail the same way).
const STOP = Symbol('stop the run')

/**
 * Runs the plan of `config`: the workload's setup (given each varied name's values over the run, so that it seeds
 * for the largest), `runCell(cell, { index, total, values })` for each cell in order (`values`: the setup's) until
 * one resolves to STOP, then the workload's teardown (a failure logged, never thrown). `env`: the apps'
 * environment (the run's database); `log(message)`: progress. With `runPair`, an app cell and its untraced
 * baseline's (stepsOf) run as one step instead: `runPair([{ cell, index }, { cell, index }], { total, values })`.
 */
async function runPlan (config, { env, log = () => {}, runPair = null }, runCell) {
  const workload = config.workload
  if (workload.setup !== null) log(`preparing the workload (${path.basename(workload.file)} setup)`)
  const values = await runHook(workload.setup, 'setup', workload, { env, log, vary: config.sweep?.names ?? {} })
  const cells = cellsOf(config)
  for (const step of stepsOf(cells, { paired: runPair !== null })) {
    const [{ cell, index }] = step
    const outcome = step.length === 1
      ? await runCell(cell, { index, total: cells.length, values })
      : await runPair(step, { total: cells.length, values })
    if (outcome === STOP) break
  }
  await runHook(workload.teardown, 'teardown', workload, { env, log, values }).catch((err) => log(err.message))
}

module.exports = { cellsOf, stepsOf, targetsOf, runPlan, STOP }
