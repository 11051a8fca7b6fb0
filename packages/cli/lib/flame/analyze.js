'use strict'

const { inspect } = require('node:util')
const { CATEGORIES, CATEGORY_ORDER, frameCategory } = require('./categories')
const { readSamples, VM_STATES } = require('./read-profile')
const { segmentCpu } = require('./segment-cpu')

// Where a profiled app spends its CPU, by category (categories.js), and HTML against JSON side by side.
//
// Self time: every sample is charged to one function, the JavaScript frame on top of its stack (builtins,
// C++ and unnamed code above it are work done for it), and to one category, the first frame down the stack
// that a rule claims. Exceptions, decided by V8's state when it took the sample, and counted apart, in no
// share:
// - idle (waiting in the event loop for I/O, or in Atomics.wait);
// - the profiler's own cost: under --prof (0x, clinic), V8 writing its log on the app's thread;
// - compiling (the parser, bytecode and optimizing compilers), which a warm-up before the window leaves
//   little of; V8's sampling profiler (.cpuprofile) does not tell it apart from its other native work.
// Garbage collection is 'V8 / GC', on CPU. With a window (the sampled part of the load: after the warm-up,
// before the load ends), only the samples taken in it count, where the source has their times.
// Samples without V8's state (clinic flame's, source 'ticks') are idle when they hold nothing but the event
// loop's wait for I/O, and their garbage collection and compilation count for the code they interrupted.
// Node.js core, builtins and C++ that nodebench's code calls directly (an inspector round trip, JSON.stringify
// of its own data, performance.now) are nodebench's: its overhead, not the app's.

const IDLE_STATES = new Set([VM_STATES.IDLE, VM_STATES.ATOMICS_WAIT])
const V8_STATE_LABELS = Object.freeze({
  [VM_STATES.GC]: '(garbage collector)',
  [VM_STATES.PARSER]: '(parser)',
  [VM_STATES.BYTECODE_COMPILER]: '(bytecode compiler)',
  [VM_STATES.COMPILER]: '(compiler)'
})
// Under --prof V8 writes a line to its log for every piece of code it makes, and flushes each line
// (LogFile::MessageBuilder::WriteToLogFile ends with std::endl): a write(2) on the main thread, sampled while
// V8 is compiling. That is the profiler's own cost, named as such so nobody optimises the app for it.
const LOG_WRITE = /^(?:__write|write|__libc_write|_IO_\w+|fwrite|fflush|std::(?:basic_)?ostream|std::__ostream_insert|std::num_put)\b/
const COMPILE_STATES = new Set([VM_STATES.PARSER, VM_STATES.BYTECODE_COMPILER, VM_STATES.COMPILER])
const LOG_WRITE_LABEL = '(V8 writing the --prof log)'
const EVENT_LOOP_WAIT = /^(?:__)?(?:epoll_p?wait|kevent|poll|GetQueuedCompletionStatus(?:Ex)?)\b/
const NO_FRAME = Object.freeze({ kind: 'unknown', name: '(unknown code)', file: '', line: null })

// Frames are shared by every sample they appear in: classify each once.
const categoryCache = new WeakMap()
function cachedCategory (frame) {
  if (!categoryCache.has(frame)) categoryCache.set(frame, frameCategory(frame))
  return categoryCache.get(frame)
}

// Work nodebench's code starts directly: Node.js core JavaScript, builtins and C++ between the top of the stack
// and the first other JavaScript frame.
function startedBy (frames, from) {
  for (let i = from; i < frames.length; i++) {
    const category = cachedCategory(frames[i])
    if (category !== null && category !== CATEGORIES.NODE_IO && frames[i].kind === 'js') return category
  }
  return null
}

function stackCategory (frames) {
  for (let i = 0; i < frames.length; i++) {
    const category = cachedCategory(frames[i])
    if (category === null) continue
    const direct = category === CATEGORIES.NODE_IO || frames[i].kind !== 'js'
    return direct && startedBy(frames, i + 1) === CATEGORIES.NODEBENCH ? CATEGORIES.NODEBENCH : category
  }
  // Nothing claimed: native code no JavaScript called (the event loop, V8's own threads of work), or nothing known.
  return frames.some((frame) => frame.kind === 'native' || frame.kind === 'v8') ? CATEGORIES.V8 : CATEGORIES.OTHER
}

const IDLE = Object.freeze({ apart: 'idle' })
const PROFILER = Object.freeze({ apart: 'profiler', label: LOG_WRITE_LABEL })
const PROGRAM_FRAME = Object.freeze({ kind: 'v8', name: '(program: V8 and native code)', file: '', line: null })

