'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const cliProgress = require('cli-progress')
const { commandOptions } = require('../command-options')
const { usageError } = require('../usage-error')
const { optionErrorMessage } = require('../suggest')
const { APP_TARGET_OPTIONS } = require('../kernel/app-target')
const { PLAN_OPTIONS } = require('../kernel/plan-options')
const { displayPath } = require('../kernel/paths')
const { scenarioLabel } = require('../bench/scenario-label')
const { benchConfig, runBench, renderBenchText, renderCompareText, compareRegressionLines } = require('../api')

// `nodebench bench` (and `demo`, which is `bench --quick --browser`): the options, then runBench (lib/api.js)
// and what it prints: progress on stderr (a bar on a terminal, a line per cell otherwise), the time shares and
// owners on stdout, or the results with `--json`.

const { parseCommand } = commandOptions('bench')

const OPTIONS = Object.freeze({
  ...APP_TARGET_OPTIONS,
  ...PLAN_OPTIONS,
  'breakdown-source': { type: 'string' },
  topology: { type: 'string' },
  balancer: { type: 'string' },
  'find-max': { type: 'boolean' },
  'max-connections': { type: 'string' },
  timeout: { type: 'string' },
  'add-instance-at': { type: 'string' },
  'kill-instance-at': { type: 'string' },
  'baseline-targets': { type: 'string' },
  quick: { type: 'boolean' },
  flame: { type: 'boolean' },
  browser: { type: 'boolean' },
  'flame-duration': { type: 'string' },
  baseline: { type: 'string' },
  'fail-on': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
})

/**
 * `nodebench bench [options]` -> `{ command: 'bench', config }` (benchConfig's) or `{ command: 'help' }`.
 * Throws NB_ERR_USAGE (exit 2) for anything not understood.
 */
function parseBenchArguments (argv, { now = new Date() } = {}) {
  return parseCommand(argv, OPTIONS, (values) => benchConfig(values, { now }))
}

/** `nodebench demo [--out <dir>]`: `nodebench bench --quick --browser` on the example app. */
function parseDemoArguments (argv) {
  let values
  const options = { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }
  try {
    ({ values } = parseArgs({ args: argv, options, allowPositionals: false, strict: true }))
  } catch (err) {
    const problem = optionErrorMessage(err, options)
    throw usageError(`demo: ${problem}${problem.endsWith('?') ? '' : '; expected --out <dir>'}`)
  }
  if (values.help) return { command: 'help' }
  return parseBenchArguments(['--quick', '--browser', ...(values.out === undefined ? [] : ['--out', values.out])])
}

/** A progress bar for the whole matrix on a terminal; a line per cell where there is none (CI, pipes). */
function progressReporter (stderr, workload, targets = []) {
  const servers = ({ processes, target }) => (target && target.kind === 'apache-php'
    ? 'its prefork pool'
    : `${processes} process${processes === 1 ? '' : 'es'}`)
  const describeCell = (cell) => `${scenarioLabel(workload.scenarios, cell.scenario)} (${cell.format}), ` +
    (targets.length > 1 && cell.target ? `${cell.target.label}, ` : '') + servers(cell)
  if (!stderr.isTTY) {
    const started = Date.now()
    return {
      onCell ({ type, index, total, cell, record }) {
        if (type === 'start') {
          stderr.write(`nodebench bench: [${index + 1}/${total}] ${describeCell(cell)}\n`)
        } else if (record.status !== 'ok') {
          const code = record.failureCode ? `${record.failureCode}: ` : ''
          stderr.write(`nodebench bench: [${index + 1}/${total}] failed: ${code}${record.failure}\n`)
        } else {
          const elapsed = (Date.now() - started) / 1000
          const eta = (elapsed / (index + 1)) * (total - index - 1)
          stderr.write(`nodebench bench: [${index + 1}/${total}] ${record.requestsPerSec.mean} req/s, p99 ${record.latencyMs.p99} ms; elapsed ${Math.round(elapsed)} s, ETA ${Math.round(eta)} s\n`)
        }
      },
      log: (message) => stderr.write(`nodebench bench: ${message}\n`),
      notice: (message) => stderr.write(`nodebench bench: ${message}\n`),
      stop () {}
    }
  }
  const bar = new cliProgress.SingleBar({
    stream: stderr,
    format: 'nodebench bench {bar} {value}/{total} cells | {cell} | elapsed {duration_formatted} | {remaining}',
    hideCursor: true
  }, cliProgress.Presets.shades_classic)
  const started = Date.now()
  let running = false
  return {
    onCell ({ type, index, total, cell }) {
      if (!running) {
        bar.start(total, 0, { cell: describeCell(cell), remaining: etaText(0, 0, total) })
        running = true
      }
      if (type === 'start') bar.update(index, { cell: describeCell(cell) })
      else bar.update(index + 1, { remaining: etaText(Date.now() - started, index + 1, total) })
    },
    log: (message) => (running ? bar.update({ cell: message }) : stderr.write(`nodebench bench: ${message}\n`)),
    // A line that stays: written above the bar, which is drawn again under it.
    notice (message) {
      if (running) stderr.write('\r\x1b[2K')
      stderr.write(`nodebench bench: ${message}\n`)
      if (running) bar.render()
    },
    stop () {
      if (running) bar.stop()
      running = false
    }
  }
}

