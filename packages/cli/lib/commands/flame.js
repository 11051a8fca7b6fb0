'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { APP_TARGET_OPTIONS } = require('../kernel/app-target')
const { displayPath } = require('../kernel/paths')
const { flameConfig, runFlame } = require('../api')
const { renderComparisonText } = require('../flame/render-comparison')
const { renderSegmentsText } = require('../flame/render-segments')

// `nodebench flame`: the options, then runFlame (lib/api.js) and what it prints: each profile's segment table
// and HTML against JSON on stdout, the files on stderr.

const { parseCommand } = commandOptions('flame')

const OPTIONS = Object.freeze({
  ...APP_TARGET_OPTIONS,
  scenario: { type: 'string' },
  format: { type: 'string' },
  profiler: { type: 'string' },
  warmup: { type: 'string' },
  duration: { type: 'string' },
  connections: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
})

/**
 * `nodebench flame [--scenario <name>] [--format <name>|both] [--profiler v8|0x|clinic] [--warmup s] [--duration s]
 * [--connections n] [--out dir] [--app dir | --cmd "node script args" [--url base]] [--workload file]` ->
 * `{ command: 'flame', config }` (flameConfig's) or `{ command: 'help' }`.
 */
function parseFlameArguments (argv) {
  return parseCommand(argv, OPTIONS, (values) => flameConfig(values))
}

async function runFlameCommand ({ config }, { stdout, stderr, env }) {
  const onProgress = (message) => stderr.write(`nodebench flame: ${message}\n`)
  const { flamegraphs, comparison, files } = await runFlame(config, { env, onProgress })
  const options = { scenario: config.scenario, profiler: config.profiler }
  for (const flamegraph of flamegraphs) stdout.write(renderSegmentsText(flamegraph, options) + '\n')
  if (comparison !== null) stdout.write(renderComparisonText(comparison, { scenario: config.scenario }) + '\n')
  for (const { format, html, load, analysis, operation } of flamegraphs) {
    // The table's count is the window's (the breakdown read at its edges); the load ran a second past each edge.
    const windowText = operation ? `${operation.count} requests in the profiled window, ` : ''
    const loadText = load === null
      ? ''
      : `, ${windowText}${load.requests} in the whole load${load.unexpectedStatus > 0 ? ` (${load.unexpectedStatus} with an unexpected status)` : ''}`
    stderr.write(`nodebench flame: ${format}: ${displayPath(html)} (${analysis.samples} samples${loadText}; nodebench itself ${(analysis.nodebench.share * 100).toFixed(1)}%)\n`)
  }
  stderr.write(`nodebench flame: ${displayPath(files.markdown)} (and ${path.basename(files.json)})\n`)
  const failed = flamegraphs.filter((f) => f.load !== null && (f.load.requests === 0 || f.load.unexpectedStatus > 0))
  if (failed.length > 0) {
    stderr.write(`nodebench: the ${failed[0].format} load had ${failed[0].load.unexpectedStatus} responses with an unexpected status out of ${failed[0].load.requests}\n`)
    return 1
  }
  return 0
}

module.exports = { parseFlameArguments, runFlameCommand, OPTIONS }