/** `{ category, frame }` a sample is charged to, or `{ apart }` for a sample in no share. */
function chargeSample ({ vmState, frames }) {
  if (IDLE_STATES.has(vmState)) return IDLE
  if (vmState === null && frames.length > 0 && EVENT_LOOP_WAIT.test(frames[0].name) && !frames.some((f) => f.kind === 'js')) return IDLE
  if (COMPILE_STATES.has(vmState)) {
    const writingLog = frames.length > 0 && frames[0].kind === 'native' && LOG_WRITE.test(frames[0].name)
    return writingLog ? PROFILER : { apart: 'compile', label: V8_STATE_LABELS[vmState] }
  }
  if (vmState in V8_STATE_LABELS) {
    return { category: CATEGORIES.V8, frame: { kind: 'v8', name: V8_STATE_LABELS[vmState], file: '', line: null } }
  }
  // A .cpuprofile's (program): native code outside JavaScript, nothing below it.
  if (vmState === VM_STATES.OTHER && frames.length === 0) return { category: CATEGORIES.V8, frame: PROGRAM_FRAME }
  const frame = frames.find((f) => f.kind === 'js') || frames.find((f) => f.kind !== 'unknown') || NO_FRAME
  return { category: stackCategory(frames), frame }
}

/** The samples of `window` ({ startUs, endUs } on the profile's clock); all of them without one. */
function inWindow (samples, window) {
  if (window === null || window === undefined) return { samples, windowed: false }
  const timed = samples.filter((sample) => sample.time !== null && sample.time !== undefined)
  if (timed.length < samples.length) return { samples, windowed: false }
  const kept = samples.filter((sample) => sample.time >= window.startUs && sample.time <= window.endUs)
  return { samples: kept, windowed: true }
}

function functionFile (frame) {
  if (frame.file) return frame.file
  if (frame.kind === 'js') return '[eval]'
  return frame.library || null
}

function share (samples, total) {
  return total > 0 ? samples / total : 0
}

function byCategoryOrder (a, b) {
  return CATEGORY_ORDER.indexOf(a) - CATEGORY_ORDER.indexOf(b)
}

/** How long the kept samples cover (ms): the window's length, else a .cpuprofile's own; null when unknown. */
function coveredMs (windowed, window, durationUs) {
  if (windowed) return (window.endUs - window.startUs) / 1000
  return durationUs === null || durationUs === undefined ? null : durationUs / 1000
}

function summarizeSamples (read, { top, window = null, operation = null, breakdownMs = null }) {
  const { source, samples: all, durationUs = null, contexts = null } = read
  const { samples, windowed } = inWindow(all, window)
  let onCpu = 0
  let idle = 0
  let profiler = 0
  let compile = 0
  const charged = []
  const byCategory = new Map()
  const byFunction = new Map()
  for (const sample of samples) {
    const charge = chargeSample(sample)
    if (charge.apart !== undefined) {
      if (charge.apart === 'idle') idle++
      else if (charge.apart === 'profiler') profiler++
      else compile++
      continue
    }
    onCpu++
    if (operation !== null) charged.push({ sample, charge })
    byCategory.set(charge.category, (byCategory.get(charge.category) || 0) + 1)
    const { frame, category } = charge
    const key = `${category}\0${frame.name}\0${frame.file}\0${frame.line}`
    const entry = byFunction.get(key)
    if (entry) entry.samples++
    else byFunction.set(key, { name: frame.name, file: functionFile(frame), line: frame.line, category, samples: 1 })
  }
  const categories = [...byCategory]
    .sort(([a, countA], [b, countB]) => countB - countA || byCategoryOrder(a, b))
    .map(([category, count]) => ({ category, samples: count, share: share(count, onCpu) }))
  const topFunctions = [...byFunction.values()]
    .sort((a, b) => b.samples - a.samples || a.name.localeCompare(b.name))
    .slice(0, top)
    .map((entry) => ({ ...entry, share: share(entry.samples, onCpu) }))
  const nodebenchSamples = byCategory.get(CATEGORIES.NODEBENCH) || 0
  // What is apart is measured against everything the process did, idle aside.
  const busy = onCpu + profiler + compile
  return {
    source,
    // A .cpuprofile holds the window alone: its profiler ran only there.
    windowed: windowed || source === 'cpuprofile',
    samples: onCpu,
    idleSamples: idle,
    // Only V8's log has the states that tell them (see above).
    profilerSamples: source === 'v8-log' ? profiler : null,
    profilerShare: source === 'v8-log' ? share(profiler, busy) : null,
    compileSamples: source === 'v8-log' ? compile : null,
    compileShare: source === 'v8-log' ? share(compile, busy) : null,
    categories,
    topFunctions,
    nodebench: { samples: nodebenchSamples, share: share(nodebenchSamples, onCpu) },
    segments: operation === null
      ? null
      : segmentCpu(charged, operation, {
        samples: samples.length,
        coveredMs: coveredMs(windowed, window, durationUs),
        breakdownMs,
        contexts: contexts !== null
      }),
    contexts
  }
}

