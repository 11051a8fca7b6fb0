'use strict'

const { DurationStats, newHistogram, toMicros } = require('./duration-stats')
const { SegmentStats, segmentViews, orderedSegments, MAX_DEPENDENCIES_PER_SEGMENT } = require('./segment-stats')
const { operationSnapshot, dependencySnapshots, compareOperations, aliasesOf, round } = require('./snapshot')

const SCHEMA_VERSION = 1
// The version of exportState()'s object, which only processes of the same nodebench exchange. 2: response
// times per status code.
const STATE_VERSION = 2
const MAX_OPERATIONS_DEFAULT = 500

// Kinds whose entries contain segments rather than being one: a router or mounted app (Express), and a route
// whose handler runs a framework's own pipeline (NestJS: guards, interceptors, pipes, the controller method).
// Their own time is routing or the framework's glue: unattributed.
const CONTAINER_KINDS = new Set(['router', 'route'])

function isContainer (info) {
  // On every segment of every request: two comparisons rather than a Set look-up.
  const kind = info.kind
  return kind === 'router' || kind === 'route'
}

// Distinct path shapes kept per operation, from which a layer's occurrence among layers of the same key is read.
const MAX_SHAPES = 32

/** One operation: method + route template + response format. */
class OperationStats {
  constructor (method, route, format) {
    this.method = method
    this.route = route
    this.format = format
    this.errors = 0
    this.aborted = 0
    // Response times per status code (0: unknown), the last one used at hand: an operation mostly answers
    // with one status, and exported metrics carry it (http.response.status_code).
    this.statuses = new Map()
    this.lastStatus = -1
    this.lastStatusStats = null
    // Segment statistics per layer (its info object, or one per key for segments merged from states).
    this.segments = new Map()
    this.segmentSeq = 0
    this.stateInfos = new Map()
    // The layers of the last request's path, by position, and their statistics: the requests of one
    // operation mostly take the same path, so a segment is found by comparing its layer with the one at
    // its position last time rather than by a look-up in `segments`. A path of another shape is kept in
    // `shapes` (segmentViews reads which layers of one key a request passes).
    this.pathInfos = []
    this.pathStats = []
    this.pathLength = 0
    this.shapeChanged = false
    this.shapes = []
  }

  responseTimeFor (status) {
    if (status === this.lastStatus) return this.lastStatusStats
    let stats = this.statuses.get(status)
    if (stats === undefined) {
      stats = new DurationStats()
      this.statuses.set(status, stats)
    }
    this.lastStatus = status
    this.lastStatusStats = stats
    return stats
  }

  /** The response times of every status together. */
  get responseTime () {
    if (this.statuses.size === 1) return this.lastStatusStats
    const all = new DurationStats()
    for (const stats of this.statuses.values()) all.add(stats)
    return all
  }

  /** The number of responses. */
  get count () {
    let count = 0
    for (const stats of this.statuses.values()) count += stats.count
    return count
  }

  /**
   * The statistics of the segment `info` at `position` of a request's path, whose layer is not the one at that
   * position last time (recordRequest compares those itself): the path's shape has changed.
   */
  segmentFor (info, position) {
    let stats = this.segments.get(info)
    if (stats === undefined) {
      stats = new SegmentStats(this.segmentSeq++)
      this.segments.set(info, stats)
    }
    this.pathInfos[position] = info
    this.pathStats[position] = stats
    this.shapeChanged = true
    return stats
  }

  /** After a request: keeps the shape of its path (pathInfos up to `length`) when it is one not seen before. */
  notePath (length) {
    if (!this.shapeChanged && length === this.pathLength) return
    this.shapeChanged = false
    this.pathLength = length
    this.addShape(this.pathInfos.slice(0, length))
  }

  addShape (shape) {
    if (this.shapes.length >= MAX_SHAPES) return
    if (!this.shapes.some((known) => known.length === shape.length && known.every((info, i) => info === shape[i]))) {
      this.shapes.push(shape)
    }
  }

  /**
   * info -> its occurrence (2, 3, ...) among the distinct layers of its name and place (whatever their kind) in
   * one request, where above 1.
   */
  occurrences () {
    const occurrences = new Map()
    for (const shape of this.shapes) {
      const seen = new Map()
      for (const info of shape) {
        if (typeof info.key !== 'string') continue
        const place = `${info.name} ${info.file}:${info.line}`
        let infos = seen.get(place)
        if (infos === undefined) seen.set(place, (infos = []))
        if (!infos.includes(info)) infos.push(info)
        const occurrence = infos.indexOf(info) + 1
        if (occurrence > (occurrences.get(info) ?? 1)) occurrences.set(info, occurrence)
      }
    }
    return occurrences
  }

  /** The info standing for a segment merged from another process's state: one per key in this operation. */
  stateInfo ({ key, name, kind, file, line, aliases }) {
    let info = this.stateInfos.get(key)
    if (info === undefined) {
      info = Object.freeze({ key, name, kind, file, line, aliases: aliasesOf(aliases) })
      this.stateInfos.set(key, info)
    }
    return info
  }

