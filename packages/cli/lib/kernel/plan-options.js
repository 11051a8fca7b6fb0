'use strict'

const { commandOptions } = require('../command-options')
const { parseVaryOption, sweepOf } = require('./sweep')

// A load plan from option values, bench's and compare's alike (the plan itself, its cells in run order, is
// plan.js's): which of the workload's scenarios and formats, and each scenario's load (connections, requests or
// seconds per repetition, warm-up) and varied values. Each command keeps its own defaults and the options only it
// takes (bench's topologies and targets, compare's sides and measure).

// The options of a load plan, as both command lines spell them.
const PLAN_OPTIONS = Object.freeze({
  scenarios: { type: 'string' },
  formats: { type: 'string' },
  vary: { type: 'string', multiple: true },
  processes: { type: 'string' },
  reps: { type: 'string' },
  connections: { type: 'string' },
  amount: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' }
})

/**
 * The plan's load from `values` (parseArgs' or the same names from JavaScript) on `workload`: `{ scenarios, formats,
 * duration, warmup, connections, amounts, warmups, sweep }`, the last four keyed by scenario (`amounts[s]` null
 * with --duration). `command` names the errors (NB_ERR_USAGE, exit 2). `quick`: each scenario's quickAmount and
 * the sweeps' quick lists; `warmup`: the warm-up without --warmup (a scenario's own wins unless `ownWarmup` is
 * false); `duration`: the seconds per repetition without --duration (null: each scenario's requests);
 * `connections`: every scenario's, in place of --connections and the workload's.
 */
function loadPlanOf (values, workload, options) {
  const { command, quick = false, warmup: defaultWarmup, ownWarmup = true } = options
  const { duration: defaultDuration = null, connections: fixed = null } = options
  const { usageError, wholeNumber, listOf } = commandOptions(command)
  if (values.amount !== undefined && values.duration !== undefined) {
    throw usageError('--amount and --duration exclude each other; give requests per repetition or seconds per repetition')
  }
  const scenarios = values.scenarios
    ? listOf(values.scenarios, 'scenarios', workload.scenarioNames)
    : [...workload.defaultScenarios]
  const formats = values.formats ? listOf(values.formats, 'formats', workload.formats) : [...workload.formats]
  const connectionsOverride = values.connections !== undefined ? wholeNumber(values.connections, 'connections', 1, 10000) : null
  const amountOverride = values.amount !== undefined ? wholeNumber(values.amount, 'amount', 1, 10_000_000) : null
  const duration = values.duration !== undefined ? wholeNumber(values.duration, 'duration', 1, 3600) : defaultDuration
  const warmup = values.warmup !== undefined ? wholeNumber(values.warmup, 'warmup', 0, 1_000_000) : defaultWarmup
  const connections = {}
  const amounts = {}
  const warmups = {}
  for (const scenario of scenarios) {
    const definition = workload.scenarios[scenario]
    connections[scenario] = fixed ?? connectionsOverride ?? definition.connections
    const preset = quick ? definition.quickAmount : definition.amount
    amounts[scenario] = duration !== null ? null : amountOverride ?? preset
    const own = values.warmup === undefined && ownWarmup && definition.warmup !== null
    warmups[scenario] = own ? definition.warmup : warmup
  }
  // The workload's sweeps (sweep.js): each scenario's combinations of values, --vary's lists in place of its own.
  const sweep = sweepOf(workload, scenarios, { quick, overrides: parseVaryOption(values.vary) })
  return {
    scenarios,
    formats,
    duration,
    warmup,
    connections,
    amounts,
    warmups,
    // Per scenario, the combinations of its varied values (one cell each; [{}] when it varies none), and each
    // varied name's values over the run.
    sweep: Object.freeze({ byScenario: Object.freeze(sweep.byScenario), names: Object.freeze(sweep.names) })
  }
}

/** `--processes 1,2,4` (or [1, 2, 4]): the distinct counts, smallest first; null without it. */
function processCountsOf (values, command) {
  if (values.processes === undefined) return null
  const { wholeNumber } = commandOptions(command)
  const counts = (Array.isArray(values.processes) ? values.processes : String(values.processes).split(','))
    .map((item) => wholeNumber(String(item).trim(), 'processes', 1, 64))
  return [...new Set(counts)].sort((a, b) => a - b)
}

module.exports = { PLAN_OPTIONS, loadPlanOf, processCountsOf }
