'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { formatShare, formatCount } = require('../render/format')
const { htmlTable, markdownTable, textTable } = require('../render/tables')
const { apartText } = require('./render-comparison')

// Time or CPU, per segment, for one profile: each segment's share of response time (the breakdown of the
// profiled window) beside its share of the CPU samples of the same window (segment-cpu.js), what its samples
// mostly are, and what no segment holds. Built once as text cells; render/tables.js escapes and lays out.

function categoriesText (categories) {
  return categories.map(({ category, share }) => `${category} ${formatShare(share)}`).join(', ') || '-'
}

/** The table of `flamegraph.analysis.segments`, or null when the profile has none (no breakdown). */
function segmentTable ({ analysis }) {
  const segments = analysis.segments
  if (segments === null || segments === undefined) return null
  const rows = segments.segments.map((segment) => ({
    cells: [
      String(segment.order + 1), segment.name, segment.kind, formatShare(segment.wallShare),
      formatShare(segment.cpuShare), formatCount(segment.samples), categoriesText(segment.categories)
    ]
  }))
  const { garbageCollection } = segments
  rows.push({ cells: ['', 'garbage collection', '', '-', formatShare(garbageCollection.share), formatCount(garbageCollection.samples), ''] })
  rows.push({
    cells: ['', 'not attributed (async continuations, I/O, the event loop)', '', '-', formatShare(segments.notAttributed.share),
      formatCount(segments.notAttributed.samples), categoriesText(segments.notAttributed.categories)]
  })
  return {
    head: ['#', 'segment', 'kind', 'share of response time', 'share of CPU samples', 'samples', 'what its samples are'],
    numeric: [true, false, false, true, true, true, false],
    rows
  }
}

const PROFILER_NAMES = Object.freeze({ v8: 'V8\'s sampling profiler', '0x': '0x (node --prof)', clinic: 'clinic flame (node --prof)' })

/** The words around the table. */
function texts (flamegraph, { scenario, profiler: profilerKey }) {
  const profiler = PROFILER_NAMES[profilerKey] ?? profilerKey
  const { analysis, overhead, operation, format } = flamegraph
  const title = `Time or CPU: ${scenario} (${format})`
  const where = operation
    ? `${operation.method} ${operation.route} [${operation.format}], ${formatCount(operation.count)} requests in the profiled window`
    : 'no breakdown'
  const window = analysis.windowed || analysis.source === 'cpuprofile'
    ? 'The samples are those of the profiled window alone (after the warm-up, before the load ended).'
    : 'The samples cover the whole run, warm-up included (this profiler keeps no sample times).'
  return {
    title,
    about: aboutText(flamegraph, where, window),
    apart: `Apart from those samples: ${apartText(analysis, 'here')}; ` +
    `${formatCount(analysis.idleSamples)} idle.`,
    overhead: overheadText(overhead, profiler)
  }
}

/**
 * The profiler's measured cost in words. Served more requests/s under the profiler than without is not the
 * profiler speeding the app up: the machine's own variation between the two windows was larger than the cost.
 */
function overheadText (overhead, profiler) {
  if (!overhead || overhead.ratio === null) return `${profiler}'s overhead could not be measured (no throughput on one side).`
  const profiled = Math.round(overhead.profiledRequestsPerSec)
  const figures = `${profiled} requests/s under it against ${Math.round(overhead.unprofiledRequestsPerSec)} without, ${overhead.how}`
  if (overhead.ratio >= 1) {
    return `Measured overhead of ${profiler}: within noise (${figures}: the windows varied more than the profiler costs).`
  }
  return `Measured overhead of ${profiler}: the app served ${formatShare(overhead.ratio)} of its unprofiled requests/s under it (${figures}).`
}

function aboutText ({ analysis }, where, window) {
  return `${where}. Each segment's share of response time, from the breakdown of the window, beside its share of the ` +
    `${formatCount(analysis.samples)} samples on CPU: a sample counts for the innermost timed layer on its stack (its ` +
    'synchronous part: its own code and what it calls before returning). ' + window
}

function renderSegmentsMarkdown (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  return [`## ${escapeMarkdown(words.title)}\n`, `${escapeMarkdown(words.about)}\n`, `${escapeMarkdown(words.apart)} ${escapeMarkdown(words.overhead)}\n`,
    table === null ? `No segment table: ${escapeMarkdown(flamegraph.breakdownFailure || 'the app served no breakdown')}.\n` : markdownTable(table)].join('\n')
}

function renderSegmentsHtml (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  return [`<section class="flame-segments" data-format="${escapeHtml(flamegraph.format)}">`, `<h3>${escapeHtml(words.title)}</h3>`,
    `<p>${escapeHtml(words.about)}</p>`, `<p>${escapeHtml(words.apart)} ${escapeHtml(words.overhead)}</p>`,
    table === null ? `<p>No segment table: ${escapeHtml(flamegraph.breakdownFailure || 'the app served no breakdown')}.</p>` : htmlTable(table),
    '</section>\n'].join('\n')
}

function renderSegmentsText (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  return [words.title, `${words.about}\n${words.apart} ${words.overhead}\n`,
    table === null ? `No segment table: ${flamegraph.breakdownFailure || 'the app served no breakdown'}.\n` : textTable(table)].join('\n')
}

module.exports = { renderSegmentsMarkdown, renderSegmentsHtml, renderSegmentsText, segmentTable }
