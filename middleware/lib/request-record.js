'use strict'

const { performance } = require('perf_hooks')
const { isContainer } = require('@nodebench/breakdown')
const { attributeCalls } = require('@nodebench/breakdown')
const { mountTemplate, formatOf, unmatchedRoute } = require('./operation')

// Which record belongs to a response. For a response Node.js's HTTP server made, its connection's: the socket
// holds the record it is answering (`kOpenRecord`, set by response-end.js, which also ends the record when the
// connection closes), and `recordOf()` checks that the record is the response's. Nothing is stored on the
// response itself: Express's `Object.setPrototypeOf(res, app.response)` gives every response a hidden class of
// its own on Node.js 20 and 22 (`%HaveSameMap` of two responses is false there, true on 24), so a property added
// to it made V8 build one more map a request, and its store and its reset each went through the runtime
// (benchmarks/LOG.md, "The record on the connection"). On every version the response keeps the shapes it has
// without nodebench. A socket lives as long as its connection and all sockets of a server share their maps.
//
// Any other response (a pipelined one waiting behind another on its connection, a test harness's or a
// serverless adapter's) carries its record as a property under nodebench's own symbol (invisible to string keys,
// JSON and for-in). Until 2026-11-26 every record was kept in a WeakMap: under load (50 connections) its set and
// delete ran in V8's runtime (the ephemeron table, its remembered set and lock, rehashing) and kept the
// collector busy.
const kRecord = Symbol('nodebench.record')
// The record a connection is answering (written by response-end.js's watchConnection, which sets `record.socket`
// too): null when none, absent until the connection's first traced request.
const kOpenRecord = Symbol('nodebench.openRecord')
// `res.socket` by a computed key, as the other per-request reads of the response (below); response-end.js's too.
const SOCKET = 'socket'
// The last response looked up and its record: a request's layers mostly run one after another, so most
// look-ups are the one before again (a compare instead of property loads). Holds a response only while it
// has a record: detachRecord() forgets it.
let lastResponse = null
let lastRecord
// A record begun before Express has set up the response (the root app's wrapped `handle`) that is kept on the
// response (not its connection's) is held here, not stored on the response, until nodebench's middleware runs
// (or `handle` returns: settleRecord). The symbol is then added after Express's prototype change and
// `res.locals` (in `handle` on Express 5, in its `expressInit` layer on Express 4), as on the request that found
// the app (begun by the middleware): every response of the app goes through one sequence of maps. Stored in
// `handle`, the symbol made a second sequence, and the sites every response passes (`setHeader`, `getHeader`:
// node:_http_outgoing) saw 7 maps instead of 4 and went megamorphic on Node.js 24 (benchmarks/LOG.md, "One
// sequence of maps for every response").
let heldResponse = null
let heldRecord

/** The record of the response's request, or undefined (not timed, or already finished). */
function recordOf (res) {
  if (res === lastResponse) return lastRecord
  if (res === heldResponse) return heldRecord
  return lookUpRecord(res)
}

// Apart from recordOf(), which every layer calls, so that V8 keeps inlining recordOf's two compares into the
// layers' wrappers: with this inside, V8 called it instead, and nodebench's functions counted 1,317 instructions a
// segment on the real stack against 1,239 (callgrind, Node.js 24.22.3; benchmarks/LOG.md, "The record on the
// connection").
function lookUpRecord (res) {
  if (typeof res !== 'object' || res === null) return undefined
  let record
  const socket = res[SOCKET]
  if (typeof socket === 'object' && socket !== null) {
    record = socket[kOpenRecord]
    if (record === undefined || record === null || record.response !== res) record = res[kRecord]
  } else {
    record = res[kRecord]
  }
  if (record !== undefined) {
    lastResponse = res
    lastRecord = record
  }
  return record
}

/** The response's record from now on: on the response itself unless its connection holds it (record.socket). */
function attachRecord (res, record) {
  if (record.socket === null) res[kRecord] = record
  lastResponse = res
  lastRecord = record
}

/** Gives the response its record without storing it on the response yet (settleRecord stores it). */
function holdRecord (res, record) {
  if (heldResponse !== null) storeHeld()
  heldResponse = res
  heldRecord = record
}

/** Stores the held record on its response, if it is still held: from nodebench's middleware on. */
function settleRecord (res) {
  if (res === heldResponse) storeHeld()
}

function storeHeld () {
  const res = heldResponse
  const record = heldRecord
  heldResponse = null
  heldRecord = undefined
  attachRecord(res, record)
}

/**
 * Forgets the response's record: its connection answers nothing any more, or the property is set to undefined
 * (not deleted: a delete would make the response a dictionary).
 */
