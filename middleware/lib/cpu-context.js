'use strict'

const { createHook } = require('async_hooks')
const { performance } = require('perf_hooks')
const { holdRequestContext, releaseRequestContext, currentRecord } = require('./dependencies/calls')
const { resolveNames } = require('./function-names')
const { isContainer } = require('@nodebench/breakdown')
const { reportInternalError } = require('./internal-errors')

// CPU of async code (docs/flame.md): which segment's async context runs at each moment while a profiler samples
// the app, so that a sample taken in a continuation (the code after an `await` in a controller, a bcrypt round
// in a setImmediate callback it awaits) counts for the segment that waits on it, not for nobody. A sampling
// profiler runs no JavaScript when it samples, so the moments are logged instead: each time a callback or a
// promise continuation starts or ends (async_hooks' before and after), the time and the context it runs in,
// that is the request current there (the AsyncLocalStorage of dependencies/calls.js) and the segment open in
// it. The profiler then reads each sample's context from its time (nodebench flame: v8-agent.js).
//
// Only nodebench flame's agent asks for it (a registry it puts on globalThis under REGISTRY before the app
// loads); until it starts sampling nothing is hooked, and once it stops the hooks are gone. While on it costs
// what async_hooks' before and after hooks cost (every callback and promise continuation calls into them:
// benchmarks/cpu-context.js) and a clock read and a few array writes per change of context; flame measures
// that with its profiler's overhead.

const REGISTRY = Symbol.for('nodebench.cpuContexts')
// At most this many changes of context are kept (4 million: 80 MB); past them the log stops and says so.
const MAX_TRANSITIONS = 1 << 22
const INITIAL_CAPACITY = 1 << 16
// Between two callbacks of the same context, a pause shorter than this (the event loop's own step from one to
// the next) counts for the context: the log stays short when one request's continuations follow each other.
const MERGE_GAP_MS = 0.05
// Deeper than this, before and after have gone out of step (a callback that threw past its after hook).
const MAX_DEPTH = 256

// What a moment of the log runs in: a request's record (null: none) and the entry of its open segment (-1: none).
let times = null
let records = null
let entries = null
let length = 0
let truncated = false
// The contexts of the callbacks running now, outermost first: record, entry, record, entry, ...
const depth = []
let hook = null
let offered = false

/** Offers the log to nodebench flame's agent when it is in this process (once per copy of nodebench). */
function offerCpuContexts () {
  if (offered) return
  const registry = globalThis[REGISTRY]
  if (registry === undefined || registry === null || typeof registry.offer !== 'function') return
  offered = true
  try {
    registry.offer(Object.freeze({ start: startLog, stop: stopLog }))
  } catch (err) {
    reportInternalError('offer the CPU contexts', err)
  }
}

function note (record, entry) {
  const now = performance.now()
  const last = length - 1
  if (last >= 0 && records[last] === record && entries[last] === entry) return
  if (last >= 1 && records[last] === null && records[last - 1] === record && entries[last - 1] === entry &&
    now - times[last] < MERGE_GAP_MS) {
    length--
    return
  }
  if (length === times.length && !grow()) return
  times[length] = now
  records[length] = record
  entries[length] = entry
  length++
}

function grow () {
  if (times.length >= MAX_TRANSITIONS) {
    truncated = true
    hook.disable()
    return false
  }
  const moreTimes = new Float64Array(times.length * 2)
  moreTimes.set(times)
  const moreEntries = new Int32Array(entries.length * 2)
  moreEntries.set(entries)
  times = moreTimes
  entries = moreEntries
  return true
}

// A hook that throws ends the process (async_hooks' rule): a failure here stops the log instead.
function before () {
  try {
    const record = currentRecord()
    let entry = -1
    let current = null
    if (record !== undefined && !record.done) {
      current = record
      entry = record.runningSegment()
    }
    if (depth.length >= MAX_DEPTH * 2) depth.length = 0
    depth.push(current, entry)
    note(current, entry)
  } catch (err) {
    fail(err)
  }
}

function after () {
  try {
    depth.length = depth.length >= 2 ? depth.length - 2 : 0
    if (depth.length === 0) note(null, -1)
    else note(depth[depth.length - 2], depth[depth.length - 1])
  } catch (err) {
    fail(err)
  }
}

function fail (err) {
  truncated = true
  if (hook !== null) hook.disable()
  reportInternalError('log the CPU contexts', err)
}

function startLog () {
  if (hook !== null) return
  times = new Float64Array(INITIAL_CAPACITY)
  entries = new Int32Array(INITIAL_CAPACITY)
  records = []
  length = 0
  truncated = false
  depth.length = 0
  holdRequestContext()
  hook = createHook({ before, after })
  hook.enable()
  note(null, -1)
}

/**
 * Stops the log and gives it: `times` (µs, on process.hrtime's clock, the clock of V8's profiles), and for each
 * the context from then on, `contexts`: an index into `table` (a segment of a request: its operation, and the
 * segment as the breakdown has it), -1 (no request) or -2 (a request, between its segments); `truncated` when
 * the log stopped early (at MAX_TRANSITIONS).
 */
function stopLog () {
  if (hook === null) return null
  hook.disable()
  hook = null
  releaseRequestContext()
  // The hrtime clock's µs at performance.now()'s origin: the two read back to back.
  const originUs = Number(process.hrtime.bigint()) / 1000 - performance.now() * 1000
  resolveNames()
  const table = []
  const indexes = new Map()
  const contexts = new Int32Array(length)
  const logTimes = new Float64Array(length)
  let lastRecord = null
  let lastEntry = -1
  let lastIndex = -1
  for (let i = 0; i < length; i++) {
    logTimes[i] = originUs + times[i] * 1000
    const record = records[i]
    const entry = entries[i]
    if (record === null) contexts[i] = -1
    else if (entry === -1) contexts[i] = -2
    else if (record === lastRecord && entry === lastEntry) contexts[i] = lastIndex
    else {
      const context = contextOf(record, entry)
      const key = `${context.method}\0${context.route}\0${context.format}\0${context.position}\0${context.kind}\0${context.name}\0${context.file}\0${context.line}`
      let index = indexes.get(key)
      if (index === undefined) {
        index = table.length
        table.push(context)
        indexes.set(key, index)
      }
      contexts[i] = index
      lastRecord = record
      lastEntry = entry
      lastIndex = index
    }
  }
  const log = { times: logTimes, contexts, table, truncated }
  times = null
  entries = null
  records = null
  length = 0
  return log
}

/** A segment of a request as the breakdown names it: the operation, the layer, its position among the segments. */
function contextOf (record, entry) {
  let position = 0
  for (let i = 0; i < entry; i++) {
    if (!isContainer(record.segmentInfo(i))) position++
  }
  const info = record.segmentInfo(entry)
  return {
    method: record.method,
    // A request still running when the log stopped has no route yet.
    route: record.done ? record.route : null,
    format: record.done ? record.format : null,
    position,
    kind: info.kind,
    name: info.name,
    file: info.file,
    line: info.line
  }
}

module.exports = { offerCpuContexts, REGISTRY }