  segmentOf (info) {
    let stats = this.segments.get(info)
    if (stats === undefined) {
      stats = new SegmentStats(this.segmentSeq++)
      this.segments.set(info, stats)
    }
    return stats
  }
}

let compiled = false

/**
 * Runs the histogram code once, when the first aggregator is made (at the app's start): V8 compiles a
 * function when it first runs, and the first request's recordRequest() spent ~1 ms compiling
 * hdr-histogram-js (benchmarks/first-request.js in @nodebench/trace).
 */
function compileOnce () {
  if (compiled) return
  compiled = true
  const stats = new DurationStats()
  stats.record(1.5)
  stats.percentileMs(50)
}

/**
 * Folds per-request timings into per-operation statistics, and turns them into breakdown snapshots.
 * A request is described by a plain object (the middleware's request record, or one rebuilt from spans):
 *   { method, route, format, responseTimeMs, errored, aborted,
 *     segmentCount, segmentInfo(i) -> { key, name, kind, file, line }, segmentDurationMs(i) }
 * A segment info is kept, not copied: its name, file, line and key may be filled in later (key null until
 * then), and are read when a snapshot or state is made.
 */
class BreakdownAggregator {
  constructor ({ service = 'unknown', maxOperations = MAX_OPERATIONS_DEFAULT } = {}) {
    this.service = service
    this.maxOperations = maxOperations
    this.reset()
    compileOnce()
  }

  reset () {
    // route -> method -> format -> OperationStats: looked up without building a key string per request.
    this.byRoute = new Map()
    this.operations = []
    this.lastOperation = null
    this.since = new Date().toISOString()
    this.droppedOperations = 0
  }

  operationFor (method, route, format) {
    // The last request's operation, compared first: an app's requests mostly come in runs of one operation, and
    // its method, route and format strings are then the same strings (compared by identity).
    const last = this.lastOperation
    if (last !== null && last.route === route && last.method === method && last.format === format) return last
    const operation = this.lookUpOperation(method, route, format)
    if (operation !== undefined) this.lastOperation = operation
    return operation
  }