function detachRecord (res, record) {
  if (res === lastResponse) {
    lastResponse = null
    lastRecord = undefined
  }
  const socket = record.socket
  if (socket !== null) {
    record.socket = null
    if (socket[kOpenRecord] === record) socket[kOpenRecord] = null
  }
  if (res === heldResponse) {
    heldResponse = null
    heldRecord = undefined
  } else if (socket === null) {
    res[kRecord] = undefined
  }
}

// Per-request reads of the response go through a computed key: a named read (`res.statusCode`) on an object
// whose map is new every request misses V8's inline and stub caches and calls into the runtime; a keyed read
// is a lookup in generated code (~5x cheaper, benchmarks/README.md).
const STATUS_CODE = 'statusCode'
const GET_HEADER = 'getHeader'

// Entries are stored flat, in arrays per request instead of an object per layer: `infos` holds each entry's
// layer, `times` two numbers per entry (start, end or -1 while open). An array of numbers only keeps them
// unboxed (V8's double elements); mixed with the layer objects, every time would be a heap number of its own.
// The request's own start and end come first in `times`, for the same reason: as fields of the record each was
// a heap number of its own (16 bytes), allocated with every record. Entry `index`'s times are at
// `index * STRIDE + START` and `+ END`, after the request's. `parents` (an entry's router or framework route,
// for its span) is made only when an entry has one: most entries of most apps are at the top.
const REQUEST_START = 0
const REQUEST_END = 1
const STRIDE = 2
const START = 2
const END = 3

// A record's arrays start as copies of these, as long as the longest request lately seen (in entries): a copy
// of an array of doubles is one allocation, where pushing into an empty array changed its kind to doubles and
// grew it twice for an app of 11 layers (GrowFastDoubleElements, benchmarks/README.md). Entries past the copy's
// length are appended as before. Every RESIZE_EVERY requests the length is the last request's again, so one
// long request does not make every later record long.
const RESIZE_EVERY = 1024
let entriesSized = 0
let longestEntries = 0
let requestsSinceResize = 0
let infosTemplate = []
let timesTemplate = newTimes(0)

/** The request's start and end, then `2 * entries` doubles (V8 keeps them unboxed: the array starts with one). */
function newTimes (entries) {
  const times = [0.5]
  times.length = 0
  for (let i = 0; i < (entries + 1) * STRIDE; i++) times.push(i === REQUEST_END ? 0 : -1)
  return times
}

/** After a request of `entries` entries: the arrays the next records start with. */
function noteEntries (entries) {
  if (entries > longestEntries) longestEntries = entries
  if (++requestsSinceResize >= RESIZE_EVERY) {
    requestsSinceResize = 0
    const longest = longestEntries
    longestEntries = entries
    if (longest !== entriesSized) sizeTemplates(longest)
  } else if (entries > entriesSized) {
    sizeTemplates(entries)
  }
}

function sizeTemplates (entries) {
  entriesSized = entries
  infosTemplate = []
  for (let i = 0; i < entries; i++) infosTemplate.push(null)
  timesTemplate = newTimes(entries)
}

/**
 * A record's routers and mounted apps, made when it enters the first (most requests of most apps enter none):
 * the open ones, innermost last (entry indexes), the req.baseUrl each was entered with, each container entry's
 * mount template, and the innermost's template and baseUrl.
 */
class Mounts {
  constructor () {
    this.containers = []
    this.baseUrls = []
    this.templates = [] // entry index -> mount template
    this.prefix = ''
    this.baseUrl = ''
  }
}

/**
 * Everything nodebench keeps about one request: when it entered the app, and one entry per layer
 * invocation (a segment) or per router/sub-app it passed through (a container, whose time overlaps its
 * children and therefore is not a segment of the breakdown).
 *
 * It is also the request description BreakdownAggregator.recordRequest() reads
 * (segmentCount, segmentInfo(i), segmentDurationMs(i)).
 */
