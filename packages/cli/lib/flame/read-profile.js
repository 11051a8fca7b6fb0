'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { codes, NodebenchError } = require('@nodebench/errors')
const { nativeSymbolizer } = require('./native-symbols')

// Reads the samples of a profile folder.
//
// 0x runs the app with `node --prof`, then turns V8's log with `node --prof-process --preprocess` into
// `isolate-*-v8.log.json`:
//   { code: [{ name, type: 'JS'|'CODE'|'CPP'|'SHARED_LIB', kind? }], ticks: [{ tm, vm, s: [code, offset, ...] }] }
// Each tick's `s` is its stack, top first, as (index into `code`, offset) pairs; index -1 means the address
// matched no code and the second number is the address itself. 0x always leaves that file, and it keeps V8's
// state at each sample (`vm`), which tells idle and garbage collection apart: it is read whenever it is there.
// 0x drops the log's lines over 1,024 characters before preprocessing, so the ticks of the deepest stacks are
// in neither that file nor 0x's flamegraph.
//
// clinic flame keeps only 0x's `ticks.json` (as `<pid>.clinic-flame-samples`): the stacks, root first, without
// V8's state and without the frames no code matched. Read as a fallback (`source: 'ticks'`): see analyze.js.
//
// V8's sampling profiler (`--profiler v8`) writes a `.cpuprofile` (Chrome DevTools' format): a tree of call
// frames `{ id, callFrame: { functionName, url, lineNumber (0-based) }, children }`, and the samples as node
// ids with the time between them. Its special nodes stand for V8's states: (idle), (garbage collector),
// (program) (native code and V8's own work outside JavaScript, compiling among it: not told apart).
//
// Each sample carries `time`, microseconds from the start of the profile (the V8 log's own clock, or the
// profile's start), when the source records it: the analysis keeps the samples of a window.
//
// Beside a .cpuprofile nodebench flame writes `<name>.contexts.json` when the app runs @nodebench/trace: each
// sample's async context (sample-contexts.js). A sample then carries `context`: the segment of a request it ran
// for (`{ method, route, format, position, kind, name, file, line }`), BETWEEN_SEGMENTS (a request's, in none of
// its segments), or null (no request's).

// V8's StateTag (include/v8-unwinder.h). deps/v8/tools/tickprocessor.mjs still calls 7 IDLE, from before
// ATOMICS_WAIT was added; the log carries the engine's numbers.
const VM_STATES = Object.freeze({
  JS: 0, GC: 1, PARSER: 2, BYTECODE_COMPILER: 3, COMPILER: 4, OTHER: 5, EXTERNAL: 6, ATOMICS_WAIT: 7, IDLE: 8
})

// `name path:line:column`; the name may be empty or hold a space (`get foo`), the path too, so the path is
// found by how paths start, and failing that after the last space. Code made by eval has no path.
const JS_LOCATION = /^(.*?) ?((?:node:|file:|https?:|\/|[A-Za-z]:[\\/]|\\\\|internal[\\/])[^]*)?:(\d+):(\d+)$/
const JS_LOCATION_LAST_SPACE = /^(.*) (\S+):(\d+):(\d+)$/

const V8_LOG = /^isolate-.*-v8\.log\.json$/
const TICKS = /^(?:ticks\.json|.*\.clinic-flame-samples)$/

function flameError (message) {
  return new NodebenchError(codes.NB_ERR_FLAME, message)
}

/** A frame (see categories.js) from an entry of `code`. */
function codeFrame (code) {
  if (code.type === 'JS') {
    let match = JS_LOCATION.exec(code.name)
    if (match && match[2] === undefined && / /.test(match[1])) match = JS_LOCATION_LAST_SPACE.exec(code.name) || match
    if (!match) return { kind: 'js', name: code.name.trim() || '(anonymous)', file: '', line: null }
    return { kind: 'js', name: match[1].trim() || '(anonymous)', file: match[2] || '', line: Number(match[3]) }
  }
  if (code.type === 'CODE') return { kind: 'v8', name: code.name, file: '', line: null }
  if (code.type === 'SHARED_LIB') return { kind: 'native', name: code.name, file: '', line: null, library: code.name }
  return { kind: 'native', name: code.name, file: '', line: null }
}

const UNKNOWN_FRAME = Object.freeze({ kind: 'unknown', name: '(unknown code)', file: '', line: null })

function readJson (file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw flameError(`cannot read the profile ${file}: ${err.message}`)
  }
}