/**
 * Self time by category and the hottest functions of a profile, and with `operation` each of its segments'
 * share of the CPU beside its share of response time (segment-cpu.js).
 * @param {string} profileDir 0x's output folder (holds `isolate-*-v8.log.json`), clinic flame's data folder,
 *   or a .cpuprofile
 * @param {{ top?: number, window?: { startUs, endUs }, operation?: object, breakdownMs?: number }} [options] how
 *   many functions to list (15); the window of the profile's clock to keep; the breakdown operation of the same
 *   window, and how long that breakdown's window was (ms: its counts are of it)
 * @returns {{ source: 'v8-log'|'ticks'|'cpuprofile', windowed: boolean, samples: number, idleSamples: number,
 *   profilerSamples: number|null, profilerShare: number|null, compileSamples: number|null, compileShare: number|null,
 *   categories: Array<{ category: string, samples: number, share: number }>,
 *   topFunctions: Array<{ name: string, file: string|null, line: number|null, category: string, samples: number,
 *     share: number }>,
 *   nodebench: { samples: number, share: number }, segments: object|null,
 *   contexts: { transitions: number, truncated: boolean }|null }}
 *   `source`: what was read (see read-profile.js); 'ticks' has no V8 states. `samples`: the samples on CPU,
 *   the base of every share (0..1); `idleSamples`: the samples taken while idle, in no share;
 *   `profilerSamples`, `compileSamples`: apart too, their shares of the samples not idle (null where the
 *   source cannot tell them); `windowed`: whether only the window's samples were kept. `categories`: the
 *   categories with samples, most first. `topFunctions`: the `top` functions with the most self time.
 *   `nodebench`: nodebench's own overhead (the nodebench category), zero when the app runs without it.
 *   `segments`: with `operation`, segment-cpu.js's. `contexts`: whether the samples carry their async contexts
 *   (a .cpuprofile of an app that runs @nodebench/trace), the log's length and whether it stopped early.
 */
function analyzeProfile (profileDir, { top = 15, window = null, operation = null, breakdownMs = null } = {}) {
  if (typeof profileDir !== 'string' || profileDir === '') throw new TypeError(`profileDir must be a folder path; received ${inspect(profileDir)}`)
  if (!Number.isInteger(top) || top < 0) throw new TypeError(`top must be a whole number of functions (0 or more); received ${inspect(top)}`)
  return summarizeSamples(readSamples(profileDir), { top, window, operation, breakdownMs })
}

function checkAnalysis (analysis, side) {
  if (!analysis || typeof analysis.samples !== 'number' || !Array.isArray(analysis.categories) || !Array.isArray(analysis.topFunctions)) {
    throw new TypeError(`${side} must be a result of analyzeProfile; received ${inspect(analysis, { depth: 0 })}`)
  }
}

function sideOf (analysis, category) {
  const row = analysis.categories.find((entry) => entry.category === category)
  return row ? { samples: row.samples, share: row.share } : { samples: 0, share: 0 }
}

/**
 * HTML against JSON: a row per category (every category, in a fixed order) with each side's share and
 * `difference` = HTML share - JSON share (positive: HTML spends more of its CPU there).
 * @returns {{ html: { source, samples, idleSamples }, json: { source, samples, idleSamples },
 *   rows: Array<{ category, html: { samples, share }, json: { samples, share }, difference }>,
 *   nodebench: { html: { samples, share }, json: { samples, share }, difference },
 *   topFunctions: { html: Array, json: Array } }}
 */
function compareProfiles ({ html, json } = {}) {
  checkAnalysis(html, 'html')
  checkAnalysis(json, 'json')
  const rows = CATEGORY_ORDER.map((category) => {
    const htmlSide = sideOf(html, category)
    const jsonSide = sideOf(json, category)
    return { category, html: htmlSide, json: jsonSide, difference: htmlSide.share - jsonSide.share }
  })
  const side = (analysis) => {
    const { source, samples, idleSamples, windowed } = analysis
    const { profilerSamples, profilerShare, compileSamples, compileShare } = analysis
    return { source, samples, idleSamples, profilerSamples, profilerShare, compileSamples, compileShare, windowed }
  }
  return {
    html: side(html),
    json: side(json),
    rows,
    nodebench: {
      html: { ...html.nodebench },
      json: { ...json.nodebench },
      difference: html.nodebench.share - json.nodebench.share
    },
    topFunctions: { html: html.topFunctions, json: json.topFunctions }
  }
}

module.exports = {
  analyzeProfile,
  compareProfiles,
  CATEGORIES
}
