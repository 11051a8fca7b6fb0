'use strict'

const { parseArgs } = require('node:util')
const { usageError } = require('./usage-error')
const { closest, optionErrorMessage } = require('./suggest')
const { parseBenchArguments, parseDemoArguments } = require('./commands/bench')
const { parseFlameArguments } = require('./commands/flame')
const { parseBrowserArguments } = require('./commands/browser')
const { parseReportArguments } = require('./report/config')
const { parseServicesArguments } = require('./commands/services')
const { parseCompareArguments } = require('./commands/compare')

// The command line: the command's name, then its own parser (commands/<name>.js).

const PARSERS = Object.freeze({
  demo: (argv) => parseDemoArguments(argv),
  report: (argv, env) => parseReportArguments(argv, env),
  bench: (argv) => parseBenchArguments(argv),
  flame: (argv) => parseFlameArguments(argv),
  services: (argv) => parseServicesArguments(argv),
  browser: (argv) => parseBrowserArguments(argv),
  compare: (argv) => parseCompareArguments(argv)
})

const TOP_OPTIONS = Object.freeze({ help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } })

function parseOptions (argv) {
  try {
    return parseArgs({ args: argv, options: TOP_OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    const message = optionErrorMessage(err, TOP_OPTIONS)
    throw usageError(err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && !message.includes('did you mean') ? `${message}; expected --help or --version` : message)
  }
}

/**
 * `nodebench <command> ...` -> `{ command: 'help' }`, `{ command: 'version' }`, `{ command: 'services', action,
 * services, settings }`,
 * `{ command: 'bench' | 'flame' | 'browser' | 'compare', config }` (`demo` is `bench --quick --browser`) or
 * `{ command: 'report', source, ... }`. Throws NB_ERR_USAGE for anything else.
 */
function parseArguments (argv, env = process.env) {
  if (Object.hasOwn(PARSERS, argv[0])) return PARSERS[argv[0]](argv.slice(1), env)
  const { values, positionals } = parseOptions(argv)
  const [command] = positionals
  if (values.version && !values.help && command === undefined) return { command: 'version' }
  if (values.help || command === undefined || command === 'help') return { command: 'help' }
  const suggestion = closest(command, [...Object.keys(PARSERS), 'help'])
  throw usageError(`unknown command '${command}'; ${suggestion === null ? '' : `did you mean '${suggestion}'? `}` +
    'expected bench, browser, compare, demo, flame, report, services or help')
}

module.exports = { parseArguments }
