'use strict'

const fs = require('node:fs')
const path = require('node:path')
const cliProgress = require('cli-progress')
const { resolveDatabase } = require('@nodebench/services')
const { renderTable } = require('@nodebench/breakdown')
const { runBench } = require('../bench/runner')
const { writeReport } = require('../bench/report')

// `nodebench bench`: a workload's load matrix on an app (by default the study's, on examples/mongo-admin),
// results.json + report.md + report.html. Progress on stderr (a bar on a terminal, a line per cell
// otherwise); `--json` prints results on stdout.

/** A progress bar for the whole matrix on a terminal; a line per cell where there is none (CI, pipes). */
function progressReporter (stderr, workload) {
  const describeCell = ({ scenario, format, processes }) =>
    `${workload.scenarios[scenario].label} (${format}), ${processes} process${processes === 1 ? '' : 'es'}`
  if (!stderr.isTTY) {
    const started = Date.now()
    return {
      onCell ({ type, index, total, cell, record }) {
        if (type === 'start') {
          stderr.write(`nodebench bench: [${index + 1}/${total}] ${describeCell(cell)}\n`)
        } else if (record.status !== 'ok') {
          stderr.write(`nodebench bench: [${index + 1}/${total}] failed: ${record.failure}\n`)
        } else {
          const elapsed = (Date.now() - started) / 1000
          const eta = (elapsed / (index + 1)) * (total - index - 1)
          stderr.write(`nodebench bench: [${index + 1}/${total}] ${record.requestsPerSec.mean} req/s, p99 ${record.latencyMs.p99} ms; elapsed ${Math.round(elapsed)} s, ETA ${Math.round(eta)} s\n`)
        }
      },
      log: (message) => stderr.write(`nodebench bench: ${message}\n`),
      stop () {}
    }
  }
  const bar = new cliProgress.SingleBar({
    stream: stderr,
    format: 'nodebench bench {bar} {value}/{total} cells | {cell} | elapsed {duration_formatted} | ETA {eta_formatted}',
    hideCursor: true,
    etaBuffer: 4
  }, cliProgress.Presets.shades_classic)
  let started = false
  return {
    onCell ({ type, index, total, cell }) {
      if (!started) {
        bar.start(total, 0, { cell: describeCell(cell) })
        started = true
      }
      if (type === 'start') bar.update(index, { cell: describeCell(cell) })
      else bar.update(index + 1)
    },
    log: (message) => (started ? bar.update({ cell: message }) : stderr.write(`nodebench bench: ${message}\n`)),
    stop: () => started && bar.stop()
  }
}

/** The time-share table of each measured operation (the lowest process count), for the terminal. */
function renderTimeShares (results) {
  const lowest = Math.min(...results.cells.map((c) => c.processes))
  const parts = []
  for (const cell of results.cells) {
    if (cell.processes !== lowest || cell.breakdown === null || cell.status !== 'ok') continue
    const operations = cell.breakdown.operations.filter((o) =>
      o.method === cell.operation.method && o.route === cell.operation.route && o.format === cell.operation.format)
    if (operations.length === 0) continue
    parts.push(renderTable({ ...cell.breakdown, operations }, { color: false }))
  }
  return parts.join('\n')
}

/**
 * Which function owns each operation's time at the lowest process count: the function the workload names
 * as dominant, here and in its reference (the study's Table 1), for the scenarios that name one.
 */
function renderOwners (results) {
  const lowest = Math.min(...results.cells.map((c) => c.processes))
  const scenarios = (results.workload && results.workload.scenarios) || {}
  const withReference = Boolean(results.workload && results.workload.reference)
  const lines = [`The function that owns each operation's time (share of response time), here${withReference ? ' and in the study' : ''} ` +
    `(${lowest} process${lowest === 1 ? '' : 'es'}):`]
  for (const cell of results.cells) {
    if (cell.processes !== lowest || cell.status !== 'ok' || cell.breakdown === null) continue
    const operation = cell.breakdown.operations.find((o) =>
      o.method === cell.operation.method && o.route === cell.operation.route && o.format === cell.operation.format)
    const described = scenarios[cell.scenario]
    if (operation === undefined || operation.segments.length === 0 || !described || !described.dominant) continue
    const expected = described.dominant
    const top = operation.segments.reduce((best, segment) => (segment.share > best.share ? segment : best))
    const dominant = operation.segments.find((s) => s.name === expected)
    const here = dominant ? `${(dominant.share * 100).toFixed(2)}%` : 'not seen'
    const shares = described.reference && described.reference.shares && described.reference.shares[cell.format]
    const study = shares ? shares[lowest] : undefined
    const verdict = top.name === expected ? 'same function' : `here ${top.name} leads (${(top.share * 100).toFixed(2)}%)`
    const studyText = withReference ? `study ${study === undefined ? '   n/a' : `${study.toFixed(2)}%`}   ` : ''
    const name = `${described.label} (${cell.format}${cell.topology === 'nginx' ? ', nginx' : ''})`
    lines.push(`  ${name.padEnd(24)} ${expected.padEnd(15)} ${here.padStart(8)}   ${studyText}${verdict}`)
  }
  return lines.length > 1 ? lines.join('\n') + '\n' : ''
}

/**
 * `--flame`: a flamegraph of every scenario in every format (V8's sampling profiler, one process), into
 * `<out>/flamegraphs/`, with each segment's CPU beside its time and the HTML-against-JSON table of where the
 * CPU went. Returns what results.json keeps of them.
 */
