'use strict'

const { targetOf } = require('./targets')

// The load plan of a run, bench's and compare's: its cells, scenarios x formats x processes x topologies x
// varied values (kernel/sweep.js) x targets (kernel/targets.js), in the order they run. A configuration without
// topologies runs node:cluster; one without targets, the app alone.

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

module.exports = { cellsOf, targetsOf }
