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
 * environment (the run's database); `log(message)`: progress.
 */
async function runPlan (config, { env, log = () => {} }, runCell) {
  const workload = config.workload
  if (workload.setup !== null) log(`preparing the workload (${path.basename(workload.file)} setup)`)
  const values = await runHook(workload.setup, 'setup', workload, { env, log, vary: config.sweep?.names ?? {} })
  const cells = cellsOf(config)
  for (const [index, cell] of cells.entries()) {
    if (await runCell(cell, { index, total: cells.length, values }) === STOP) break
  }
  await runHook(workload.teardown, 'teardown', workload, { env, log, values }).catch((err) => log(err.message))
}

module.exports = { cellsOf, targetsOf, runPlan, STOP }
