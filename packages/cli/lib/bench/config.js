'use strict'

const path = require('node:path')
const { workloadFileOf, loadWorkload } = require('../workload')
const { commandOptions } = require('../command-options')
const { defaultApp } = require('../default-app')
const { usageError, parse, wholeNumber, baseUrl } = commandOptions('bench')

// `nodebench bench` options -> a frozen run configuration. The scenarios and formats are the workload's
// (lib/workload.js): the app directory's nodebench.workload.js or .json, or --workload. The default app is
// the study's (examples/mongo-admin), and so is the default matrix; `--quick` is a preset that finishes in
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

const OPTIONS = {
  app: { type: 'string' },
  workload: { type: 'string' },
  cmd: { type: 'string' },
  url: { type: 'string' },
  scenarios: { type: 'string' },
  formats: { type: 'string' },
  processes: { type: 'string' },
  reps: { type: 'string' },
  connections: { type: 'string' },
  amount: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  'breakdown-source': { type: 'string' },
  topology: { type: 'string', default: 'cluster' },
  balancer: { type: 'string', default: 'least_conn' },
  'find-max': { type: 'boolean', default: false },
  'max-connections': { type: 'string' },
  timeout: { type: 'string' },
  'add-instance-at': { type: 'string' },
  'kill-instance-at': { type: 'string' },
  quick: { type: 'boolean', default: false },
  flame: { type: 'boolean', default: false },
  browser: { type: 'boolean', default: false },
  'flame-duration': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' }
}

function listOf (text, name, known) {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean)
  if (items.length === 0) throw usageError(`--${name} is empty; expected a comma-separated list of ${known.join(', ')}`)
  for (const item of items) {
    if (!known.includes(item)) throw usageError(`unknown ${name.replace(/s$/, '')} '${item}'; expected one of ${known.join(', ')}`)
  }
  return [...new Set(items)]
}

/** `--add-instance-at 10,20`: seconds into a run, each a whole number. */
function secondsList (text, name) {
  if (text === undefined) return []
  return String(text).split(',').map((item) => wholeNumber(item.trim(), name, 1, 3600))
}

function numberList (text, name, min, max) {
  const values = String(text).split(',').map((item) => wholeNumber(item.trim(), name, min, max))
  return [...new Set(values)].sort((a, b) => a - b)
}

/**
 * Parses `nodebench bench` arguments. Throws NB_ERR_USAGE (exit 2) for anything not understood.
 * @returns {{ command: 'help' } | { command: 'bench', config: object }}
 */