class RequestRecord {
  constructor (method, startMs) {
    this.method = method
    this.done = false
    this.aborted = false
    this.errored = false
    this.statusCode = 0
    this.format = 'other'
    this.route = null
    this.segmentCount = 0
    this.infos = infosTemplate.slice()
    this.times = timesTemplate.slice()
    this.times[REQUEST_START] = startMs
    this.parents = null // entry index -> parent entry, when any entry has one
    // Rare: created on first use.
    this.errors = null // entry index -> error
    this.mounts = null // the routers and mounted apps entered (Mounts)
    // The entry of the framework route (kind `route`, a NestJS pipeline) the request is in, or -1.
    this.routeEntry = -1
    // The `next` nodebench last wrote as `req.next`, and Express's `next` it stands for (wrap-layer.js).
    this.ownNext = null
    this.ownNextFor = null
    // Tracing state, set only for sampled requests. (Kept as fields: behind accessors of an object made on first
    // use, 28 bytes less a request, the sampled path cost ~2,000 instructions a request more; LOG.md.)
    this.sampled = false
    this.traceId = null
    this.spanId = null
    this.remoteParent = null
    // Span ids given out before the spans are written (traceparent(): another process's spans hang under
    // them): entry index -> id, or null.
    this.presetSpanIds = null
    this.span = null
    this.parentSpan = null
    // The request and its response, until the record is finished; `skip`: not counted (nodebench's own endpoint).
    this.request = null
    this.response = null
    this.skip = false
    // What ends it (trace.js's finishRecord), and the connection whose close would (response-end.js).
    this.onEnd = null
    this.socket = null
    // The calls to dependencies its segments made (dependencies/calls.js), or null: none.
    this.dependencyCalls = null
    // What its async context holds it by while the request context is on (dependencies/calls.js), else null.
    this.context = null
    // The request span's attributes read from the request when its spans are written (server-span-attributes.js).
    this.serverAttributes = null
  }

  /** When the request entered the app (performance.now()). */
  get startMs () {
    return this.times[REQUEST_START]
  }

  set startMs (ms) {
    this.times[REQUEST_START] = ms
  }

  /** When its response ended (0 until then). */
  get endMs () {
    return this.times[REQUEST_END]
  }

  set endMs (ms) {
    this.times[REQUEST_END] = ms
  }

  /** The mount template of the innermost router or mounted app entered ('' at the top). */
  get prefix () {
    return this.mounts === null ? '' : this.mounts.prefix
  }

  openEntry (info) {
    const index = this.segmentCount++
    const times = this.times
    const at = index * STRIDE
    this.infos[index] = info
    times[at + START] = performance.now()
    // Within the template's copy the end is -1 already (an entry is opened once); past it, it is appended.
    if (at + END === times.length) times[at + END] = -1
    // Most entries of most apps are at the top, under no router: one test, the rest out of this function (which
    // V8 inlines into every layer's shadow, so its size counts against what else fits: performance.now()).
    if (this.mounts !== null || this.parents !== null) this.noteParent(index)
    return index
  }

  /** Entry `index`'s parent: the innermost open container, or none (-1) once any entry has one. */
  noteParent (index) {
    const containers = this.mounts === null ? null : this.mounts.containers
    if (containers !== null && containers.length > 0) this.setParent(index, containers[containers.length - 1])
    else if (this.parents !== null) this.parents.push(-1)
  }

  setParent (index, parent) {
    let parents = this.parents
    if (parents === null) {
      parents = this.parents = []
      for (let i = 0; i < index; i++) parents.push(-1)
    }
    parents.push(parent)
  }

  /**
   * Opens a unit of a framework's pipeline (a NestJS guard, interceptor, pipe, controller method, reply or
   * exception filter) under the route it runs in. Units run one after another: one that begins ends whatever
   * segment is still open at that moment (the unit before it, or the middleware whose error a filter answers),
   * so segments never overlap. `err`: the error the unit handles (a filter's exception).
   */
  openUnit (info, err = null) {
    const at = performance.now()
    const times = this.times
    // While the route is open, every segment before its entry has ended (each layer's segment ends when it
    // hands on: the route would not run otherwise), so the search for the open one stops at the route.
    const route = this.routeEntry !== -1 && times[this.routeEntry * STRIDE + END] === -1 ? this.routeEntry : -1
    for (let index = this.segmentCount - 1; index > route; index--) {
      if (times[index * STRIDE + END] === -1 && !isContainer(this.infos[index])) {
        times[index * STRIDE + END] = at
        break
      }
    }
    const index = this.segmentCount++
    const containers = this.mounts === null ? null : this.mounts.containers
    const parent = route !== -1
      ? route
      : containers === null || containers.length === 0 ? -1 : containers[containers.length - 1]
    this.infos[index] = info
    times[index * STRIDE + START] = at
    if (index * STRIDE + END === times.length) times[index * STRIDE + END] = -1
    if (parent !== -1) this.setParent(index, parent)
    else if (this.parents !== null) this.parents.push(-1)
    if (err !== null && err !== undefined) this.noteError(index, err)
    return index
  }

  /** The entry of the segment running now (the innermost one still open, not a container), or -1. */
  runningSegment () {
    const times = this.times
    for (let index = this.segmentCount - 1; index >= 0; index--) {
      if (times[index * STRIDE + END] === -1 && !isContainer(this.infos[index])) return index
    }
    return -1
  }