async function profileScenarios (config, { env, stderr }) {
  const { runFlame } = require('./flame')
  const outDir = path.join(config.outDir, 'flamegraphs')
  const profiles = []
  for (const scenario of config.scenarios) {
    const flameConfig = {
      scenario,
      workload: config.workload,
      formats: config.formats.filter((format) => config.workload.scenarios[scenario].formats.includes(format)),
      profiler: 'v8',
      warmup: config.flame.warmup,
      duration: config.flame.duration,
      connections: Math.min(config.connections[scenario], 10),
      outDir,
      app: config.app,
      argv: [path.join(config.app, 'server.js'), '--port', '0']
    }
    try {
      const { flamegraphs, comparison } = await runFlame(flameConfig, {
        env,
        onProgress: (message) => stderr.write(`nodebench bench --flame: ${message}\n`)
      })
      profiles.push({
        scenario,
        profiler: flameConfig.profiler,
        warmupSec: flameConfig.warmup,
        durationSec: flameConfig.duration,
        connections: flameConfig.connections,
        flamegraphs: flamegraphs.map(({ format, html, load, operation, overhead, breakdownFailure, analysis }) => ({
          format,
          html: path.relative(config.outDir, html),
          load,
          samples: analysis.samples,
          nodebenchShare: analysis.nodebench.share,
          // What the report's segment table needs (render-segments.js).
          operation,
          overhead,
          breakdownFailure,
          analysis: {
            source: analysis.source,
            windowed: analysis.windowed,
            samples: analysis.samples,
            idleSamples: analysis.idleSamples,
            profilerShare: analysis.profilerShare,
            compileShare: analysis.compileShare,
            segments: analysis.segments
          }
        })),
        comparison
      })
    } catch (err) {
      stderr.write(`nodebench bench --flame: ${scenario} could not be profiled: ${err.message}\n`)
      profiles.push({ scenario, profiler: 'v8', failure: err.message, flamegraphs: [], comparison: null })
    }
  }
  return profiles
}

/**
 * `--browser`: the workload's pages in Chromium, quickly (two runs a page, cold and warm cache), into the run's
 * folder (browser.json), for the report's browser section. A pass that cannot run is said, not thrown: the
 * bench's own figures stand.
 */
async function browserPass (config, { env, stderr }) {
  const { browserConfig } = require('../browser/config')
  const { runBrowser } = require('../browser/run')
  const onProgress = (message) => stderr.write(`nodebench bench --browser: ${message}\n`)
  try {
    const browser = browserConfig({ app: config.app, workload: config.workload.file, quick: true, cache: 'cold,warm', network: 'none' },
      { outDir: config.outDir })
    const { results } = await runBrowser(browser, { env, onProgress })
    return results
  } catch (err) {
    onProgress(`the browser pass could not run: ${err.message}`)
    return { failure: err.message }
  }
}

/** `--browser`'s findings for the terminal (the report has its tables and charts); '' without a pass. */
function renderBrowserFindings (results) {
  if (!results.browser) return ''
  if (results.browser.failure) return `The browser pass could not run: ${results.browser.failure}\n`
  const { findingsOf } = require('../browser/report')
  return `The browser, here and in the study (medians of ${results.browser.config.runs} loads in Chromium):\n` +
    findingsOf(results.browser).map((sentence) => `  ${sentence}\n`).join('')
}

async function runBenchCommand (parsed, { stdout, stderr, env }) {
  const config = parsed.config
  const progress = progressReporter(stderr, config.workload)
  let database = null
  let outcome
  try {
    const appEnv = { ...env }
    // The database a workload asks for, for an app nodebench starts (an app at --url has its own).
    if (config.workload.services.includes('mongodb') && (config.app !== null || config.cmd !== null)) {
      database = await resolveDatabase({ env, onProgress: (message) => stderr.write(`${message}\n`) })
      appEnv.MONGODB_URI = database.uri
    }
    const observers = { onCell: progress.onCell, log: progress.log }
    outcome = await runBench(config, { env: appEnv, databaseSource: database && database.source, ...observers })
    if (config.flame !== null && !outcome.aborted) {
      progress.stop()
      outcome.results.flame = await profileScenarios(config, { env: appEnv, stderr })
      fs.writeFileSync(outcome.resultsFile, JSON.stringify(outcome.results, null, 2) + '\n')
    }
    if (config.browser && !outcome.aborted) {
      progress.stop()
      outcome.results.browser = await browserPass(config, { env: appEnv, stderr })
      fs.writeFileSync(outcome.resultsFile, JSON.stringify(outcome.results, null, 2) + '\n')
    }
  } finally {
    progress.stop()
    if (database !== null) await database.stop()
  }
  const { results, resultsFile, aborted } = outcome
  const report = await writeReport(results, config.outDir)
  const failed = results.cells.filter((c) => c.status !== 'ok')
  if (config.json) {
    stdout.write(JSON.stringify(results, null, 2) + '\n')
  } else {
    stdout.write(renderTimeShares(results) + '\n' + renderOwners(results) + renderBrowserFindings(results))
  }
  const relative = (file) => path.relative(process.cwd(), file) || file
  stderr.write(`nodebench bench: ${results.cells.length - failed.length} of ${results.cells.length} cells measured in ${Math.round(results.durationSec)} s\n`)
  stderr.write(`nodebench bench: results ${relative(resultsFile)}\n`)
  stderr.write(`nodebench bench: report ${relative(report.html)} (and ${path.basename(report.markdown)})\n`)
  if (aborted) {
    stderr.write(`nodebench: ${aborted}\n`)
    return 1
  }
  if (failed.length > 0) {
    stderr.write(`nodebench: ${failed.length} cell${failed.length === 1 ? '' : 's'} failed (marked in the report): ${failed[0].failure}\n`)
    return 1
  }
  return 0
}

module.exports = { runBenchCommand, renderTimeShares, renderOwners }
