'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')
const { displayPath } = require('../kernel/paths')
const { readRun, checkResults, inputError } = require('./read-run')
const { compareRuns } = require('./compare-runs')
const { writeComparison } = require('./report')

// `runCompare`, the compare feature's API: two runs read (or measured now, paired: paired-run.js), compared
// (compare-runs.js), and the comparison written (report.js).

/** How a side of a paired run is named in the comparison. */
function pairedSide (config, index, file) {
  const side = config.sides[index]
  return { name: `${index === 0 ? 'A' : 'B'}${side.rev === null && side.target.app === null ? '' : `: ${side.name}`}`, source: `${side.source}; ${displayPath(file)}` }
}

/**
 * Runs `config` (compareConfig's). Resolves to `{ comparison, files, runs }`: `files` the paths of
 * compare.json, compare.md and compare.html; `runs` each side's results.json (read, or written by a paired run).
 * Throws NB_ERR_COMPARE_INPUT (exit 2) for runs that cannot be compared.
 */
async function runCompare (config, options = {}) {
  const { env = process.env, log = () => {}, onCell = () => {}, onNotice = () => {}, now = new Date() } = options
  let a, b, sides, runs
  if (config.mode === 'runs') {
    const [first, second] = config.runs.map((where) => readRun(where))
    ;({ results: a } = first)
    ;({ results: b } = second)
    runs = { a: first.file, b: second.file }
    sides = { a: { name: 'a', source: displayPath(first.file) }, b: { name: 'b', source: displayPath(second.file) } }
  } else {
    const paired = await require('./paired-run').runPaired(config, { env, log, onCell, onNotice })
    ;({ a, b } = paired)
    runs = paired.files
    sides = { a: pairedSide(config, 0, runs.a), b: pairedSide(config, 1, runs.b) }
    const measured = (results) => results.cells.filter((cell) => cell.status === 'ok').length
    if (measured(a) === 0 || measured(b) === 0) {
      const failed = [...a.cells, ...b.cells].find((cell) => cell.status !== 'ok')
      throw new NodebenchError(codes.NB_ERR_APP_START, `the paired run measured no cell on ${measured(a) === 0 ? 'A' : 'B'}: ${failed?.failure ?? 'nothing ran'}`)
    }
  }
  return compareResults(a, b, { sides, measure: config.mode === 'runs' ? undefined : config.measure, mode: config.mode, failOn: config.failOn, outDir: config.outDir, now, runs })
}

/**
 * Compares two results already in memory (bench --baseline: the run just made against a stored one) and writes
 * the comparison into `outDir`. Resolves to `{ comparison, files, runs }`.
 */
async function compareResults (a, b, { sides, measure, mode = 'runs', failOn = null, outDir, now = new Date(), runs = null }) {
  checkResults(a, sides.a.source)
  checkResults(b, sides.b.source)
  const measureOf = (results) => results.config?.measure ?? 'time'
  if (measureOf(a) !== measureOf(b)) {
    throw inputError(`a measured ${measureOf(a)} and b ${measureOf(b)}: compare needs the same measure on both sides`)
  }
  measure ??= measureOf(a)
  const comparison = compareRuns(a, b, { sides, measure, mode, failOn, now })
  const files = await writeComparison(comparison, outDir)
  return { comparison, files, runs }
}

module.exports = { runCompare, compareResults }
