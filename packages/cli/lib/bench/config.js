'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { appTargetOf, workloadOf, nodeCommand } = require('../kernel/app-target')
const { BASELINE_KINDS, runTargets } = require('../kernel/targets')
const { parseVaryOption, sweepOf } = require('../kernel/sweep')
const { usageError, wholeNumber, listOf } = commandOptions('bench')

// `bench`'s options -> a frozen run configuration (what runBench takes). The app and the workload are named as
// for every command (kernel/app-target.js); the scenarios and formats are the workload's. The default app is
// the study's (examples/mongo-admin), and so is the default matrix; `quick` is a preset that finishes in
// about a minute on a 2-core machine (what `npm run demo` runs).

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
const TOPOLOGIES = Object.freeze(['cluster', 'nginx'])
const BALANCERS = Object.freeze(['least_conn', 'round_robin'])
// --find-max: connections double from the scenario's up to this, each step this many seconds.
const FIND_MAX_CONNECTIONS = 1024
const FIND_MAX_STEP_SEC = 5
// Seconds autocannon waits for an answer: under --find-max a timeout is an error, so it must come sooner.
const REQUEST_TIMEOUT_SEC = 60
const FIND_MAX_TIMEOUT_SEC = 10

/** `10,20` (or [10, 20]) as whole numbers, each checked. */
function numbers (text, name, min, max) {
  return (Array.isArray(text) ? text : String(text).split(',')).map((item) => wholeNumber(String(item).trim(), name, min, max))
}

/** `--add-instance-at 10,20`: seconds into a run. */
function secondsList (text, name) {
  return text === undefined ? [] : numbers(text, name, 1, 3600)
}

function numberList (text, name, min, max) {
  return [...new Set(numbers(text, name, min, max))].sort((a, b) => a - b)
}

/**
 * The configuration of a bench run from option values: parseArgs' (`bench`'s command line) or the same names
 * from JavaScript (`{ scenarios: ['doc-read'], processes: [1, 2], quick: true }`). Throws NB_ERR_USAGE
 * (exit 2) for anything not understood.
 */
