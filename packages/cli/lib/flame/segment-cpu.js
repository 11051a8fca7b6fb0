'use strict'

const { VM_STATES, BETWEEN_SEGMENTS } = require('./read-profile')
const { OUTSIDE_SEGMENTS, outsideSegment } = require('./outside-segments')

// CPU beside wall time, per segment: where a request waits is the breakdown's share of response time; whether
// a segment computes while it does is its share of the CPU samples. A sample belongs to
// - the innermost frame of its stack that is the function of one of the operation's segments (matched by the
//   file and line the breakdown gives each segment): a layer's synchronous part, its own code and what it calls
//   before it returns, a template engine under res.render included;
// - else, when its stack is the log of contexts itself (its hooks, flame's agent), that log's row, whatever the
//   context it ran in: flame's own work while it profiles (outside-segments.js);
// - else the segment in whose async context it ran, where the profile has its samples' contexts (V8's profiler
//   in an app that runs @nodebench/trace: read-profile.js): the code after an `await` in a controller, a bcrypt
//   round in a setImmediate callback the controller awaits, a driver's callback, each counts for the segment
//   that was open in its request when it ran;
// - else, where its stack names it, a row of its own outside the segments (outside-segments.js): Node.js's HTTP
//   server and Express's routing (parsing a request and routing it before its first segment, finishing its
//   response), the database driver's pooled connections in no request;
// - else nobody: the event loop, native code, another operation's requests, and without contexts every
//   continuation (shown as not attributed, never spread over the segments); garbage collection is a row of
//   its own.
//
// Each segment's time then splits into its own CPU, the dependencies it waited on and the rest (segmentTime).

const TOP_CATEGORIES = 3
// Dependencies that run on the app's own thread: their time is CPU the samples hold already, not a wait.
const IN_PROCESS_SYSTEMS = new Set(['render', 'serialize'])

function locationKey (file, line) {
  return `${file}:${line}`
}

/** Whether a sample's context is a request of `operation` (one still running when sampling stopped has no route). */
function sameOperation (context, operation) {
  if (context.method !== operation.method) return false
  if (context.route === null || context.route === undefined) return true
  return context.route === operation.route && context.format === operation.format
}

/**
 * @param {Array<{ sample: { vmState, frames, context? }, charge: { category } }>} charged the on-CPU samples of
 *   a window (analyze.js: neither idle, nor the profiler's, nor compiling)
 * @param {object} operation a breakdown snapshot's operation: its segments have name, kind, order, file, line,
 *   share (of response time), and in a full snapshot count, meanMs and dependencies
 * @param {{ samples?: number, coveredMs?: number|null, breakdownMs?: number|null, contexts?: boolean }} [timing]
 *   every sample of the window (idle and apart included) and the time they cover (ms: without it, no
 *   milliseconds): a sample stands for its own `weightUs` where it has one (a .cpuprofile's), else for an equal
 *   part of that time; the window the breakdown covers (ms, else the samples'), which its counts are of; whether
 *   the samples carry their async contexts
 * @returns {{ onCpu: number, contexts: boolean, segments: Array<{ name, kind, order, file, line, wallShare,
 *   samples, asyncSamples, cpuShare, categories: Array<{ category, share }>, time }>,
 *   garbageCollection: { samples, share }, outsideSegments: Array<{ key, name, samples, share, categories }>,
 *   notAttributed: { samples, share, inRequests, categories } }}
 *   `contexts`: whether samples were attributed by async context; `asyncSamples`: a segment's samples found by
 *   it; `outsideSegments`: one row per entry of outside-segments.js, in its order, samples or not;
 *   `inRequests`: the samples not attributed that ran for a request (between its segments, or another
 *   operation's); `time`: segmentTime's
 */