  /** The span id entry `index` will have, fixed now; written when its span is (otlp-encoder.js, sdk-spans.js). */
  presetSpanId (index, newId) {
    if (this.presetSpanIds === null) this.presetSpanIds = new Map()
    let id = this.presetSpanIds.get(index)
    if (id === undefined) {
      id = newId()
      this.presetSpanIds.set(index, id)
    }
    return id
  }

  /** Ends every segment from entry `first` on that is still open (a route left through the router's next). */
  closeOpenEntries (first) {
    const times = this.times
    let now = -1
    for (let index = first; index < this.segmentCount; index++) {
      if (times[index * STRIDE + END] !== -1 || isContainer(this.infos[index])) continue
      if (now === -1) now = performance.now()
      times[index * STRIDE + END] = now
    }
  }

  noteError (index, err) {
    if (this.errors === null) this.errors = []
    this.errors[index] = err
    this.errored = true
  }

  /** Ends a segment at next(err) / throw / rejection. A second call (a layer calling next twice) is ignored. */
  closeEntry (index, err) {
    const at = index * STRIDE + END
    if (this.done || this.times[at] !== -1) return
    this.times[at] = performance.now()
    if (err && err !== 'route' && err !== 'router') this.noteError(index, err)
  }

  segmentInfo (index) {
    return this.infos[index]
  }

  entryStart (index) {
    return this.times[index * STRIDE + START]
  }

  /** -1 while the entry is open. */
  entryEnd (index) {
    return this.times[index * STRIDE + END]
  }

  entryParent (index) {
    return this.parents === null ? -1 : this.parents[index]
  }

  entryError (index) {
    return this.errors === null || this.errors[index] === undefined ? null : this.errors[index]
  }

  entryTemplate (index) {
    const templates = this.mounts === null ? null : this.mounts.templates
    return templates === null || templates[index] === undefined ? null : templates[index]
  }

  segmentDurationMs (index) {
    return this.times[index * STRIDE + END] - this.times[index * STRIDE + START]
  }

  /**
   * Enters a router or mounted app. Express has already set req.baseUrl to include the part of the path
   * `layer` matched; turning the matched values back into `:name` gives the mount's route template.
   */
  enterContainer (info, req, layer) {
    const baseUrl = typeof req.baseUrl === 'string' ? req.baseUrl : ''
    const outer = this.mounts === null ? '' : this.mounts.baseUrl
    const matched = baseUrl.startsWith(outer) ? baseUrl.slice(outer.length) : baseUrl
    const template = this.prefix + mountTemplate(layer, matched, req.params)
    const index = this.openEntry(info)
    if (this.mounts === null) this.mounts = new Mounts()
    const mounts = this.mounts
    mounts.templates[index] = template
    mounts.containers.push(index)
    mounts.baseUrls.push(baseUrl)
    mounts.prefix = template
    mounts.baseUrl = baseUrl
    return index
  }

  exitContainer (index) {
    if (this.done) return
    this.closeEntry(index, null)
    const mounts = this.mounts
    const at = mounts.containers.lastIndexOf(index)
    if (at === -1) return
    mounts.containers.length = at
    mounts.baseUrls.length = at
    mounts.prefix = at > 0 ? mounts.templates[mounts.containers[at - 1]] : ''
    mounts.baseUrl = at > 0 ? mounts.baseUrls[at - 1] : ''
  }

  /** Closes whatever is still open at the end of the response; sets format, route and status. */
  finish (res, aborted) {
    const endMs = performance.now()
    const times = this.times
    times[REQUEST_END] = endMs
    this.done = true
    this.aborted = aborted
    const entries = this.segmentCount
    for (let at = END; at < entries * STRIDE + START; at += STRIDE) {
      if (times[at] === -1) times[at] = endMs
    }
    noteEntries(entries)
    this.statusCode = res[STATUS_CODE]
    if (this.statusCode >= 500) this.errored = true
    this.format = formatOf(res[GET_HEADER]('content-type'))
    if (this.route === null) this.route = unmatchedRoute(this.prefix)
  }

  /**
   * Each segment's time waiting on each dependency (@nodebench/breakdown's attribution.js), for the aggregator:
   * written in `into` when given.
   */
  dependencyTimes (into) {
    return attributeCalls(this, into)
  }

  get responseTimeMs () {
    return this.endMs - this.startMs
  }
}

module.exports = {
  RequestRecord,
  recordOf,
  attachRecord,
  holdRecord,
  settleRecord,
  detachRecord,
  kOpenRecord,
  SOCKET
}
