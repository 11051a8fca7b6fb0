'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const { workloadFileOf, loadWorkload } = require('../workload')
const { usageError: commandUsageError } = require('../usage-error')
const { defaultApp } = require('../default-app')

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
  'breakdown-source': { type: 'string', default: 'app' },
  quick: { type: 'boolean', default: false },
  flame: { type: 'boolean', default: false },
  'flame-duration': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' }
}

function usageError (message) {
  return commandUsageError(message, 'bench')
}

function listOf (text, name, known) {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean)
  if (items.length === 0) throw usageError(`--${name} is empty; expected a comma-separated list of ${known.join(', ')}`)
  for (const item of items) {
    if (!known.includes(item)) throw usageError(`unknown ${name.replace(/s$/, '')} '${item}'; expected one of ${known.join(', ')}`)
  }
  return [...new Set(items)]
}

function wholeNumber (text, name, min, max) {
  const value = Number(text)
  if (String(text).trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw usageError(`--${name} must be a whole number from ${min} to ${max}; received '${text}'`)
  }
  return value
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
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }))
  } catch (err) {
    throw usageError(err.message)
  }
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
  let url = null
  if (values.url !== undefined) {
    try {
      url = new URL(values.url).href.replace(/\/$/, '')
    } catch {
      throw usageError(`--url '${values.url}' is not a URL; expected e.g. http://127.0.0.1:3000`)
    }
  }
  const breakdownSource = values['breakdown-source']
  if (breakdownSource !== 'app' && breakdownSource !== 'prometheus') {
    throw usageError(`--breakdown-source must be app (the app's /__nodebench) or prometheus (every instance's metrics); received '${breakdownSource}'`)
  }
  if (breakdownSource === 'prometheus' && values.cmd === undefined && url !== null) {
    throw usageError('--breakdown-source prometheus needs an app nodebench starts (--app, or --cmd), whose metrics it has Prometheus scrape')
  }
  const startsApp = values.cmd === undefined && url === null
  const app = startsApp ? appDir(values.app) : null
  const workload = loadWorkload(workloadFileOf(values.workload, app))
  const quick = values.quick
  const scenarios = values.scenarios ? listOf(values.scenarios, 'scenarios', workload.scenarioNames) : [...workload.scenarioNames]
  const formats = values.formats ? listOf(values.formats, 'formats', workload.formats) : [...workload.formats]
  let processes = values.processes ? numberList(values.processes, 'processes', 1, 64) : quick ? [...QUICK.processes] : [...PROCESSES]
  if (url !== null && (values.cmd === undefined || !values.cmd.includes('{processes}'))) {
    // nodebench cannot change how many processes an app it does not start runs.
    if (values.processes !== undefined && processes.length > 1) {
      throw usageError('several --processes need an app nodebench starts: --app, or --cmd with a {processes} placeholder')
    }
    processes = values.processes ? processes : [1]
  }
  const reps = values.reps ? wholeNumber(values.reps, 'reps', 1, 100) : quick ? QUICK.reps : REPETITIONS
  const connectionsOverride = values.connections ? wholeNumber(values.connections, 'connections', 1, 10000) : null
  const amountOverride = values.amount ? wholeNumber(values.amount, 'amount', 1, 10_000_000) : null
  const duration = values.duration ? wholeNumber(values.duration, 'duration', 1, 3600) : null
  const warmup = values.warmup !== undefined ? wholeNumber(values.warmup, 'warmup', 0, 1_000_000) : quick ? QUICK.warmup : DEFAULT_WARMUP

  const connections = {}
  const amounts = {}
  for (const scenario of scenarios) {
    const definition = workload.scenarios[scenario]
    connections[scenario] = connectionsOverride ?? definition.connections
    const preset = quick ? definition.quickAmount : definition.amount
    amounts[scenario] = duration !== null ? null : amountOverride ?? preset
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
      flame: values.flame ? Object.freeze({ duration: flameDuration }) : null,
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

module.exports = { parseBenchArguments, QUICK }
