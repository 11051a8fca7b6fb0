'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const { codes } = require('@nodebench/errors')
const { usageError } = require('../usage-error')
const { optionErrorMessage } = require('../suggest')
const { APP_TARGET_OPTIONS } = require('../kernel/app-target')
const { PLAN_OPTIONS } = require('../kernel/plan-options')
const { displayPath } = require('../kernel/paths')
const { compareConfig, runCompare, renderCompareText, compareRegressionLines } = require('../api')

// `nodebench compare`: the options, then runCompare (lib/api.js) and what it prints: the verdicts on stdout
// (or the comparison with --json), progress and the files on stderr, and the exit code: 1 for a regression
// beyond --fail-on (a line each), 2 for runs that cannot be compared (one line), else 0.

const OPTIONS = Object.freeze({
  ...APP_TARGET_OPTIONS,
  'cmd-a': { type: 'string' },
  'cmd-b': { type: 'string' },
  'app-a': { type: 'string' },
  'app-b': { type: 'string' },
  'rev-a': { type: 'string' },
  'rev-b': { type: 'string' },
  measure: { type: 'string' },
  ...PLAN_OPTIONS,
  window: { type: 'string' },
  'fail-on': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
})

/**
 * `nodebench compare <a> <b> | --cmd-a/--cmd-b | --app-a/--app-b | --rev-a/--rev-b [options]` ->
 * `{ command: 'compare', config }` (compareConfig's) or `{ command: 'help' }`. Throws NB_ERR_USAGE (exit 2).
 */
function parseCompareArguments (argv, { now = new Date() } = {}) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    throw usageError(optionErrorMessage(err, OPTIONS), 'compare')
  }
  if (parsed.values.help) return { command: 'help' }
  return { command: 'compare', config: compareConfig({ ...parsed.values, runs: parsed.positionals }, { now }) }
}

async function runCompareCommand ({ config }, { stdout, stderr, env }) {
  const log = (message) => stderr.write(`nodebench compare: ${message}\n`)
  const onCell = ({ index, total, cell }) =>
    log(`[${index + 1}/${total}] ${cell.scenario} (${cell.format}), ${cell.processes} process${cell.processes === 1 ? '' : 'es'}`)
  // What the apps' nodebench says (no collector answered their exports), once per run, not once per cell or side.
  const noticed = new Set()
  const onNotice = (text) => {
    if (noticed.has(text)) return
    noticed.add(text)
    log(`the app says: ${text}`)
  }
  let outcome
  try {
    outcome = await runCompare(config, { env, log, onCell, onNotice })
  } catch (err) {
    // Runs that cannot be compared: the command line's mistake, one line, exit 2.
    if (err.code !== codes.NB_ERR_COMPARE_INPUT) throw err
    stderr.write(`nodebench: compare: ${err.message}\n`)
    return 2
  }
  const { comparison, files, runs } = outcome
  stdout.write(config.json ? JSON.stringify(comparison, null, 2) + '\n' : renderCompareText(comparison))
  if (config.mode === 'paired') log(`each side's results: ${displayPath(runs.a)} and ${displayPath(runs.b)}`)
  log(`comparison ${displayPath(files.html)} (and ${path.basename(files.markdown)}, ${path.basename(files.json)})`)
  if (comparison.regressions.length > 0) {
    for (const line of compareRegressionLines(comparison)) stderr.write(`nodebench: regression: ${line}\n`)
    return 1
  }
  return 0
}

module.exports = { parseCompareArguments, runCompareCommand, OPTIONS }
