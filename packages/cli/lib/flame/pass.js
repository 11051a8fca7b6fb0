'use strict'

const path = require('node:path')
const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { section } = require('../render/page')
const { flameConfig } = require('./config')
const { runFlame } = require('./run')
const { renderComparisonHtml, renderComparisonMarkdown } = require('./render-comparison')
const { renderSegmentsHtml, renderSegmentsMarkdown } = require('./render-segments')

// `bench --flame`: a flamegraph of every scenario of the run in every format (V8's sampling profiler, one
// process) on the bench's own app and database, into `<out>/flamegraphs/`, with each segment's CPU beside its
// time and the HTML-against-JSON table of where the CPU went; and its section of the bench report. A pass
// as bench/run.js takes them: `{ key, run(context), section }`.

/** What results.json keeps of a profile: links, the load, and what the report's segment table needs. */
function keptOf (flamegraph, outDir) {
  const { format, html, load, operation, overhead, breakdownFailure, analysis } = flamegraph
  return {
    format,
    html: path.relative(outDir, html),
    load,
    samples: analysis.samples,
    nodebenchShare: analysis.nodebench.share,
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
      categories: analysis.categories,
      topFunctions: analysis.topFunctions,
      contexts: analysis.contexts,
      segments: analysis.segments
    }
  }
}

/** The flame pass of a bench run: `settings` `{ duration, warmup }` (bench's --flame-duration). */
function flamePass (settings) {
  return {
    key: 'flame',
    async run ({ target, workload, scenarios, formats, connections, outDir, env, onProgress }) {
      const profiles = []
      for (const scenario of scenarios) {
        const profiler = 'v8'
        try {
          const config = flameConfig({
            scenario,
            format: formats.filter((format) => workload.scenarios[scenario].formats.includes(format)),
            profiler,
            warmup: settings.warmup,
            duration: settings.duration,
            connections: Math.min(connections[scenario], 10),
            out: path.join(outDir, 'flamegraphs'),
            app: target.app ?? undefined,
            cmd: target.cmd ?? undefined,
            url: target.url ?? undefined,
            'stop-grace': target.stopGraceMs === undefined ? undefined : String(target.stopGraceMs / 1000)
          }, { workload })
          const { flamegraphs, comparison } = await runFlame(config, { env, onProgress })
          profiles.push({
            scenario,
            profiler,
            warmupSec: config.warmup,
            durationSec: config.duration,
            connections: config.connections,
            flamegraphs: flamegraphs.map((flamegraph) => keptOf(flamegraph, outDir)),
            comparison
          })
        } catch (err) {
          onProgress(`${scenario} could not be profiled: ${err.message}`)
          profiles.push({ scenario, profiler, failure: err.message, flamegraphs: [], comparison: null })
        }
      }
      return profiles
    },
    section: flameSection
  }
}

const TITLE = 'Flamegraphs: CPU beside time per segment, HTML against JSON'

/** The bench report's section: links to the flamegraphs, each segment's CPU, HTML against JSON. */
const flameSection = Object.freeze({
  key: 'flame',
  id: 'flame',
  nav: 'Flamegraphs',
  async html (profiles) {
    return section('flame', TITLE, profiles.map((profile) => {
      const heading = `<h3>${escapeHtml(profile.scenario)}</h3>`
      if (profile.failure) return `${heading}<p class="failed"><strong>failed</strong>: ${escapeHtml(profile.failure)}</p>`
      const links = profile.flamegraphs.map((f) => `<a href="${escapeHtml(f.html)}">${escapeHtml(f.format)} flamegraph</a> ` +
        `(${escapeHtml(f.samples.toLocaleString('en-US'))} samples, nodebench itself ${escapeHtml((f.nodebenchShare * 100).toFixed(1))}%)`).join(' · ')
      const profiler = profile.profiler === 'v8' ? 'V8\'s sampling profiler' : profile.profiler
      const segments = profile.flamegraphs.filter((f) => f.analysis)
        .map((f) => renderSegmentsHtml(f, { scenario: profile.scenario, profiler: profile.profiler })).join('\n')
      return `${heading}<p>${links}; ${escapeHtml(String(profile.durationSec))} s of load sampled` +
        `${profile.warmupSec ? ` after ${escapeHtml(String(profile.warmupSec))} s of warm-up` : ''}, ` +
        `${escapeHtml(String(profile.connections))} connections, one process, ${escapeHtml(profiler)}.</p>\n` + segments +
        (profile.comparison ? renderComparisonHtml(profile.comparison, { scenario: profile.scenario }) : '')
    }).join('\n'))
  },
  markdown (profiles) {
    return `## ${TITLE}\n\n` + profiles.map((profile) => {
      if (profile.failure) return `### ${escapeMarkdown(profile.scenario)}\n\n**failed**: ${escapeMarkdown(profile.failure)}\n`
      const links = profile.flamegraphs.map((f) => `[${f.format} flamegraph](${f.html}) (${f.samples} samples, nodebench itself ${(f.nodebenchShare * 100).toFixed(1)}%)`).join(', ')
      // The comparison and the segment tables bring their own titles (# ...): nested under this section.
      const table = profile.comparison ? renderComparisonMarkdown(profile.comparison, { scenario: profile.scenario }).replace(/^(#+) /gm, '$1## ') : ''
      const segments = profile.flamegraphs.filter((f) => f.analysis)
        .map((f) => renderSegmentsMarkdown(f, { scenario: profile.scenario, profiler: profile.profiler }).replace(/^(#+) /gm, '$1# ')).join('\n')
      return `${links}\n\n${segments}\n${table}`
    }).join('\n')
  },
  // The terminal has the flamegraphs' paths on stderr as they are written; the report has the tables.
  text: () => ''
})

module.exports = { flamePass, flameSection }
