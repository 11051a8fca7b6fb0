'use strict'

// A node:test reporter, added by `npm test` (run.js) beside node's own: it prints nothing while the suite runs,
// then the slowest test files, to stderr, after node's closing lines. A file's time is the one node:test reports
// for the file's own process (from its start until it exits: loading, every test, hooks and teardown), so the
// times add up to the suite's. NODEBENCH_TEST_TIMINGS=<file.json> also writes every file's time there, to
// compare runs.

const fs = require('node:fs')
const path = require('node:path')

const SHOWN = 15

/**
 * The file-level event: node:test reports each test file it ran in a process of its own as a top-level test
 * named by the path it was given (Node.js 20: the absolute path), with `file` the absolute path.
 */
function fileCompleted (event) {
  if (event.type !== 'test:complete') return null
  const { name, file, nesting, details } = event.data
  if (nesting !== 0 || typeof file !== 'string' || path.resolve(name) !== file) return null
  return { file: path.relative(process.cwd(), file), seconds: details.duration_ms / 1000, passed: details.passed }
}

/** The closing table: the `shown` slowest files, longest first, and what they take of the whole. */
function slowestTable (timings, { shown = SHOWN, node = process.version } = {}) {
  const total = timings.reduce((sum, timing) => sum + timing.seconds, 0)
  const slowest = [...timings].sort((a, b) => b.seconds - a.seconds).slice(0, shown)
  const slowestTotal = slowest.reduce((sum, timing) => sum + timing.seconds, 0)
  const lines = [`nodebench tests: the ${slowest.length} slowest of ${timings.length} files under Node.js ${node} ` +
    `(${formatSeconds(slowestTotal)} of ${formatSeconds(total)} s in all):`]
  for (const timing of slowest) {
    lines.push(`  ${formatSeconds(timing.seconds).padStart(7)} s  ${timing.file}${timing.passed ? '' : '  (failed)'}`)
  }
  return lines.join('\n') + '\n'
}

function formatSeconds (seconds) {
  return seconds.toFixed(1)
}

/**
 * The reporters `npm test` names: node's own on stdout, the one it picks when none is named (spec on a terminal
 * and from Node.js 23 on, TAP otherwise: CI reads its closing lines), and this one on stderr.
 */
function reporterArguments ({ version = process.versions.node, terminal = process.stdout.isTTY } = {}) {
  const ownReporter = terminal || Number(version.split('.')[0]) >= 23 ? 'spec' : 'tap'
  return [`--test-reporter=${ownReporter}`, '--test-reporter-destination=stdout',
    `--test-reporter=${__filename}`, '--test-reporter-destination=stderr']
}

async function * fileTimings (source) {
  const timings = []
  for await (const event of source) {
    const timing = fileCompleted(event)
    if (timing !== null) timings.push(timing)
  }
  if (timings.length === 0) return
  if (process.env.NODEBENCH_TEST_TIMINGS) {
    fs.writeFileSync(process.env.NODEBENCH_TEST_TIMINGS, JSON.stringify({ node: process.version, files: timings }, null, 2) + '\n')
  }
  yield slowestTable(timings)
}

module.exports = fileTimings
module.exports.fileCompleted = fileCompleted
module.exports.slowestTable = slowestTable
module.exports.reporterArguments = reporterArguments
