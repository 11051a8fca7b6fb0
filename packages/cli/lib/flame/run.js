'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { runHook } = require('../kernel/workload')
const { openDatabase } = require('../kernel/database')
const { profile } = require('./profile')
const { analyzeProfile, compareProfiles } = require('./analyze')
const { renderComparisonMarkdown } = require('./render-comparison')
const { renderSegmentsMarkdown } = require('./render-segments')

// `runFlame`, the flame feature's API: flamegraphs of one scenario of a workload in each of its formats under
// load, each segment's share of the CPU beside its share of response time, the profiler's measured overhead,
// and for HTML and JSON the side-by-side table of where the CPU went in each (by category, and nodebench's own
// share), written beside the flamegraphs as <scenario>-comparison.md and .json.

/**
 * Profiles every format of `config` (flameConfig's) and compares them. Resolves to `{ flamegraphs: [{ format,
 * html, profilePath, load, window, operation, overhead, analysis }], comparison, files }`: each profile's
 * analysis holds its segments' CPU beside their time (when the app serves its breakdown); `comparison` is HTML
 * against JSON when both were profiled. The app's database is kernel/database.js's: MONGODB_URI in `env`, else
 * the `db` service, else one started here before the app (0x takes the first port the app listens on as its).
 */
async function runFlame (config, { env = process.env, onProgress = () => {} } = {}) {
  const workload = config.workload
  const scenario = workload.scenarios[config.scenario]
  const database = await openDatabase(config.target, workload, { env, onProgress })
  try {
    const appEnv = database.env
    const values = await runHook(workload.setup, 'setup', workload, { env: appEnv, log: onProgress })
    const flamegraphs = []
    for (const format of config.formats) {
      let result
      try {
        result = await profile(config, format, { env: appEnv, values, onProgress })
      } finally {
        // After writes, put the data back as the next format's load expects it. A teardown that fails is said,
        // not thrown: it must not hide why the profile failed (as bench's matrix does).
        await runHook(scenario.teardown, `scenario '${scenario.name}' teardown`, workload, { env: appEnv, log: onProgress, values })
          .catch((err) => onProgress(err.message))
      }
      const analysis = analyzeProfile(result.profilePath, {
        window: result.windowUs, operation: result.operation, breakdownMs: result.window?.breakdownMs ?? null
      })
      flamegraphs.push({ format, ...result, analysis })
    }
    await runHook(workload.teardown, 'teardown', workload, { env: appEnv, log: onProgress, values })
      .catch((err) => onProgress(err.message))
    const html = flamegraphs.find((f) => f.format === 'html')
    const json = flamegraphs.find((f) => f.format === 'json')
    const comparison = html && json ? compareProfiles({ html: html.analysis, json: json.analysis }) : null
    const files = writeComparison(config, { flamegraphs, comparison })
    return { flamegraphs, comparison, files }
  } finally {
    await database.stop()
  }
}

/** <scenario>-comparison.md (every segment table, then HTML against JSON) and .json beside the flamegraphs. */
function writeComparison (config, { flamegraphs, comparison }) {
  const files = {
    markdown: path.join(config.outDir, `${config.scenario}-comparison.md`),
    json: path.join(config.outDir, `${config.scenario}-comparison.json`)
  }
  const options = { scenario: config.scenario, profiler: config.profiler }
  fs.writeFileSync(files.markdown, [
    ...flamegraphs.map((flamegraph) => renderSegmentsMarkdown(flamegraph, options)),
    comparison === null ? '' : renderComparisonMarkdown(comparison, { scenario: config.scenario })
  ].join('\n'))
  fs.writeFileSync(files.json, JSON.stringify({
    schema: 2,
    scenario: config.scenario,
    profiler: config.profiler,
    warmupSec: config.warmup,
    durationSec: config.duration,
    connections: config.connections,
    flamegraphs: flamegraphs.map(({ html, profilePath, ...kept }) => ({
      format: kept.format,
      html: path.basename(html),
      profile: path.basename(profilePath),
      load: kept.load,
      window: kept.window,
      operation: kept.operation,
      overhead: kept.overhead,
      breakdownFailure: kept.breakdownFailure,
      analysis: kept.analysis
    })),
    comparison
  }, null, 2) + '\n')
  return files
}

module.exports = { runFlame }
