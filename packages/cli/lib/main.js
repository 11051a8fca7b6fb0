'use strict'

const { codes, isNodebenchError } = require('@nodebench/errors')
const { parseArguments } = require('./arguments')
const { runServicesCommand } = require('./commands/services')
const { runReportCommand } = require('./commands/report')
const { runBenchCommand } = require('./commands/bench')
const { runFlameCommand } = require('./commands/flame')
const { runBrowserCommand } = require('./commands/browser')
const { runCompareCommand } = require('./commands/compare')
const { USAGE } = require('./usage')

// The command line's entry: parse (arguments.js), run the command (commands/<name>.js, each a thin shell over
// the feature's API in api.js), turn what went wrong into one line and an exit code.

const COMMANDS = Object.freeze({
  async help (parsed, { stdout }) {
    stdout.write(USAGE)
    return 0
  },
  async version (parsed, { stdout }) {
    stdout.write(`nodebench ${require('../package.json').version}\n`)
    return 0
  },
  services: runServicesCommand,
  report: runReportCommand,
  bench: runBenchCommand,
  flame: runFlameCommand,
  browser: runBrowserCommand,
  compare: runCompareCommand
})

/**
 * Runs the nodebench command line `argv` (without node and the script). Resolves to the exit code: 0,
 * 1 when the command failed, 2 when the command line was not understood (one line on stderr says why).
 */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  let parsed
  try {
    parsed = parseArguments(argv, env)
  } catch (err) {
    // What was wrong, in one line; for a command line not understood, where the usage is.
    if (!isNodebenchError(err)) throw err
    const hint = err.code === codes.NB_ERR_USAGE ? ' (usage: nodebench --help)' : ''
    stderr.write(`nodebench: ${err.message}${hint}\n`)
    return 2
  }
  try {
    return await COMMANDS[parsed.command](parsed, { stdout, stderr, env })
  } catch (err) {
    // A coded error says what went wrong and what to do; its stack trace would only bury that.
    stderr.write(isNodebenchError(err) ? `nodebench: ${err.message}\n` : `nodebench: unexpected error: ${err.stack}\n`)
    return 1
  }
}

module.exports = { main, parseArguments }
