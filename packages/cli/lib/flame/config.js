'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const { NodebenchError } = require('@nodebench/services')
const { SCENARIO_NAMES } = require('../bench/study')

// `nodebench flame` options -> a frozen configuration.

const ROOT = path.resolve(__dirname, '../../../..')
const DEFAULT_APP = path.join(ROOT, 'examples', 'mongo-admin')
const PROFILERS = Object.freeze(['0x', 'clinic'])
const DEFAULT_DURATION = 10
const DEFAULT_CONNECTIONS = 10

function usageError (message) {
  return new NodebenchError('NB_ERR_USAGE', `flame: ${message}`)
}

function wholeNumber (text, name, min, max) {
  const value = Number(text)
  if (String(text).trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw usageError(`--${name} must be a whole number from ${min} to ${max}; received '${text}'`)
  }
  return value
}

/**
 * `nodebench flame --scenario doc-read|write|collection-read --format html|json|both [--profiler 0x|clinic]
 * [--duration s] [--connections n] [--out dir] [--app dir | --cmd "node script args"]`
 */
function parseFlameArguments (argv) {
  let values
  try {
    ({
      values
    } = parseArgs({
      args: argv,
      options: {
        scenario: { type: 'string', default: 'doc-read' },
        format: { type: 'string', default: 'both' },
        profiler: { type: 'string', default: '0x' },
        duration: { type: 'string' },
        connections: { type: 'string' },
        out: { type: 'string' },
        app: { type: 'string' },
        cmd: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      },
      allowPositionals: false,
      strict: true
    }))
  } catch (err) {
    throw usageError(err.message)
  }
  if (values.help) return { command: 'help' }
  if (!SCENARIO_NAMES.includes(values.scenario)) {
    throw usageError(`unknown scenario '${values.scenario}'; expected one of ${SCENARIO_NAMES.join(', ')}`)
  }
  if (!['html', 'json', 'both'].includes(values.format)) {
    throw usageError(`--format must be html, json or both; received '${values.format}'`)
  }
  if (!PROFILERS.includes(values.profiler)) {
    throw usageError(`--profiler must be ${PROFILERS.join(' or ')}; received '${values.profiler}'`)
  }
  if (values.app !== undefined && values.cmd !== undefined) throw usageError('--app and --cmd exclude each other')
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
  return {
    command: 'flame',
    config: Object.freeze({
      scenario: values.scenario,
      formats: values.format === 'both' ? ['html', 'json'] : [values.format],
      profiler: values.profiler,
      duration: values.duration === undefined ? DEFAULT_DURATION : wholeNumber(values.duration, 'duration', 1, 600),
      connections: values.connections === undefined ? DEFAULT_CONNECTIONS : wholeNumber(values.connections, 'connections', 1, 1000),
      outDir: path.resolve(values.out ?? 'flamegraphs'),
      app: command === null ? path.resolve(values.app ?? DEFAULT_APP) : null,
      argv: command ?? [path.join(path.resolve(values.app ?? DEFAULT_APP), 'server.js'), '--port', '0']
    })
  }
}

module.exports = { parseFlameArguments, PROFILERS }