function parseBenchArguments (argv, { now = new Date() } = {}) {
  const values = parse(argv, OPTIONS)
  if (values.help) return { command: 'help' }
  if (values.amount !== undefined && values.duration !== undefined) {
    throw usageError('--amount and --duration exclude each other; give requests per repetition or seconds per repetition')
  }
  if (values.cmd !== undefined && values.url === undefined) {
    throw usageError('--cmd needs --url, the base URL the started app answers on (e.g. http://127.0.0.1:3000)')
  }
  if (values.app !== undefined && (values.cmd !== undefined || values.url !== undefined)) {
    throw usageError('--app excludes --cmd and --url: either nodebench starts an app directory, or you say how to reach yours')
  }
  const url = values.url === undefined ? null : baseUrl(values.url)
  const topologies = listOf(values.topology, 'topology', TOPOLOGIES)
  const balanced = topologies.includes('nginx')
  if (!BALANCERS.includes(values.balancer)) throw usageError(`--balancer must be least_conn or round_robin; received '${values.balancer}'`)
  if (balanced && values.cmd === undefined && url !== null) {
    throw usageError('--topology nginx needs an app nodebench starts (--app, or --cmd with a {port} placeholder): it starts every instance')
  }
  if (balanced && values.cmd !== undefined && !values.cmd.includes('{port}')) {
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
  if (breakdownSource === 'prometheus' && values.cmd === undefined && url !== null) {
    throw usageError('--breakdown-source prometheus needs an app nodebench starts (--app, or --cmd), whose metrics it has Prometheus scrape')
  }
  const events = [
    ...secondsList(values['add-instance-at'], 'add-instance-at').map((atSec) => ({ type: 'add', atSec })),
    ...secondsList(values['kill-instance-at'], 'kill-instance-at').map((atSec) => ({ type: 'kill', atSec }))
  ].sort((a, b) => a.atSec - b.atSec)
  const startsApp = values.cmd === undefined && url === null
  const app = startsApp ? appDir(values.app) : null
  const workload = loadWorkload(workloadFileOf(values.workload, app))
  const quick = values.quick
  const scenarios = values.scenarios ? listOf(values.scenarios, 'scenarios', workload.scenarioNames) : [...workload.defaultScenarios]
  const formats = values.formats ? listOf(values.formats, 'formats', workload.formats) : [...workload.formats]
  const withoutCells = scenarios.filter((s) => !formats.some((f) => workload.scenarios[s].formats.includes(f)))
  if (withoutCells.length > 0) {
    const scenario = workload.scenarios[withoutCells[0]]
    throw usageError(`scenario '${scenario.name}' has format ${scenario.formats.join(', ')} only; --formats ${formats.join(',')} leaves it nothing to measure`)
  }
  let processes = values.processes ? numberList(values.processes, 'processes', 1, 64) : quick ? [...QUICK.processes] : [...PROCESSES]
  if (url !== null && topologies.includes('cluster') && (values.cmd === undefined || !values.cmd.includes('{processes}'))) {
    // nodebench cannot change how many processes an app it does not start runs (behind nginx, each
    // instance is one process of the command).
    if (values.processes !== undefined && processes.length > 1) {
      throw usageError('several --processes need an app nodebench starts: --app, or --cmd with a {processes} placeholder')
    }
    processes = values.processes ? processes : [1]
  }
  const reps = values.reps ? wholeNumber(values.reps, 'reps', 1, 100) : quick ? QUICK.reps : REPETITIONS
  const connectionsOverride = values.connections ? wholeNumber(values.connections, 'connections', 1, 10000) : null
  const amountOverride = values.amount ? wholeNumber(values.amount, 'amount', 1, 10_000_000) : null
  let duration = values.duration ? wholeNumber(values.duration, 'duration', 1, 3600) : null
  const findMax = values['find-max']
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

  const connections = {}
  const amounts = {}
  for (const scenario of scenarios) {
    const definition = workload.scenarios[scenario]
    connections[scenario] = connectionsOverride ?? definition.connections
    const preset = quick ? definition.quickAmount : definition.amount
    amounts[scenario] = duration !== null ? null : amountOverride ?? preset
  }
  if (values.browser && values.app === undefined && (values.cmd !== undefined || url !== null)) {
    throw usageError('--browser loads the pages of an app nodebench starts itself: use --app (the default), not --cmd or --url')
  }
  if (values.flame && values.app === undefined && (values.cmd !== undefined || url !== null)) {
    throw usageError('--flame profiles an app nodebench starts itself: use --app (the default), not --cmd or --url')
  }
  const flameDuration = values['flame-duration'] !== undefined ? wholeNumber(values['flame-duration'], 'flame-duration', 1, 600) : quick ? 5 : 10
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return {
    command: 'bench',
    config: Object.freeze({
      app,
      workload,
      cmd: values.cmd ?? null,
      url,
      scenarios,
      formats,
      processes,
      reps,
      connections,
      amounts,
      duration,
      warmup,
      quick,
      breakdownSource,
      topologies,
      balancer: values.balancer,
      findMax: findMax ? Object.freeze({ maxConnections }) : null,
      events: Object.freeze(events.map(Object.freeze)),
      requestTimeoutSec,
      browser: values.browser,
      // The profile's warm-up: as long as its window, at most flame's default.
      flame: values.flame ? Object.freeze({ duration: flameDuration, warmup: Math.min(flameDuration, 5) }) : null,
      outDir: path.resolve(values.out ?? path.join('runs', stamp)),
      json: values.json
    })
  }
}

/** --app, else the example app of a checkout; an installed nodebench without either is told what to give. */
function appDir (given) {
  if (given !== undefined) return path.resolve(given)
  const found = defaultApp()
  if (found === null) throw usageError('no app to measure: give --app <dir>, or --cmd "<command>" with --url <base>, or --url alone')
  return found
}

module.exports = { parseBenchArguments, QUICK, TOPOLOGIES, BALANCERS }
