'use strict'

const { parseArgs } = require('node:util')
const { usageError } = require('./usage-error')
const { parseBenchArguments, parseDemoArguments } = require('./commands/bench')
const { parseFlameArguments } = require('./commands/flame')
const { parseBrowserArguments } = require('./commands/browser')
const { parseReportArguments } = require('./commands/report')
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

function parseOptions (argv) {
  try {
    return parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(err.message)?.[1] ?? err.message
      throw usageError(`unknown option '${option}'; expected --help`)
    }
    throw usageError(err.message)
  }
}

/**
 * `nodebench <command> ...` -> `{ command: 'help' }`, `{ command: 'services', action, services, settings }`,
 * `{ command: 'bench' | 'flame' | 'browser' | 'compare', config }` (`demo` is `bench --quick --browser`) or
 * `{ command: 'report', source, ... }`. Throws NB_ERR_USAGE for anything else.
 */
function parseArguments (argv, env = process.env) {
  if (Object.hasOwn(PARSERS, argv[0])) return PARSERS[argv[0]](argv.slice(1), env)
  const { values, positionals } = parseOptions(argv)
  const [command] = positionals
  if (values.help || command === undefined || command === 'help') return { command: 'help' }
  throw usageError(`unknown command '${command}'; expected bench, browser, compare, demo, flame, report, services or help`)
}

module.exports = { parseArguments }