function segmentCpu (charged, operation, timing = {}) {
  const { samples: allSamples = charged.length, coveredMs = null, breakdownMs = null, contexts = false } = timing
  const evenMs = coveredMs !== null && allSamples > 0 ? coveredMs / allSamples : 0
  const byLocation = new Map()
  const candidates = new Map()
  const rows = operation.segments.map((segment) => {
    const row = {
      name: segment.name,
      kind: segment.kind,
      order: segment.order,
      file: segment.file,
      line: segment.line,
      wallShare: segment.share,
      samples: 0,
      asyncSamples: 0,
      cpuMs: 0,
      categoryCounts: new Map()
    }
    if (segment.file && segment.line) {
      const key = locationKey(segment.file, segment.line)
      byLocation.set(key, row)
      if (candidates.has(key)) candidates.get(key).push(row)
      else candidates.set(key, [row])
    }
    return row
  })
  /** The row of a sample's async context: its segment's, when it is one of this operation's. */
  const rowOfContext = (context) => {
    if (context === null || context === undefined || context === BETWEEN_SEGMENTS) return undefined
    if (!sameOperation(context, operation)) return undefined
    const found = candidates.get(locationKey(context.file, context.line))
    if (found === undefined) return undefined
    // Layers made by one factory share a location: told apart by their position in the request.
    return found.find((row) => row.order === context.position && row.kind === context.kind) ??
      found.find((row) => row.kind === context.kind) ?? found[0]
  }
  const notAttributed = { samples: 0, inRequests: 0, cpuMs: 0, categoryCounts: new Map() }
  const outside = new Map(OUTSIDE_SEGMENTS.map(({ key, name }) => [key, {
    key, name, samples: 0, cpuMs: 0, categoryCounts: new Map()
  }]))
  let garbageCollection = 0
  for (const { sample, charge } of charged) {
    if (sample.vmState === VM_STATES.GC) {
      garbageCollection++
      continue
    }
    let row
    for (const frame of sample.frames) {
      if (frame.kind !== 'js' || !frame.file) continue
      row = byLocation.get(locationKey(frame.file, frame.line))
      if (row !== undefined) break
    }
    const { context } = sample
    const inRequest = context !== null && context !== undefined
    const known = { contexts, noRequest: !inRequest }
    if (row === undefined) row = outside.get(outsideSegment(sample, { ...known, overContext: true })?.key)
    if (row === undefined) {
      row = rowOfContext(context)
      if (row !== undefined) row.asyncSamples++
    }
    // Another operation's request: not this operation's to name.
    if (row === undefined && (!inRequest || context === BETWEEN_SEGMENTS || sameOperation(context, operation))) {
      row = outside.get(outsideSegment(sample, { ...known, overContext: false })?.key)
    }
    if (row === undefined) {
      row = notAttributed
      if (inRequest) notAttributed.inRequests++
    }
    row.samples++
    row.cpuMs += sample.weightUs === undefined ? evenMs : sample.weightUs / 1000
    row.categoryCounts.set(charge.category, (row.categoryCounts.get(charge.category) || 0) + 1)
  }
  const onCpu = charged.length
  const share = (n) => (onCpu > 0 ? n / onCpu : 0)
  const categories = ({ samples, categoryCounts }) => [...categoryCounts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_CATEGORIES)
    .map(([category, count]) => ({ category, share: samples > 0 ? count / samples : 0 }))
  // The samples' CPU stands for the same rate over the breakdown's window, which its counts are of.
  const scale = coveredMs === null || coveredMs <= 0 ? null : (breakdownMs ?? coveredMs) / coveredMs
  return {
    onCpu,
    contexts,
    segments: rows.map(({ categoryCounts, cpuMs, ...row }, i) => ({
      ...row,
      cpuShare: share(row.samples),
      categories: categories({ ...row, categoryCounts }),
      time: segmentTime(operation.segments[i], scale === null ? null : cpuMs * scale)
    })),
    garbageCollection: { samples: garbageCollection, share: share(garbageCollection) },
    outsideSegments: [...outside.values()].map((row) => ({
      key: row.key, name: row.name, samples: row.samples, share: share(row.samples), categories: categories(row)
    })),
    notAttributed: {
      samples: notAttributed.samples,
      share: share(notAttributed.samples),
      inRequests: notAttributed.inRequests,
      categories: categories(notAttributed)
    }
  }
}

/**
 * What one invocation of a segment spends its time on (ms): its own CPU (`windowCpuMs`, its samples' worth over
 * the breakdown's window, per invocation, at most its time), the dependencies it waited on (the breakdown's,
 * overlapping calls counted once), and the rest: waiting behind other work (other requests' turns on the event
 * loop, garbage collection), never below 0 (a segment that computes while its calls are out counts that time in
 * both). A dependency that runs on the app's thread (rendering a template, serialising JSON) is CPU the samples
 * hold: it is named (`inProcess`), not waited on. Null where the breakdown has no times (a snapshot without
 * meanMs) or the profile no window.
 * @returns {{ ms, cpuMs, dependencyMs, restMs, cpuShare, dependencyShare, restShare,
 *   dependencies: Array<{ system, operation, target, meanMs, inProcess }> } | null}
 */
function segmentTime (segment, windowCpuMs) {
  if (windowCpuMs === null || typeof segment.meanMs !== 'number' || !(segment.count > 0)) return null
  const ms = segment.meanMs
  // A segment computes at most for as long as it runs: beyond is the sampling's noise on a short segment.
  const cpuMs = Math.min(ms, windowCpuMs / segment.count)
  const dependencies = (Array.isArray(segment.dependencies) ? segment.dependencies : []).map((dependency) => ({
    system: dependency.system,
    operation: dependency.operation,
    target: dependency.target,
    meanMs: dependency.meanMs,
    inProcess: IN_PROCESS_SYSTEMS.has(dependency.system)
  }))
  const dependencyMs = dependencies.reduce((sum, dependency) => sum + (dependency.inProcess ? 0 : dependency.meanMs), 0)
  const restMs = Math.max(0, ms - cpuMs - dependencyMs)
  const of = (part) => (ms > 0 ? part / ms : 0)
  return {
    ms,
    cpuMs,
    dependencyMs,
    restMs,
    cpuShare: of(cpuMs),
    dependencyShare: of(dependencyMs),
    restShare: of(restMs),
    dependencies
  }
}

module.exports = { segmentCpu, segmentTime, IN_PROCESS_SYSTEMS }
