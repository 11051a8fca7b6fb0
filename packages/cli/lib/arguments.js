'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const { SERVICE_NAMES, NodebenchError } = require('@nodebench/services')

const NB_ERR_USAGE = 'NB_ERR_USAGE'
const SERVICE_ACTIONS = Object.freeze(['start', 'stop', 'status'])

/** A command line nodebench does not understand: reported with the usage text, exit code 2. */
function usageError (message) {
  return new NodebenchError(NB_ERR_USAGE, message)
}

function quote (value) {
  return `'${value}'`
}

function parseOptions (argv) {
  try {
    return parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(err.message)?.[1] ?? err.message
      throw usageError(`unknown option ${quote(option)}; expected --help`)
    }
    throw usageError(err.message)
  }
}

function parseServices ([action, ...names]) {
  if (action === undefined) throw usageError(`services: missing action; expected one of ${SERVICE_ACTIONS.join(', ')}`)
  if (!SERVICE_ACTIONS.includes(action)) {
    throw usageError(`services: unknown action ${quote(action)}; expected one of ${SERVICE_ACTIONS.join(', ')}`)
  }
  if (names.length > 1) {
    throw usageError(`services ${action}: unexpected ${names.slice(1).map(quote).join(' ')}; expected at most one service name`)
  }
  const [name] = names
  if (name !== undefined && !SERVICE_NAMES.includes(name)) {
    throw usageError(`unknown service ${quote(name)}; expected one of ${SERVICE_NAMES.join(', ')}`)
  }
  return { command: 'services', action, services: name === undefined ? [...SERVICE_NAMES] : [name] }
}

/** `nodebench demo [--seconds <s>] [--out <dir>]` */
function parseDemo (argv, env) {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { seconds: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true
    }))
  } catch (err) {
    throw usageError(`demo: ${err.message}; expected --seconds <s> and --out <dir>`)
  }
  if (values.help) return { command: 'help' }
  const secondsText = values.seconds ?? env.DEMO_SECONDS ?? '3'
  const seconds = Number(secondsText)
  if (String(secondsText).trim() === '' || !Number.isInteger(seconds) || seconds < 1 || seconds > 600) {
    throw usageError(`demo: --seconds must be a whole number from 1 to 600; received ${quote(secondsText)}`)
  }
  const outDir = values.out ?? path.join('runs', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`)
  return { command: 'demo', seconds, outDir }
}

/**
 * `nodebench <command> ...` -> `{ command: 'help' }`, `{ command: 'services', action, services }` or
 * `{ command: 'demo', seconds, outDir }`. Throws NB_ERR_USAGE for anything else.
 */
function parseArguments (argv, env = process.env) {
  if (argv[0] === 'demo') return parseDemo(argv.slice(1), env)
  const { values, positionals } = parseOptions(argv)
  const [command, ...rest] = positionals
  if (values.help || command === undefined || command === 'help') return { command: 'help' }
  if (command === 'services') return parseServices(rest)
  throw usageError(`unknown command ${quote(command)}; expected demo, services or help`)
}

module.exports = { parseArguments, NB_ERR_USAGE }
