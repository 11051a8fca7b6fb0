'use strict'

const { benchConfig: benchFeatureConfig } = require('./bench/config')
const { flameConfig } = require('./flame/config')
const { browserConfig } = require('./browser/config')
const { compareConfig } = require('./compare/config')
const { commandOptions } = require('./command-options')
const { displayPath } = require('./kernel/paths')

// nodebench from JavaScript: each feature's configuration (from the command line's option names) and its run,
// what the command files call and print from. The one place features meet: a bench run's flame and browser
// passes are those features' own, handed to bench here (the feature folders never import each other).
// A run's modules are required when it is called: they load autocannon, the profilers, Chromium's driver and
// the collector, which parsing a command line (or `nodebench services`) does not need.

/** The passes `config` asks for after the matrix (--flame, --browser). */
function benchPasses (config) {
  return [
    ...(config.flame === null ? [] : [require('./flame/pass').flamePass(config.flame)]),
    ...(config.browser ? [require('./browser/pass').browserPass()] : [])
  ]
}

/**
 * The configuration of a bench run (bench/config.js), and with `baseline` (a stored run's results.json or its
 * folder) the comparison of the new run against it: `baseline` is read and checked now, before any load
 * (NB_ERR_COMPARE_INPUT, exit 2, when it cannot be compared: unreadable, another workload, no cell in common);
 * `fail-on` as compare's.
 */
function benchConfig (values, options) {
  const config = benchFeatureConfig(values, options)
  // The app's cells only: the servers beside it (--baseline-targets, a workload's targets) are not compared.
  const cells = values.baseline === undefined ? [] : require('./kernel/plan').cellsOf(config).filter((cell) => cell.target.kind === 'app')
  const against = require('./compare/baseline').baselineOf(values, config, cells, commandOptions('bench').usageError)
  return against === null ? config : Object.freeze({ ...config, ...against })
}

/**
 * Runs a bench run (benchConfig's `config`): the matrix, then its flame and browser passes, and the report; with a
 * baseline, the comparison against it (compare.md, compare.json, compare.html beside the report). Resolves to
 * `{ results, resultsFile, report, aborted, comparison? }` (bench/run.js; comparison: runCompare's).
 */
async function runBench (config, options = {}) {
  const outcome = await require('./bench/run').runBench(config, { ...options, passes: benchPasses(config) })
  if (!config.baseline || outcome.aborted) return outcome
  const comparison = await require('./compare/run').compareResults(config.baseline.results, outcome.results, {
    sides: { a: { name: 'baseline', source: displayPath(config.baseline.file) }, b: { name: 'this run', source: displayPath(outcome.resultsFile) } },
    failOn: config.failOn,
    outDir: config.outDir
  })
  return { ...outcome, comparison }
}

/** What `nodebench bench` prints on stdout for `results`: time shares, owners, what its passes found. */
function renderBenchText (results) {
  // The sections a bench run may hold beyond the matrix, in page order.
  const sections = [require('./flame/pass').flameSection, require('./browser/pass').browserSection]
  return require('./bench/report').renderText(results, { sections })
}

/** Profiles a flame run (flameConfig's `config`); resolves to `{ flamegraphs, comparison, files }` (flame/run.js). */
function runFlame (config, options) {
  return require('./flame/run').runFlame(config, options)
}

/**
 * Loads a browser run's pages (browserConfig's `config`) and writes browser.md and browser.html beside its
 * results; resolves to `{ results, resultsFile, report: { markdown, html } }` (browser/run.js, browser/report.js).
 */
async function runBrowser (config, options) {
  const outcome = await require('./browser/run').runBrowser(config, options)
  const report = await require('./browser/report').writeBrowserReport(outcome.results, config.outDir)
  return { ...outcome, report }
}

/**
 * The breakdown a report names (its source, where, which service); resolves to `{ snapshot, traces, jaegerUi, page }`:
 * from Jaeger, each operation's exemplar requests as waterfalls, drawn in report.html in `config.outDir`
 * (report/run.js).
 */
function runReport (config, options) {
  return require('./report/run').runReport(config, options)
}

/** One trace's waterfall from Jaeger (`{ jaeger, trace }`): every process's spans on one time axis. */
function runTrace (config) {
  return require('./report/run').runTrace(config)
}

/**
 * Compares two runs, or measures two apps paired (compareConfig's `config`), and writes compare.md, compare.json
 * and compare.html. Resolves to `{ comparison, files, runs }` (compare/run.js).
 */
function runCompare (config, options) {
  return require('./compare/run').runCompare(config, options)
}

/** What `nodebench compare` prints on stdout for a comparison: the verdicts, the segments that moved. */
function renderCompareText (comparison) {
  return require('./compare/report').renderText(comparison)
}

/** One line per regression beyond --fail-on (what compare and bench --baseline print before exiting 1). */
function compareRegressionLines (comparison) {
  return require('./compare/report-data').regressionLines(comparison)
}

module.exports = {
  benchConfig,
  runBench,
  renderBenchText,
  flameConfig,
  runFlame,
  browserConfig,
  runBrowser,
  runReport,
  runTrace,
  compareConfig,
  runCompare,
  renderCompareText,
  compareRegressionLines
}
