'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { formatShare, formatCount, formatMs } = require('../render/format')
const { htmlTable, markdownTable, textTable } = require('../render/tables')
const { apartText, functionTable } = require('./render-comparison')

// Time or CPU, per segment, for one profile: each segment's share of response time (the breakdown of the
// profiled window) beside its share of the CPU samples of the same window (segment-cpu.js), what its samples
// mostly are, and what no segment holds; then what each segment's time is (its own CPU, the dependencies it
// waited on, the rest: waiting behind other work), and the profile's hottest functions. Built once as text
// cells; render/tables.js escapes and lays out.

// How many of the hottest functions the segment sections name (the JSON keeps analyzeProfile's 15).
const TOP_FUNCTIONS = 10

function categoriesText (categories) {
  return categories.map(({ category, share }) => `${category} ${formatShare(share)}`).join(', ') || '-'
}

const NOT_ATTRIBUTED = Object.freeze({
  contexts: 'not attributed (no stack or context names it: the event loop, streams, native code; other operations\' requests)',
  stacks: 'not attributed (async continuations, I/O, the event loop)'
})

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
  // Work outside the segments that the stack names (outside-segments.js), where there is any.
  for (const outside of segments.outsideSegments ?? []) {
    if (outside.samples === 0) continue
    rows.push({ cells: ['', outside.name, '', '-', formatShare(outside.share), formatCount(outside.samples), categoriesText(outside.categories)] })
  }
  rows.push({
    cells: ['', segments.contexts ? NOT_ATTRIBUTED.contexts : NOT_ATTRIBUTED.stacks, '', '-', formatShare(segments.notAttributed.share),
      formatCount(segments.notAttributed.samples), categoriesText(segments.notAttributed.categories)]
  })
  return {
    head: ['#', 'segment', 'kind', 'share of response time', 'share of CPU samples', 'samples', 'what its samples are'],
    numeric: [true, false, false, true, true, true, false],
    rows
  }
}

/** `ms (share of the segment's time)`. */
function partText (ms, share) {
  return `${formatMs(ms)} (${formatShare(share)})`
}

function dependencyText ({ system, operation, target, meanMs, inProcess }) {
  const name = [system, operation, target].filter((word) => typeof word === 'string' && word !== '').join(' ')
  return `${name} ${formatMs(meanMs)} ms${inProcess ? ' (CPU)' : ''}`
}

/**
 * What each segment's time is, per invocation (segment-cpu.js's segmentTime), or null when the profile has no
 * times (no breakdown, or samples of no known window: clinic's).
 */
function timeTable ({ analysis }) {
  const segments = analysis.segments
  if (segments === null || segments === undefined || !segments.segments.some((segment) => segment.time)) return null
  const rows = segments.segments.filter((segment) => segment.time).map(({ order, name, time }) => ({
    cells: [
      String(order + 1), name, formatMs(time.ms), partText(time.cpuMs, time.cpuShare),
      partText(time.dependencyMs, time.dependencyShare),
      partText(time.restMs, time.restShare), time.dependencies.map(dependencyText).join('; ') || '-'
    ]
  }))
  return {
    head: ['#', 'segment', 'time (ms)', 'its own CPU', 'dependencies', 'the rest: waiting behind other work', 'dependencies named'],
    numeric: [true, false, true, true, true, true, false],
    rows
  }
}

// A segment worth a sentence: this much of the response time at least, and this much of its own time one thing.
const FINDING_WALL_SHARE = 0.1
const FINDING_PART_SHARE = 0.5

/**
 * What the time table says of the segments that hold the response time, in words: where a segment's time is
 * mostly waiting behind other work, mostly its dependencies, or mostly its own CPU. Empty without times.
 */
function timeFindings ({ analysis }) {
  const segments = analysis.segments?.segments ?? []
  // What the process is busy with: the segment with the most CPU samples.
  let busiest = null
  for (const segment of segments) if (busiest === null || segment.cpuShare > busiest.cpuShare) busiest = segment
  const findings = []
  for (const segment of segments) {
    const { name, wallShare, time } = segment
    if (!time || !(wallShare >= FINDING_WALL_SHARE)) continue
    const of = `${name} (${formatShare(wallShare)} of the response time, ${formatMs(time.ms)} ms an invocation)`
    if (time.restShare >= FINDING_PART_SHARE && segment === busiest && segment.cpuShare >= FINDING_PART_SHARE) {
      findings.push(`${of} is ${formatShare(time.restShare)} waiting behind other work, and that work is mostly its own ` +
        `code in other requests (${formatShare(segment.cpuShare)} of the CPU samples): making it faster shortens both.`)
    } else if (time.restShare >= FINDING_PART_SHARE) {
      const elsewhere = busiest !== null && busiest !== segment && busiest.cpuShare >= FINDING_PART_SHARE
        ? `${busiest.name} holds ${formatShare(busiest.cpuShare)} of the CPU samples`
        : 'other requests, garbage collection'
      findings.push(`${of} is ${formatShare(time.restShare)} waiting behind other work: the process is busy elsewhere ` +
        `(${elsewhere}); making its own code faster would not shorten it.`)
    } else if (time.dependencyShare >= FINDING_PART_SHARE) {
      const longest = time.dependencies.filter((d) => !d.inProcess).sort((a, b) => b.meanMs - a.meanMs)[0]
      findings.push(`${of} is ${formatShare(time.dependencyShare)} waiting on its dependencies` +
        `${longest ? `, most of it ${dependencyText(longest)}` : ''}.`)
    } else if (time.cpuShare >= FINDING_PART_SHARE) {
      findings.push(`${of} is ${formatShare(time.cpuShare)} its own CPU: its hottest functions are where to look.`)
    }
  }
  return findings
}