function samplesOfV8Log (file) {
  const profile = readJson(file)
  if (!Array.isArray(profile.code) || !Array.isArray(profile.ticks)) {
    throw flameError(`${file} is not the output of node --prof-process --preprocess: it has no code and ticks arrays`)
  }
  // The raw log beside it (`isolate-...-v8.log`) names the native addresses the preprocessor could not.
  const symbolize = nativeSymbolizer(file.replace(/\.json$/, ''))
  const codeFrames = new Map()
  const nativeFrames = new Map()
  const frameOf = (codeIndex, address) => {
    if (codeIndex >= 0) {
      const code = profile.code[codeIndex]
      // A library the preprocessor could not name inside: `address` is the offset from the library's start.
      if (code !== undefined && code !== null && code.type === 'SHARED_LIB') return nativeFrame(symbolize.inLibrary(code.name, address), code.name)
      if (!codeFrames.has(codeIndex)) codeFrames.set(codeIndex, code ? codeFrame(code) : UNKNOWN_FRAME)
      return codeFrames.get(codeIndex)
    }
    return nativeFrame(symbolize(address), null)
  }
  /** The frame of a native symbol; of its library when the symbol is unknown (`library` names it then). */
  const nativeFrame = (symbol, library) => {
    if (symbol === null) return library === null ? UNKNOWN_FRAME : libraryFrame(library)
    const name = symbol.name || symbol.library
    if (!nativeFrames.has(name)) nativeFrames.set(name, { kind: 'native', name, file: '', line: null, library: symbol.library })
    return nativeFrames.get(name)
  }
  const libraryFrame = (library) => {
    if (!nativeFrames.has(library)) nativeFrames.set(library, { kind: 'native', name: library, file: '', line: null, library })
    return nativeFrames.get(library)
  }
  return profile.ticks.map((tick) => {
    const stack = Array.isArray(tick.s) ? tick.s : []
    const frames = []
    for (let i = 0; i + 1 < stack.length; i += 2) frames.push(frameOf(stack[i], stack[i + 1]))
    return { vmState: tick.vm, frames, time: typeof tick.tm === 'number' ? tick.tm : null }
  })
}

// The special nodes of a .cpuprofile: the V8 state each stands for.
const CPU_PROFILE_STATES = Object.freeze({
  '(idle)': VM_STATES.IDLE, '(garbage collector)': VM_STATES.GC, '(program)': VM_STATES.OTHER, '(root)': VM_STATES.OTHER
})

/** A frame (see categories.js) from a .cpuprofile call frame. */
function cpuProfileFrame ({ functionName, url, lineNumber }) {
  if (url) {
    const file = url.startsWith('file://') ? require('node:url').fileURLToPath(url) : url
    return { kind: 'js', name: functionName || '(anonymous)', file, line: lineNumber + 1 }
  }
  // No script: a builtin or V8's own code, named by the function.
  return { kind: 'v8', name: functionName || '(unknown code)', file: '', line: null }
}

