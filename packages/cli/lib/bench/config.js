'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { appTargetOf, workloadOf, nodeCommand } = require('../kernel/app-target')
const { loadPlanOf, processCountsOf } = require('../kernel/plan-options')
const { scaleOutOf, checkEvents } = require('./scale-out/config')
const { baselinesOf } = require('./baselines/config')
const { usageError, wholeNumber } = commandOptions('bench')

// `bench`'s options -> a frozen run configuration (what runBench takes). The app and the workload are named as
// for every command (kernel/app-target.js); the load plan (scenarios, formats, each one's load and sweeps) is
// read as compare reads it (kernel/plan-options.js); the topologies, --find-max and the instances added or killed
// mid-run are scale-out's (scale-out/config.js), the servers beside the app the baselines' (baselines/config.js).
// The default app is the study's (examples/mongo-admin), and so is the default matrix; `quick` is a preset that
// finishes in about a minute on a 2-core machine (what `npm run demo` runs).

// --quick: processes 1 and 2, one repetition, each scenario's quickAmount of requests.
const QUICK = Object.freeze({
  processes: [1, 2],
  reps: 1,
  warmup: 50
})
// The study's matrix: 1 to 8 processes, 5 repetitions.
const PROCESSES = Object.freeze([1, 2, 3, 4, 8])
const REPETITIONS = 5
const DEFAULT_WARMUP = 200

/**
 * The configuration of a bench run from option values: parseArgs' (`bench`'s command line) or the same names
 * from JavaScript (`{ scenarios: ['doc-read'], processes: [1, 2], quick: true }`). Throws NB_ERR_USAGE
 * (exit 2) for anything not understood.
 */
function benchConfig (values, { now = new Date() } = {}) {
  const target = appTargetOf(values, { command: 'bench' })
  const scaleOut = scaleOutOf(values, target)
  const workload = workloadOf(values, target)
  // The servers beside the app (baselines/config.js): the workload's, and the ceilings --baseline-targets adds.
  const { targets, targetNotes } = baselinesOf(values, workload, target)
  const quick = Boolean(values.quick)
  const plan = loadPlanOf(values, workload, { command: 'bench', quick, warmup: quick ? QUICK.warmup : DEFAULT_WARMUP, duration: scaleOut.stepSec })
  const { scenarios, formats } = plan
  const withoutCells = scenarios.filter((s) => !formats.some((f) => workload.scenarios[s].formats.includes(f)))
  if (withoutCells.length > 0) {
    const scenario = workload.scenarios[withoutCells[0]]
    throw usageError(`scenario '${scenario.name}' has format ${scenario.formats.join(', ')} only; --formats ${formats.join(',')} leaves it nothing to measure`)
  }
  checkEvents(scaleOut, plan.duration)
  // What the run says before it starts (stderr), once: what it will not measure and why.
  const notes = []
  let processes = processCountsOf(values, 'bench') ?? (quick ? [...QUICK.processes] : [...PROCESSES])
  if (target.app === null && scaleOut.topologies.includes('cluster') && !(target.cmd !== null && target.cmd.includes('{processes}'))) {
    // nodebench cannot change how many processes an app it does not start runs (behind nginx, each
    // instance is one process of the command).
    if (values.processes !== undefined && processes.length > 1) {
      throw usageError('several --processes need an app nodebench starts: --app, or --cmd with a {processes} placeholder')
    }
    if (!values.processes && processes.length > 1) {
      notes.push(`${quick ? '--quick' : 'the run'} measures ${processes.slice(0, -1).join(', ')} and ${processes[processes.length - 1]} processes, but ${target.cmd === null ? 'an app at --url' : '--cmd has no {processes}'}: ` +
        `only 1 process is measured${target.cmd === null ? '' : ' (put {processes} where your command takes its process count)'}`)
    }
    processes = values.processes ? processes : [1]
  }
  const reps = values.reps ? wholeNumber(values.reps, 'reps', 1, 100) : quick ? QUICK.reps : REPETITIONS
  // The flame pass profiles the same app under V8's profiler: an app nodebench starts (flame's own rule).
  if (values.flame && target.cmd === null) nodeCommand(target, { command: 'bench', what: '--flame profiles' })
  const flameDuration = values['flame-duration'] !== undefined ? wholeNumber(values['flame-duration'], 'flame-duration', 1, 600) : quick ? 5 : 10
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return Object.freeze({
    target,
    targets: Object.freeze(targets),
    targetNotes: Object.freeze(targetNotes),
    notes: Object.freeze(notes),
    workload,
    ...plan,
    processes,
    reps,
    quick,
    breakdownSource: scaleOut.breakdownSource,
    topologies: scaleOut.topologies,
    balancer: scaleOut.balancer,
    findMax: scaleOut.findMax,
    events: scaleOut.events,
    requestTimeoutSec: scaleOut.requestTimeoutSec,
    browser: Boolean(values.browser),
    // The profile's warm-up: as long as its window, at most flame's default.
    flame: values.flame ? Object.freeze({ duration: flameDuration, warmup: Math.min(flameDuration, 5) }) : null,
    outDir: path.resolve(values.out ?? path.join('runs', stamp)),
    json: Boolean(values.json)
  })
}

module.exports = { benchConfig, QUICK }