  lookUpOperation (method, route, format) {
    let byMethod = this.byRoute.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.byRoute.set(route, byMethod)
    }
    let byFormat = byMethod.get(method)
    if (byFormat === undefined) {
      byFormat = new Map()
      byMethod.set(method, byFormat)
    }
    let operation = byFormat.get(format)
    if (operation === undefined) {
      // Unbounded route cardinality (e.g. regexp routes) must not grow memory without bound.
      if (this.operations.length >= this.maxOperations) return undefined
      operation = new OperationStats(method, route, format)
      byFormat.set(format, operation)
      this.operations.push(operation)
    }
    return operation
  }

  recordRequest (request) {
    const operation = this.operationFor(request.method, request.route, request.format)
    if (operation === undefined) {
      this.droppedOperations++
      return
    }
    operation.responseTimeFor(request.statusCode | 0).record(request.responseTimeMs)
    if (request.errored) operation.errors++
    if (request.aborted) operation.aborted++
    // The layer at a position of the path last time is a segment (a container is never kept there): when it is
    // this request's again, as it mostly is, its statistics are at hand and the kind need not be asked.
    const pathInfos = operation.pathInfos
    const pathStats = operation.pathStats
    const entries = request.segmentCount
    let position = 0
    for (let i = 0; i < entries; i++) {
      const info = request.segmentInfo(i)
      let stats
      if (pathInfos[position] === info) stats = pathStats[position]
      // A router, mounted app or framework route contains its layers' segments: its own time is unattributed.
      else if (isContainer(info)) continue
      else stats = operation.segmentFor(info, position)
      stats.positionSum += position++
      stats.record(request.segmentDurationMs(i))
    }
    operation.notePath(position)
  }

  /**
   * After recordRequest(request): the time its segments waited on dependencies (`request.dependencyTimes()`),
   * called only for a request that made calls. Apart from recordRequest, which every request runs, so that
   * one stays what it was for the requests that make none (V8 inlines what it calls by its size).
   */
  recordDependencies (request) {
    const operation = this.operationFor(request.method, request.route, request.format)
    if (operation !== undefined) recordDependencies(operation, request)
  }

  /**
   * Everything this aggregator knows, as a JSON-safe object another process can merge exactly with
   * `mergeState()` (histograms included, compressed): how cluster workers' breakdowns become one.
   */
  exportState () {
    return {
      schema: STATE_VERSION,
      service: this.service,
      since: this.since,
      droppedOperations: this.droppedOperations,
      operations: this.operations.map((operation) => ({
        method: operation.method,
        route: operation.route,
        format: operation.format,
        errors: operation.errors,
        aborted: operation.aborted,
        responseTimes: Array.from(operation.statuses, ([status, stats]) => ({ status, ...stats.exportState() })),
        segments: segmentViews(operation).map((view) => ({
          key: view.key,
          name: view.name,
          kind: view.info.kind,
          file: view.info.file,
          line: view.info.line,
          aliases: aliasesOf(view.info.aliases),
          positionSum: view.stats.positionSum,
          dependencies: view.stats.dependencyStates(),
          ...view.stats.exportState()
        }))
      }))
    }
  }

  /** Adds a state from `exportState()` (of this or another process) to this aggregator. */
  mergeState (state) {
    if (state === null || typeof state !== 'object' || state.schema !== STATE_VERSION || !Array.isArray(state.operations)) {
      throw new TypeError(`mergeState: expected a breakdown state of schema ${STATE_VERSION} (from exportState() of the same ` +
        `nodebench); received ${state === null ? 'null' : typeof state === 'object' ? `schema ${state.schema}` : typeof state}`)
    }
    if (state.since < this.since) this.since = state.since
    this.droppedOperations += state.droppedOperations
    for (const operationState of state.operations) {
      const operation = this.operationFor(operationState.method, operationState.route, operationState.format)
      if (operation === undefined) {
        for (const responseTime of operationState.responseTimes) this.droppedOperations += responseTime.count
        continue
      }
      operation.errors += operationState.errors
      operation.aborted += operationState.aborted
      for (const responseTime of operationState.responseTimes) {
        operation.responseTimeFor(responseTime.status).addState(responseTime)
      }
      for (const segmentState of operationState.segments) {
        const segment = operation.segmentOf(operation.stateInfo(segmentState))
        segment.positionSum += segmentState.positionSum
        segment.addState(segmentState)
        if (Array.isArray(segmentState.dependencies)) {
          for (const dependency of segmentState.dependencies) segment.addDependencyState(dependency)
        }
      }
    }
  }

  /**
   * Adds everything `other` (another aggregator, of this process) holds to this one, as mergeState() does
   * with a state, without encoding it.
   */
  add (other) {
    if (other.since < this.since) this.since = other.since
    this.droppedOperations += other.droppedOperations
    for (const from of other.operations) {
      const operation = this.operationFor(from.method, from.route, from.format)
      if (operation === undefined) {
        this.droppedOperations += from.count
        continue
      }
      operation.errors += from.errors
      operation.aborted += from.aborted
      for (const [status, stats] of from.statuses) operation.responseTimeFor(status).add(stats)
      for (const shape of from.shapes) operation.addShape(shape)
      for (const view of segmentViews(from)) {
        // Named layers by their key (with its occurrence), as a state would carry them; a layer not named yet
        // (no key) as itself, so that it joins its key once it is.
        const info = view.key === null
          ? view.info
          : operation.stateInfo({ ...view.info, key: view.key, name: view.name })
        const into = operation.segmentOf(info)
        into.positionSum += view.stats.positionSum
        into.add(view.stats)
        into.addDependencies(view.stats)
      }
    }
  }

  /** The breakdown snapshot (schema 1). `dropped.spans` is filled in by the caller that exports spans. */
  snapshot ({ pid = process.pid, droppedSpans = 0 } = {}) {
    const operations = []
    for (const operation of this.operations) operations.push(operationSnapshot(operation))
    operations.sort(compareOperations)
    return {
      schema: SCHEMA_VERSION,
      service: this.service,
      pid,
      since: this.since,
      operations,
      dropped: { spans: droppedSpans, operations: this.droppedOperations }
    }
  }
}

// The array every request's dependency times are written in (`dependencyTimes(into)`), read at once.
const dependencyTimesScratch = []

/**
 * Adds the dependency times of a request's segments (`request.dependencyTimes(into)`: flat [entry index,
 * dependency { system, operation, target }, calls, ms] quadruples, in `into` or an array of its own) to the
 * operation's segments, found as recordRequest() found them: by their position among the request's segments.
 */
function recordDependencies (operation, request) {
  const times = request.dependencyTimes(dependencyTimesScratch)
  if (times.length === 0) return
  // The quadruples come in the order of their segments: one walk counts the segments before each (no map per
  // request: with a JSON serialisation timed, nearly every request of an API has a dependency).
  let entry = 0
  let position = 0
  for (let at = 0; at < times.length; at += 4) {
    const index = times[at]
    if (index < entry) {
      entry = 0
      position = 0
    }
    for (; entry < index; entry++) if (!isContainer(request.segmentInfo(entry))) position++
    if (index >= request.segmentCount || isContainer(request.segmentInfo(index))) continue
    const segmentPosition = position
    const dependency = times[at + 1]
    const key = typeof dependency.key === 'string'
      ? dependency.key
      : `${dependency.system} ${dependency.operation} ${dependency.target}`
    operation.pathStats[segmentPosition].recordDependency(
      key, dependency.system, dependency.operation, dependency.target, times[at + 2], times[at + 3])
  }
}

module.exports = {
  SCHEMA_VERSION,
  CONTAINER_KINDS,
  isContainer,
  STATE_VERSION,
  orderedSegments,
  BreakdownAggregator,
  DurationStats,
  newHistogram,
  toMicros,
  round,
  MAX_DEPENDENCIES_PER_SEGMENT,
  dependencySnapshots
}