/** The bar's ETA: the cells left at the mean pace of those done; said as unknown until one is done. */
function etaText (elapsedMs, done, total) {
  if (done >= total) return 'done'
  if (done === 0) return 'ETA after the first cell'
  const seconds = Math.round((elapsedMs / done) * (total - done) / 1000)
  const [h, m, sec] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  return `ETA ${h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m ${String(sec).padStart(2, '0')}s` : `${sec}s`}`
}

async function runBenchCommand ({ config }, { stdout, stderr, env }) {
  for (const note of config.notes ?? []) stderr.write(`nodebench bench: ${note}\n`)
  const progress = progressReporter(stderr, config.workload, config.targets)
  const noticed = new Set()
  let planned = null
  let outcome
  try {
    outcome = await runBench(config, {
      env,
      onCell (event) {
        planned = event.total
        progress.onCell(event)
      },
      log: progress.log,
      // What the app's nodebench says (no collector answered its exports), once per run, not once per cell.
      onNotice: (text) => {
        if (noticed.has(text)) return
        noticed.add(text)
        progress.notice(`the app says: ${text}`)
      },
      onPassProgress (pass, message) {
        progress.stop()
        stderr.write(`nodebench bench --${pass}: ${message}\n`)
      }
    })
  } finally {
    progress.stop()
  }
  const { results, resultsFile, report, aborted, comparison } = outcome
  const cells = [...results.cells, ...results.targetCells]
  const failed = cells.filter((c) => c.status !== 'ok')
  stdout.write(config.json ? JSON.stringify(results, null, 2) + '\n' : renderBenchText(results))
  // Answers a cell's requests did not expect: counted in its figures, and the first named, with its body.
  for (const cell of cells.filter((c) => c.status === 'ok' && c.unexpectedStatus > 0)) {
    const label = scenarioLabel(config.workload.scenarios, cell.scenario)
    stderr.write(`nodebench bench: ${label} (${cell.format}), ${cell.processes ?? 'its'} process${cell.processes === 1 ? '' : 'es'}: ` +
      `${cell.unexpectedStatus} of ${cell.requests} answers not as the workload expects${cell.firstUnexpected ? `; the first: ${cell.firstUnexpected}` : ''}\n`)
  }
  // A run that stopped early says how many of its planned cells it did not run (its progress lines said [1/30]).
  const notRun = aborted && planned !== null && planned > cells.length ? `; the run stopped: ${planned - cells.length} of its ${planned} cells not run` : ''
  stderr.write(`nodebench bench: ${cells.length - failed.length} of ${cells.length} cells measured in ${Math.round(results.durationSec)} s${notRun}\n`)
  stderr.write(`nodebench bench: results ${displayPath(resultsFile)}\n`)
  stderr.write(`nodebench bench: report ${displayPath(report.html)} (and ${path.basename(report.markdown)})\n`)
  if (comparison) {
    // --baseline: the comparison after the run's own figures (on stderr with --json, whose stdout is the results).
    ;(config.json ? stderr : stdout).write(`\nagainst the baseline ${displayPath(config.baseline.file)}:\n${renderCompareText(comparison.comparison)}`)
    stderr.write(`nodebench bench: comparison ${displayPath(comparison.files.html)} (and ${path.basename(comparison.files.markdown)}, ${path.basename(comparison.files.json)})\n`)
  }
  if (aborted) {
    stderr.write(`nodebench: ${aborted}\n`)
    return 1
  }
  if (failed.length > 0) {
    const first = failed[0]
    stderr.write(`nodebench: ${failed.length} cell${failed.length === 1 ? '' : 's'} failed (marked in the report): ${first.failureCode ? `${first.failureCode}: ` : ''}${first.failure}\n`)
    return 1
  }
  if (comparison && comparison.comparison.regressions.length > 0) {
    for (const line of compareRegressionLines(comparison.comparison)) stderr.write(`nodebench: regression: ${line}\n`)
    return 1
  }
  return 0
}

module.exports = { parseBenchArguments, parseDemoArguments, runBenchCommand, progressReporter, etaText, OPTIONS }
