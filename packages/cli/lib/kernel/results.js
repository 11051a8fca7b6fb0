'use strict'

const { describeWorkload } = require('./workload')

// What a run's results.json holds, a bench run's and each side's of a paired run (which `nodebench compare a b`
// reads as bench's): its schema and its frame, filled in as the run goes.

// 3: a cell's operation counts the answers its scenario expects apart from its errors (`expectedErrors`, when
// it expects a 4xx or 5xx), and a cell names the first answer it did not expect (`firstUnexpected`).
// 2: every repetition carries its operations' figures (`reps[i].operations`, kernel/repetition.js), what
// nodebench compare needs; 1 had the breakdown of a cell only.
const RESULTS_SCHEMA = 3

/**
 * A run's results before its first cell: started at `started` (ms), measuring `workload`, `config` what it says
 * of its configuration. `cells` the app's; `targets` and `targetCells` the servers beside it (kernel/targets.js),
 * none for a paired run.
 */
function newResults ({ started, workload, config }) {
  return {
    schema: RESULTS_SCHEMA,
    createdAt: new Date(started).toISOString(),
    durationSec: 0,
    machine: null,
    workload: describeWorkload(workload),
    config,
    cells: [],
    targets: [],
    targetCells: []
  }
}

/** What a run's results say of its load plan (kernel/plan-options.js): bench's and a paired run's alike. */
function planOf (config) {
  return {
    scenarios: config.scenarios,
    formats: config.formats,
    processes: config.processes,
    reps: config.reps,
    amount: config.duration === null ? config.amounts : null,
    duration: config.duration,
    connections: config.connections,
    warmup: config.warmup
  }
}

module.exports = { newResults, planOf, RESULTS_SCHEMA }