/** The hottest functions of the profile (self time), as the comparison names them; null when it has none. */
function hottestTable ({ analysis }) {
  const functions = Array.isArray(analysis.topFunctions) ? analysis.topFunctions.slice(0, TOP_FUNCTIONS) : []
  return functions.length === 0 ? null : functionTable(functions)
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
  const contexts = analysis.segments?.contexts
  const attribution = contexts
    ? 'a sample counts for the innermost timed layer on its stack (its synchronous part: its own code and what it ' +
      'calls before returning), else for the segment in whose async context it ran (the code after an await, a ' +
      'callback or a promise continuation it waits on)'
    : 'a sample counts for the innermost timed layer on its stack (its synchronous part: its own code and what it ' +
      'calls before returning); without the app\'s async contexts (V8\'s profiler in an app that runs @nodebench/trace ' +
      'has them), continuations count for nobody'
  return `${where}. Each segment's share of response time, from the breakdown of the window, beside its share of the ` +
    `${formatCount(analysis.samples)} samples on CPU: ${attribution}. ${OUTSIDE_TEXT} ${window}`
}

const OUTSIDE_TEXT = 'A sample no segment holds is named by its stack where it can be: Node.js\'s HTTP server and Express\'s ' +
  'routing outside the segments (parsing a request and routing it to its first segment, finishing its response), the ' +
  'database driver in no request, the log of contexts; the rest is not attributed, never spread over the segments.'

const TIME_TITLE = 'What each segment\'s time is'
const TIME_ABOUT = 'Per invocation: its own CPU (its samples\' worth of the window, over its invocations), the dependencies ' +
  'it waited on (the breakdown\'s, overlapping calls counted once; rendering and serialising run on the app\'s thread and ' +
  'are CPU, marked so), and the rest: waiting behind other work (other requests\' turns on the event loop, garbage ' +
  'collection). A segment whose time is mostly the rest is slow because the process is busy, not because of its code.'
const HOTTEST_TITLE = 'Hottest functions'

function hottestAbout ({ analysis }) {
  return `Self time, as a share of the samples on CPU: ${categoriesText(analysis.categories ?? [])}.`
}

function findingsHtml (findings) {
  return findings.length === 0 ? [] : [`<ul class="findings">${findings.map((finding) => `<li>${escapeHtml(finding)}</li>`).join('')}</ul>`]
}

function renderSegmentsMarkdown (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  const times = timeTable(flamegraph)
  const hottest = hottestTable(flamegraph)
  return [`## ${escapeMarkdown(words.title)}\n`, `${escapeMarkdown(words.about)}\n`, `${escapeMarkdown(words.apart)} ${escapeMarkdown(words.overhead)}\n`,
    table === null ? `No segment table: ${escapeMarkdown(flamegraph.breakdownFailure || 'the app served no breakdown')}.\n` : markdownTable(table),
    ...(times === null ? [] : [`### ${escapeMarkdown(TIME_TITLE)}\n`, `${escapeMarkdown(TIME_ABOUT)}\n`, markdownTable(times)]),
    ...timeFindings(flamegraph).map((finding) => `- ${escapeMarkdown(finding)}`), '',
    ...(hottest === null ? [] : [`### ${HOTTEST_TITLE}\n`, `${escapeMarkdown(hottestAbout(flamegraph))}\n`, markdownTable(hottest)])].join('\n')
}

function renderSegmentsHtml (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  const times = timeTable(flamegraph)
  const hottest = hottestTable(flamegraph)
  return [`<section class="flame-segments" data-format="${escapeHtml(flamegraph.format)}">`, `<h3>${escapeHtml(words.title)}</h3>`,
    `<p>${escapeHtml(words.about)}</p>`, `<p>${escapeHtml(words.apart)} ${escapeHtml(words.overhead)}</p>`,
    table === null ? `<p>No segment table: ${escapeHtml(flamegraph.breakdownFailure || 'the app served no breakdown')}.</p>` : htmlTable(table),
    ...(times === null ? [] : [`<h4>${escapeHtml(TIME_TITLE)}</h4>`, `<p>${escapeHtml(TIME_ABOUT)}</p>`, htmlTable(times)]),
    ...findingsHtml(timeFindings(flamegraph)),
    ...(hottest === null ? [] : [`<h4>${HOTTEST_TITLE}</h4>`, `<p>${escapeHtml(hottestAbout(flamegraph))}</p>`, htmlTable(hottest)]),
    '</section>\n'].join('\n')
}

function renderSegmentsText (flamegraph, options) {
  const table = segmentTable(flamegraph)
  const words = texts(flamegraph, options)
  const times = timeTable(flamegraph)
  const hottest = hottestTable(flamegraph)
  return [words.title, `${words.about}\n${words.apart} ${words.overhead}\n`,
    table === null ? `No segment table: ${flamegraph.breakdownFailure || 'the app served no breakdown'}.\n` : textTable(table),
    ...(times === null ? [] : [`${TIME_TITLE}: ${TIME_ABOUT}\n`, textTable(times)]),
    ...timeFindings(flamegraph).map((finding) => `- ${finding}`),
    ...(hottest === null ? [] : [`${HOTTEST_TITLE}: ${hottestAbout(flamegraph)}\n`, textTable(hottest)])].join('\n')
}

module.exports = {
  renderSegmentsMarkdown,
  renderSegmentsHtml,
  renderSegmentsText,
  segmentTable,
  timeTable,
  timeFindings
}
