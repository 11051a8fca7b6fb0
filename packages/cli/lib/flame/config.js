'use strict'

const path = require('node:path')
const { workloadFileOf, loadWorkload } = require('../workload')
const { commandOptions } = require('../command-options')
const { defaultApp } = require('../default-app')
const { usageError, parse, wholeNumber } = commandOptions('flame')

// `nodebench flame` options -> a frozen configuration. The scenario and formats are the workload's, as for
// `nodebench bench` (lib/workload.js).

const PROFILERS = Object.freeze(['v8', '0x', 'clinic'])
const DEFAULT_DURATION = 10
const DEFAULT_CONNECTIONS = 10
// Seconds of load before the window: V8 has compiled the hot code by then (the README's figures).
const DEFAULT_WARMUP = 5

/**
 * `nodebench flame [--scenario <name>] [--format <name>|both] [--profiler v8|0x|clinic] [--warmup s]
 * [--duration s] [--connections n] [--out dir] [--app dir | --cmd "node script args"] [--workload file]`: the
 * scenario defaults to the workload's first, `both` (the default) is every format of the scenario.
 */
function parseFlameArguments (argv) {
  const values = parse(argv, {
    scenario: { type: 'string' },
    workload: { type: 'string' },
    format: { type: 'string', default: 'both' },
    profiler: { type: 'string', default: 'v8' },
    warmup: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    out: { type: 'string' },
    app: { type: 'string' },
    cmd: { type: 'string' },
    help: { type: 'boolean', short: 'h' }
  })
  if (values.help) return { command: 'help' }
  if (values.app !== undefined && values.cmd !== undefined) throw usageError('--app and --cmd exclude each other')
  if (!PROFILERS.includes(values.profiler)) {
    throw usageError(`--profiler must be ${PROFILERS.join(', ')}; received '${values.profiler}'`)
  }
  let command = null
  if (values.cmd !== undefined) {
    // The profilers run Node.js themselves: the command is a Node.js script and its arguments.
    const words = values.cmd.trim().split(/\s+/).filter(Boolean)
    if (words[0] === 'node' || words[0] === process.execPath) words.shift()
    if (words.length === 0 || !/\.[cm]?js$/.test(words[0])) {
      throw usageError(`--cmd must be a Node.js script and its arguments, e.g. "node server.js --port 3000"; received '${values.cmd}'`)
    }
    command = words
  }
  const duration = values.duration === undefined ? DEFAULT_DURATION : wholeNumber(values.duration, 'duration', 1, 600)
  const warmup = values.warmup === undefined ? DEFAULT_WARMUP : wholeNumber(values.warmup, 'warmup', 0, 600)
  const connections = values.connections === undefined ? DEFAULT_CONNECTIONS : wholeNumber(values.connections, 'connections', 1, 1000)
  // The workload is read once the command line itself is understood.
  let app = null
  if (values.cmd === undefined) {
    app = values.app === undefined ? defaultApp() : path.resolve(values.app)
    if (app === null) throw usageError('no app to profile: give --app <dir>, or --cmd "node server.js ..."')
  }
  const workload = loadWorkload(workloadFileOf(values.workload, app))
  const scenario = values.scenario ?? workload.scenarioNames[0]
  if (!workload.scenarioNames.includes(scenario)) {
    throw usageError(`unknown scenario '${scenario}'; expected one of ${workload.scenarioNames.join(', ')}`)
  }
  const formats = workload.scenarios[scenario].formats
  if (values.format !== 'both' && !formats.includes(values.format)) {
    throw usageError(`--format must be ${formats.join(', ')} or both (scenario '${scenario}'); received '${values.format}'`)
  }
  return {
    command: 'flame',
    config: Object.freeze({
      scenario,
      workload,
      formats: values.format === 'both' ? [...formats] : [values.format],
      profiler: values.profiler,
      warmup,
      duration,
      connections,
      outDir: path.resolve(values.out ?? 'flamegraphs'),
      app,
      argv: command ?? [path.join(app, 'server.js'), '--port', '0']
    })
  }
}

module.exports = { parseFlameArguments, PROFILERS }
