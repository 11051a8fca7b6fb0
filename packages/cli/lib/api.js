'use strict'

const { benchConfig } = require('./bench/config')
const { flameConfig } = require('./flame/config')
const { browserConfig } = require('./browser/config')

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
 * Runs a bench run (benchConfig's `config`): the matrix, then its flame and browser passes, and the report.
 * Resolves to `{ results, resultsFile, report, aborted }` (bench/run.js).
 */
function runBench (config, options = {}) {
  return require('./bench/run').runBench(config, { ...options, passes: benchPasses(config) })
}

/** What `nodebench bench` prints on stdout for `results`: time shares, owners, what its passes found. */
function renderBenchText (results) {
  // The sections a bench run may hold beyond the matrix, in page order.
  const sections = [require('./flame/pass').flameSection, require('./browser/pass').browserSection]
  return require('./bench/terminal').renderText(results, { sections })
}

/** Profiles a flame run (flameConfig's `config`); resolves to `{ flamegraphs, comparison, files }` (flame/run.js). */
function runFlame (config, options) {
  return require('./flame/run').runFlame(config, options)
}

/** Loads a browser run's pages (browserConfig's `config`); resolves to `{ results, resultsFile }` (browser/run.js). */
function runBrowser (config, options) {
  return require('./browser/run').runBrowser(config, options)
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

module.exports = {
  benchConfig,
  runBench,
  renderBenchText,
  flameConfig,
  runFlame,
  browserConfig,
  runBrowser,
  runReport,
  runTrace
}
