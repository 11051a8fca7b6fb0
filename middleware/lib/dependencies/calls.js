'use strict'

const { AsyncLocalStorage } = require('async_hooks')
const { performance } = require('perf_hooks')
const { reportInternalError } = require('../internal-errors')

// Which request a dependency call belongs to: the record of the request current in the call's async context,
// kept in an AsyncLocalStorage entered once per request (trace.js's beginRequest), not per segment. Segments of
// one request never overlap, so the segment open in that record when the call starts owns the call.
//
// Nothing of this exists until there is something to observe (a MongoDB driver the app loaded, an outgoing
// call heard on Node.js's channels): before, `enterRequest` is a no-op and no AsyncLocalStorage is made, since
// one switches on async context propagation for the whole process (promise hooks on Node.js 20 and 22).

//
// A profiler that attributes CPU samples by async context (cpu-context.js, while nodebench flame samples) holds
// the context for as long as it samples; released, and with no dependency observed, it is off again.

let storage = null
let enterRequest = noop
// How this Node.js keeps an AsyncLocalStorage's store across async work: with async hooks (Node.js 20 and 22, and 24
// run with --no-async-context-frame), where the class propagates the store itself (`_propagate`) from an init hook
// that every promise and async resource of the process runs; or with V8's continuation data (AsyncContextFrame:
// Node.js 24, and 22 run with --experimental-async-context-frame), which costs a promise nothing.
const CONTEXT_BY_HOOKS = typeof AsyncLocalStorage.prototype._propagate === 'function'
// Whether a dependency is observed (for good), and how many profilers hold the context (for a while).
let observed = false
let holds = 0

function noop () {}

/**
 * What a request's async context holds: its record, until the response ends (leaveRequestContext). A context
 * outlives its request: the connection's HTTP parser and keep-alive timer keep it until the connection's next
 * request or close, and the record held in it directly stayed reachable that long, one a kept-alive connection
 * (test/record-reachability.test.js).
 */
class RequestContext {
  constructor (record) {
    this.record = record
  }
}

function enterWithStorage (record) {
  const context = new RequestContext(record)
  record.context = context
  storage.enterWith(context)
}

function startStorage () {
  if (storage !== null) return
  storage = new AsyncLocalStorage()
  enterRequest = enterWithStorage
}

/** Turns the request's context on: requests that begin from now on are found from their calls. */
function observeRequests () {
  observed = true
  startStorage()
}

/** A profiler's hold on the request's context: on until every hold is released (or a dependency observed). */
function holdRequestContext () {
  holds++
  startStorage()
}

function releaseRequestContext () {
  if (holds > 0) holds--
  if (holds > 0 || observed || storage === null) return
  // disable() takes the storage's async hooks out once no other storage needs them.
  storage.disable()
  storage = null
  enterRequest = noop
}

/** The record of the request current in this async context, or undefined (none, ended, or the context is off). */
function currentRecord () {
  if (storage === null) return undefined
  const context = storage.getStore()
  return context === undefined ? undefined : context.record
}

/** Called by trace.js when a request begins: makes its record the one its async context finds. */
function enterRequestContext (record) {
  enterRequest(record)
}

/** Called by trace.js when a request's response ends: its async context no longer finds (nor holds) its record. */
function leaveRequestContext (record) {
  const context = record.context
  if (context === null) return
  record.context = null
  context.record = undefined
}

function observing () {
  return storage !== null
}

/**
 * The snapshot's `requestContext`, once the requests' context is kept for good (a dependency observed):
 * 'async-hooks' where every promise of the process pays for it, 'async-context-frame' where nothing does; else
 * undefined (a profiler's hold is not the app's cost).
 */
function requestContextKind () {
  if (!observed) return undefined
  return CONTEXT_BY_HOOKS ? 'async-hooks' : 'async-context-frame'
}

/**
 * One call to a dependency: what it is (`dependency`, an interned description: dependencies/describe.js), the
 * segment of the record that made it, when it started and ended (-1 while it runs), and what its span says
 * beside the description (`url`: an HTTP call's path and query, as asked; `statusCode`; `error`: its error.type).
 */
class DependencyCall {
  constructor (dependency, segment, startMs) {
    this.dependency = dependency
    this.segment = segment
    this.startMs = startMs
    this.endMs = -1
    this.url = null
    this.statusCode = 0
    this.error = null
    // A call the app's own instrumentation made a span of (otel-client.js): timed, not written again.
    this.external = false
  }
}

/**
 * Starts a call in the current async context: the call, kept in its record, or null when no open segment of
 * an unfinished request is current (a call at the app's start, a timer's, a request not timed).
 */
function startCall (dependency) {
  const record = currentRecord()
  return record === undefined ? null : startCallIn(record, dependency)
}

/**
 * Starts a call of the request `record` (one found from the request itself, as rendering.js does), attributed
 * to its open segment; null when none is open or the request finished.
 */
function startCallIn (record, dependency) {
  if (record.done) return null
  const segment = record.runningSegment()
  if (segment === -1) return null
  const call = new DependencyCall(dependency, segment, performance.now())
  if (record.dependencyCalls === null) record.dependencyCalls = [call]
  else record.dependencyCalls.push(call)
  return call
}

/** Ends a call (a second end is ignored); `errorType`: the error.type of a failed call, else null. */
function endCall (call, errorType) {
  if (call.endMs !== -1) return
  call.endMs = performance.now()
  if (errorType !== null && errorType !== undefined) call.error = errorType
}

/** A subscriber that reports its own failures: one thrown from a channel's subscriber reaches the app. */
function guarded (what, fn) {
  return function guardedSubscriber (message, name) {
    try {
      fn(message, name)
    } catch (err) {
      reportInternalError(what, err)
    }
  }
}

module.exports = {
  observeRequests,
  holdRequestContext,
  releaseRequestContext,
  currentRecord,
  enterRequestContext,
  leaveRequestContext,
  observing,
  requestContextKind,
  startCall,
  startCallIn,
  endCall,
  guarded,
  DependencyCall
}
