'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { appTargetOf, workloadOf, nodeCommand } = require('../kernel/app-target')
const { usageError, wholeNumber } = commandOptions('flame')

// `flame`'s options -> a frozen configuration (what runFlame takes). The app and its workload are named as for
// every command (kernel/app-target.js), and its port is learnt from the app (its first listen). V8's profiler
// (the default) is loaded into the app by nodebench, so the app is an app directory or any --cmd bench takes (a
// shell line with variables, `npm start`: the Node.js process it starts that listens is the one profiled); 0x and
// clinic run a Node.js script themselves, so with them --cmd is "node <script> ...". The scenario and formats are
// the workload's.

const PROFILERS = Object.freeze(['v8', '0x', 'clinic'])
const V8_INSTEAD = 'or use --profiler v8 (the default), which profiles the Node.js process any --cmd starts'
const DEFAULT_DURATION = 10
const DEFAULT_CONNECTIONS = 10
// Seconds of load before the window: V8 has compiled the hot code by then (the README's figures).
const DEFAULT_WARMUP = 5

/** What V8's profiler starts: an app directory's server.js, a --cmd as it is (null); not an app at --url alone. */
function scriptOf (target) {
  if (target.cmd !== null) return null
  return nodeCommand(target, { command: 'flame', what: 'flame profiles' })
}

/**
 * The configuration of a flame run from option values (parseArgs', or the same names from JavaScript): the
 * scenario defaults to the workload's first, format `both` (the default) is every format of the scenario.
 * Throws NB_ERR_USAGE for anything not understood.
 */
function flameConfig (values, { workload: givenWorkload } = {}) {
  const profiler = values.profiler ?? 'v8'
  if (!PROFILERS.includes(profiler)) {
    throw usageError(`--profiler must be ${PROFILERS.join(', ')}; received '${profiler}'`)
  }
  const target = appTargetOf(values, { command: 'flame', learnsPort: true })
  const argv = profiler === 'v8'
    ? scriptOf(target)
    : nodeCommand(target, { command: 'flame', what: `--profiler ${profiler} profiles`, instead: V8_INSTEAD })
  const duration = values.duration === undefined ? DEFAULT_DURATION : wholeNumber(values.duration, 'duration', 1, 600)
  const warmup = values.warmup === undefined ? DEFAULT_WARMUP : wholeNumber(values.warmup, 'warmup', 0, 600)
  const connections = values.connections === undefined ? DEFAULT_CONNECTIONS : wholeNumber(values.connections, 'connections', 1, 1000)
  // The workload is read once the command line itself is understood (bench's flame pass hands in its own).
  const workload = givenWorkload ?? workloadOf(values, target)
  const scenario = values.scenario ?? workload.scenarioNames[0]
  if (!workload.scenarioNames.includes(scenario)) {
    throw usageError(`unknown scenario '${scenario}'; expected one of ${workload.scenarioNames.join(', ')}`)
  }
  const formats = workload.scenarios[scenario].formats
  const format = values.format ?? 'both'
  const wanted = Array.isArray(format) ? format : format === 'both' ? [...formats] : [format]
  const unknown = wanted.find((name) => !formats.includes(name))
  if (unknown !== undefined || wanted.length === 0) {
    throw usageError(`--format must be ${formats.join(', ')} or both (scenario '${scenario}'); received '${unknown ?? format}'`)
  }
  return Object.freeze({
    target,
    // The Node.js script and its arguments 0x and clinic run ({port} filled in at each start); for V8's profiler,
    // an app directory's (null for a --cmd, which runs as bench runs it).
    argv: argv === null ? null : Object.freeze(argv),
    scenario,
    workload,
    formats: Object.freeze(wanted),
    profiler,
    warmup,
    duration,
    connections,
    outDir: path.resolve(values.out ?? 'flamegraphs')
  })
}

module.exports = { flameConfig, PROFILERS }