function samplesOfCpuProfile (file) {
  const profile = readJson(file)
  if (!Array.isArray(profile.nodes) || !Array.isArray(profile.samples)) {
    throw flameError(`${file} is not a .cpuprofile: it has no nodes and samples arrays`)
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map()
  for (const node of profile.nodes) for (const child of node.children || []) parentOf.set(child, node.id)
  // Each node's stack, top first, made once: many samples share a node.
  const stacks = new Map()
  const stackOf = (id) => {
    if (stacks.has(id)) return stacks.get(id)
    const frames = []
    let state = VM_STATES.JS
    for (let current = id; current !== undefined; current = parentOf.get(current)) {
      const { callFrame } = byId.get(current)
      const special = CPU_PROFILE_STATES[callFrame.functionName]
      if (special !== undefined && !callFrame.url) {
        if (current === id && callFrame.functionName !== '(root)') state = special
        continue
      }
      frames.push(cpuProfileFrame(callFrame))
    }
    const stack = { vmState: state, frames }
    stacks.set(id, stack)
    return stack
  }
  const deltas = Array.isArray(profile.timeDeltas) ? profile.timeDeltas : []
  const contexts = readContexts(contextsFileOf(file), profile.samples.length)
  const endUs = typeof profile.endTime === 'number' && typeof profile.startTime === 'number' ? profile.endTime - profile.startTime : null
  let time = 0
  const samples = profile.samples.map((id, i) => {
    time += deltas[i] || 0
    return { ...stackOf(id), time, weightUs: 0, context: contexts === null ? null : contextOf(contexts, i) }
  })
  // What each sample stands for: the time to the next one (as DevTools counts a .cpuprofile's self time). On a
  // busy machine the sampler thread is late while the app computes: its samples come further apart than idle
  // ones, and a count alone would make its CPU look smaller than it is.
  for (let i = 0; i < samples.length; i++) {
    const next = i + 1 < samples.length ? samples[i + 1].time : endUs ?? samples[i].time
    samples[i].weightUs = Math.max(0, next - samples[i].time)
  }
  // From the first sample on: the profiler may take a while to take it.
  const durationUs = endUs === null || samples.length === 0 ? endUs : endUs - samples[0].time
  const logged = contexts === null ? null : { transitions: contexts.transitions, truncated: contexts.truncated }
  return { samples, durationUs, contexts: logged }
}

/** The file of a .cpuprofile's async contexts: `x.cpuprofile` -> `x.contexts.json`. */
function contextsFileOf (cpuprofile) {
  return cpuprofile.replace(/\.cpuprofile$/, '') + '.contexts.json'
}

// A sample taken in a request's async context while none of its segments was open.
const BETWEEN_SEGMENTS = Object.freeze({ between: true })

/** The contexts written beside a profile of `sampleCount` samples, or null (none written, or not of it). */
function readContexts (file, sampleCount) {
  if (!fs.existsSync(file)) return null
  const contexts = readJson(file)
  if (contexts.schema !== 1 || !Array.isArray(contexts.samples) || !Array.isArray(contexts.table)) {
    throw flameError(`${file} is not a file of sample contexts nodebench flame writes (schema 1, samples, table)`)
  }
  if (contexts.samples.length !== sampleCount) {
    throw flameError(`${file} has the contexts of ${contexts.samples.length} samples, its profile ${sampleCount}: they are not of the same run`)
  }
  return contexts
}

function contextOf (contexts, i) {
  const index = contexts.samples[i]
  if (index === -2) return BETWEEN_SEGMENTS
  return index >= 0 ? contexts.table[index] ?? null : null
}

function samplesOfTicks (file) {
  const ticks = readJson(file)
  if (!Array.isArray(ticks)) throw flameError(`${file} is not 0x's ticks: an array of stacks`)
  // The same code object appears in many stacks: one frame per name and type.
  const frames = new Map()
  const frameOf = (code) => {
    const key = `${code.type}\0${code.name}`
    if (!frames.has(key)) frames.set(key, codeFrame(code))
    return frames.get(key)
  }
  return ticks.map((stack) => ({
    vmState: null,
    time: null,
    frames: (Array.isArray(stack) ? stack : []).filter((code) => code && typeof code.name === 'string').map(frameOf).reverse()
  }))
}

/**
 * Every sample of a profile folder or .cpuprofile file, `{ source, samples: [{ vmState, frames, time, context? }],
 * durationUs, contexts }`, frames top first; `source` 'v8-log' (0x's isolate-*-v8.log.json, one per isolate: the
 * main thread and any worker), 'ticks' (0x's ticks.json, clinic flame's samples: `vmState` and `time` null) or
 * 'cpuprofile' (V8's sampling profiler). Frames are shared between samples. `durationUs`: the time the samples
 * cover (a .cpuprofile's, from its first sample), else null; a .cpuprofile's samples carry `weightUs`, the time
 * each stands for (to the next sample); `contexts`: `{ transitions, truncated }` when the samples carry their
 * async context (a .cpuprofile with its contexts file), else null.
 */
function readSamples (profileDir) {
  if (profileDir.endsWith('.cpuprofile')) return { source: 'cpuprofile', ...samplesOfCpuProfile(profileDir) }
  let names
  try {
    names = fs.readdirSync(profileDir).sort()
  } catch (err) {
    throw flameError(`cannot read the profile folder ${profileDir}: ${err.message}`)
  }
  const v8Logs = names.filter((name) => V8_LOG.test(name))
  if (v8Logs.length > 0) {
    return { source: 'v8-log', samples: v8Logs.flatMap((name) => samplesOfV8Log(path.join(profileDir, name))), durationUs: null, contexts: null }
  }
  const ticks = names.find((name) => TICKS.test(name))
  if (ticks !== undefined) return { source: 'ticks', samples: samplesOfTicks(path.join(profileDir, ticks)), durationUs: null, contexts: null }
  throw flameError(`no isolate-*-v8.log.json (nor ticks.json) in ${profileDir}: not a 0x profile folder, or 0x stopped ` +
    'before it processed the V8 log (0x writes it once the profiled process has exited)')
}

/**
 * Resolves once the profile folder's processed V8 log is complete. 0x resolves when it has read the ticks
 * out of `node --prof-process --preprocess`, while its copy of that output (`*-v8.log.json`) may still be
 * being written: the file is complete when it parses. Gives up after `timeoutMs` (the analysis then
 * reports the file as unreadable).
 */
async function waitForProfile (profileDir, { timeoutMs = 15_000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const file = fs.existsSync(profileDir) ? fs.readdirSync(profileDir).find((name) => V8_LOG.test(name)) : undefined
    if (file === undefined) return // clinic's folder, or ticks.json only: written before the profiler returns
    try {
      JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8'))
      return
    } catch {
      if (Date.now() > deadline) return
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

module.exports = { readSamples, waitForProfile, codeFrame, contextsFileOf, VM_STATES, BETWEEN_SEGMENTS }