function benchConfig (values, { now = new Date() } = {}) {
  if (values.amount !== undefined && values.duration !== undefined) {
    throw usageError('--amount and --duration exclude each other; give requests per repetition or seconds per repetition')
  }
  const target = appTargetOf(values, { command: 'bench' })
  const topologies = listOf(values.topology ?? 'cluster', 'topology', TOPOLOGIES)
  const balanced = topologies.includes('nginx')
  const balancer = values.balancer ?? 'least_conn'
  if (!BALANCERS.includes(balancer)) throw usageError(`--balancer must be least_conn or round_robin; received '${balancer}'`)
  if (balanced && !target.starts) {
    throw usageError('--topology nginx needs an app nodebench starts (--app, or --cmd with a {port} placeholder): it starts every instance')
  }
  if (balanced && target.cmd !== null && !target.cmd.includes('{port}')) {
    throw usageError('--topology nginx starts the command once per instance: it needs a {port} placeholder for each one\'s port')
  }
  // Independent instances: no process holds all their figures, Prometheus does.
  const breakdownSource = values['breakdown-source'] ?? (balanced ? 'prometheus' : 'app')
  if (breakdownSource !== 'app' && breakdownSource !== 'prometheus') {
    throw usageError(`--breakdown-source must be app (the app's /__nodebench) or prometheus (every instance's metrics); received '${breakdownSource}'`)
  }
  if (breakdownSource === 'app' && balanced) {
    throw usageError('--topology nginx reads its breakdowns from Prometheus (independent instances have no primary to merge them): leave out --breakdown-source app')
  }
  if (breakdownSource === 'prometheus' && !target.starts) {
    throw usageError('--breakdown-source prometheus needs an app nodebench starts (--app, or --cmd), whose metrics it has Prometheus scrape')
  }
  const events = [
    ...secondsList(values['add-instance-at'], 'add-instance-at').map((atSec) => ({ type: 'add', atSec })),
    ...secondsList(values['kill-instance-at'], 'kill-instance-at').map((atSec) => ({ type: 'kill', atSec }))
  ].sort((a, b) => a.atSec - b.atSec)
  const workload = workloadOf(values, target)
  // The servers beside the app (kernel/targets.js): the workload's, and the ceilings --baseline-targets adds.
  const baselineKinds = values['baseline-targets'] === undefined ? [] : listOf(values['baseline-targets'], 'baseline-targets', BASELINE_KINDS)
  const { targets, notes: targetNotes } = runTargets(workload.targets, baselineKinds, { appStarts: target.starts })
  if (!target.starts && targets.some((t) => t.kind === 'app-untraced')) {
    throw usageError('the workload\'s app-untraced target needs an app nodebench starts (--app, or --cmd): it starts the app with NODEBENCH=off')
  }
  const quick = Boolean(values.quick)
  const scenarios = values.scenarios ? listOf(values.scenarios, 'scenarios', workload.scenarioNames) : [...workload.defaultScenarios]
  const formats = values.formats ? listOf(values.formats, 'formats', workload.formats) : [...workload.formats]
  const withoutCells = scenarios.filter((s) => !formats.some((f) => workload.scenarios[s].formats.includes(f)))
  if (withoutCells.length > 0) {
    const scenario = workload.scenarios[withoutCells[0]]
    throw usageError(`scenario '${scenario.name}' has format ${scenario.formats.join(', ')} only; --formats ${formats.join(',')} leaves it nothing to measure`)
  }
  // What the run says before it starts (stderr), once: what it will not measure and why.
  const notes = []
  let processes = values.processes ? numberList(values.processes, 'processes', 1, 64) : quick ? [...QUICK.processes] : [...PROCESSES]
  if (target.app === null && topologies.includes('cluster') && !(target.cmd !== null && target.cmd.includes('{processes}'))) {
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
  const connectionsOverride = values.connections ? wholeNumber(values.connections, 'connections', 1, 10000) : null
  const amountOverride = values.amount ? wholeNumber(values.amount, 'amount', 1, 10_000_000) : null
  let duration = values.duration ? wholeNumber(values.duration, 'duration', 1, 3600) : null
  const findMax = Boolean(values['find-max'])
  if (findMax && values.amount !== undefined) throw usageError('--find-max runs steps of --duration seconds (default 5), not --amount requests')
  if (!findMax && values['max-connections'] !== undefined) throw usageError('--max-connections goes with --find-max')
  if (findMax && events.length > 0) throw usageError('--find-max and instances added or killed mid-run exclude each other: run them apart')
  if (findMax) duration ??= FIND_MAX_STEP_SEC
  if (events.length > 0) {
    if (!balanced) throw usageError('--add-instance-at and --kill-instance-at change the instances behind nginx: they need --topology nginx')
    if (duration === null) throw usageError('--add-instance-at and --kill-instance-at are seconds into a run of --duration seconds: give --duration')
    const late = events.find((event) => event.atSec >= duration)
    if (late) throw usageError(`--${late.type}-instance-at ${late.atSec} is not within the run's ${duration} s (--duration)`)
  }
  const maxConnections = values['max-connections'] === undefined
    ? FIND_MAX_CONNECTIONS
    : wholeNumber(values['max-connections'], 'max-connections', 1, 100_000)
  const requestTimeoutSec = values.timeout !== undefined
    ? wholeNumber(values.timeout, 'timeout', 1, 600)
    : findMax ? FIND_MAX_TIMEOUT_SEC : REQUEST_TIMEOUT_SEC
  const warmup = values.warmup !== undefined ? wholeNumber(values.warmup, 'warmup', 0, 1_000_000) : quick ? QUICK.warmup : DEFAULT_WARMUP

  // The workload's sweeps (kernel/sweep.js): each scenario's combinations of values, --vary's lists in place of
  // its own.
  const sweep = sweepOf(workload, scenarios, { quick, overrides: parseVaryOption(values.vary) })
  const connections = {}
  const amounts = {}
  const warmups = {}
  for (const scenario of scenarios) {
    const definition = workload.scenarios[scenario]
    warmups[scenario] = values.warmup !== undefined || definition.warmup === null ? warmup : definition.warmup
    connections[scenario] = connectionsOverride ?? definition.connections
    const preset = quick ? definition.quickAmount : definition.amount
    amounts[scenario] = duration !== null ? null : amountOverride ?? preset
  }
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
    scenarios,
    formats,
    processes,
    reps,
    connections,
    amounts,
    duration,
    warmup,
    warmups,
    // Per scenario, the combinations of its varied values (one cell each; [{}] when it varies none), and each
    // varied name's values over the run.
    sweep: Object.freeze({ byScenario: Object.freeze(sweep.byScenario), names: Object.freeze(sweep.names) }),
    quick,
    breakdownSource,
    topologies,
    balancer,
    findMax: findMax ? Object.freeze({ maxConnections }) : null,
    events: Object.freeze(events.map(Object.freeze)),
    requestTimeoutSec,
    browser: Boolean(values.browser),
    // The profile's warm-up: as long as its window, at most flame's default.
    flame: values.flame ? Object.freeze({ duration: flameDuration, warmup: Math.min(flameDuration, 5) }) : null,
    outDir: path.resolve(values.out ?? path.join('runs', stamp)),
    json: Boolean(values.json)
  })
}

module.exports = { benchConfig, QUICK, TOPOLOGIES, BALANCERS }
