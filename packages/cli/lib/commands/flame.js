'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { resolveDatabase } = require('@nodebench/services')
const { runHook } = require('../workload')
const { profile } = require('../flame/profile')
const { analyzeProfile, compareProfiles } = require('../flame/analyze')
const { renderComparisonMarkdown, renderComparisonText } = require('../flame/render-comparison')
const { renderSegmentsMarkdown, renderSegmentsText } = require('../flame/render-segments')

// `nodebench flame`: flamegraphs of one scenario of a workload in each of its formats under load, each
// segment's share of the CPU beside its share of response time, the profiler's measured overhead, and for
// HTML and JSON the side-by-side table of where the CPU went in each (by category, and nodebench's own share).

/**
 * Profiles every format of `config` and compares them. Returns `{ flamegraphs: [{ format, html, profilePath,
 * load, window, operation, overhead, analysis }], comparison, files }`: each profile's analysis holds its
 * segments' CPU beside their time (when the app serves its breakdown); `comparison` is HTML against JSON when
 * both were profiled. The database comes from `env` (MONGODB_URI) or is started here.
 */
async function runFlame (config, { env, onProgress }) {
  let database = null
  const workload = config.workload
  const scenario = workload.scenarios[config.scenario]
  // The profiled app inherits this process's environment (the profilers spawn it).
  const savedUri = process.env.MONGODB_URI
  try {
    if (workload.services.includes('mongodb') && !env.MONGODB_URI) {
      // Started here, not by the profiled app: 0x takes the first port the app listens on as the app's.
      database = await resolveDatabase({ env, onProgress })
      process.env.MONGODB_URI = database.uri
    } else if (env.MONGODB_URI) {
      process.env.MONGODB_URI = env.MONGODB_URI
    }
    const values = await runHook(workload.setup, 'setup', workload, { env: process.env, log: onProgress })
    const flamegraphs = []
    for (const format of config.formats) {
      let result
      try {
        result = await profile(config, format, { values, onProgress })
      } finally {
        // After writes, put the data back as the next format's load expects it. A teardown that fails is said,
        // not thrown: it must not hide why the profile failed (as bench's runner does).
        await runHook(scenario.teardown, `scenario '${scenario.name}' teardown`, workload, { env: process.env, log: onProgress, values })
          .catch((err) => onProgress(err.message))
      }
      const analysis = analyzeProfile(result.profilePath, { window: result.windowUs, operation: result.operation })
      flamegraphs.push({ format, ...result, analysis })
    }
    await runHook(workload.teardown, 'teardown', workload, { env: process.env, log: onProgress, values })
      .catch((err) => onProgress(err.message))
    const html = flamegraphs.find((f) => f.format === 'html')
    const json = flamegraphs.find((f) => f.format === 'json')
    const comparison = html && json ? compareProfiles({ html: html.analysis, json: json.analysis }) : null
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
    return { flamegraphs, comparison, files }
  } finally {
    if (savedUri === undefined) delete process.env.MONGODB_URI
    else process.env.MONGODB_URI = savedUri
    if (database !== null) await database.stop()
  }
}

async function runFlameCommand (parsed, { stdout, stderr, env }) {
  const config = parsed.config
  const onProgress = (message) => stderr.write(`nodebench flame: ${message}\n`)
  const { flamegraphs, comparison, files } = await runFlame(config, { env, onProgress })
  const options = { scenario: config.scenario, profiler: config.profiler }
  for (const flamegraph of flamegraphs) stdout.write(renderSegmentsText(flamegraph, options) + '\n')
  if (comparison !== null) stdout.write(renderComparisonText(comparison, { scenario: config.scenario }) + '\n')
  const relative = (file) => path.relative(process.cwd(), file) || file
  for (const { format, html, load, analysis } of flamegraphs) {
    const loadText = load === null ? '' : `, ${load.requests} requests${load.unexpectedStatus > 0 ? ` (${load.unexpectedStatus} with an unexpected status)` : ''}`
    stderr.write(`nodebench flame: ${format}: ${relative(html)} (${analysis.samples} samples${loadText}; nodebench itself ${(analysis.nodebench.share * 100).toFixed(1)}%)\n`)
  }
  stderr.write(`nodebench flame: ${relative(files.markdown)} (and ${path.basename(files.json)})\n`)
  const failed = flamegraphs.filter((f) => f.load !== null && (f.load.requests === 0 || f.load.unexpectedStatus > 0))
  if (failed.length > 0) {
    stderr.write(`nodebench: the ${failed[0].format} load had ${failed[0].load.unexpectedStatus} responses with an unexpected status out of ${failed[0].load.requests}\n`)
    return 1
  }
  return 0
}

module.exports = { runFlame, runFlameCommand }
