'use strict'

const { BreakdownAggregator, CONTAINER_KINDS } = require('@nodebench/breakdown')
const { dependencyTimes, CallDescriptions } = require('./span-dependencies')

// Breakdowns from spans, as stored in Jaeger: the same BreakdownAggregator the middleware feeds in
// process, fed with requests rebuilt from nodebench's spans. A request is nodebench's request span
// (`nodebench.kind` = request), or the HTTP server span its segment spans hang under when the app runs
// instrumentation-http; its segments are the nodebench spans below it, in start order, routers excluded
// (they contain segments; their own time is routing, as in process), and so are framework routes (a NestJS
// route, whose pipeline's units are its segments). The CLIENT spans under a segment's span are the calls it
// waited on (span-dependencies.js).

const SEGMENT_KINDS = new Set([
  'middleware', 'param', 'handler', 'error-handler', 'guard', 'interceptor', 'pipe', 'response', 'filter'
])
const STATUS_ERROR = 2

/**
 * @param {Array} spans flat spans (jaeger-client's flattenSpans), of any number of traces
 * @param {object} [options] `service`, `maxOperations`
 * @returns {object} a breakdown snapshot (schema 1) with `exemplars: { median, slowest }` trace ids per operation
 */
function breakdownFromSpans (spans, { service, maxOperations } = {}) {
  const aggregator = new BreakdownAggregator({ service: service ?? (spans[0] && spans[0].service) ?? 'unknown', maxOperations })
  // Jaeger finds whole traces: a trace of `service` also holds the requests it made to other services.
  const requests = requestsFromSpans(spans, new SegmentInfos())
    .filter((request) => service === undefined || request.service === service)
  const durationsByOperation = new Map()
  let earliest = null
  for (const request of requests) {
    aggregator.recordRequest(request)
    if (request.dependencyTimes().length > 0) aggregator.recordDependencies(request)
    const key = `${request.method} ${request.route} ${request.format}`
    let list = durationsByOperation.get(key)
    if (list === undefined) durationsByOperation.set(key, (list = []))
    list.push([request.responseTimeMs, request.traceId])
    if (earliest === null || request.startNs < earliest) earliest = request.startNs
  }
  if (earliest !== null) aggregator.since = new Date(Number(earliest / 1_000_000n)).toISOString()
  const snapshot = aggregator.snapshot({ pid: null })
  snapshot.source = 'jaeger'
  snapshot.traces = requests.length
  for (const operation of snapshot.operations) {
    const list = durationsByOperation.get(`${operation.method} ${operation.route} ${operation.format}`)
    if (list === undefined) continue
    list.sort((a, b) => a[0] - b[0])
    operation.exemplars = { median: list[Math.floor((list.length - 1) / 2)][1], slowest: list[list.length - 1][1] }
  }
  return snapshot
}

/**
 * The infos of the segments rebuilt from spans, one per layer: a span's key (as the middleware keys the
 * layer) and its occurrence among the spans of that key in its request, so that two layers of one key that a
 * request passes stay two segments (as in process), and the same layer in every request is one.
 */
class SegmentInfos {
  constructor () {
    this.infos = new Map()
  }

  /** The infos of one request's segment spans, in order. */
  of (segments) {
    const seen = new Map()
    return segments.map((span) => {
      const described = describeSegment(span)
      const occurrence = (seen.get(described.key) ?? 0) + 1
      seen.set(described.key, occurrence)
      const key = occurrence === 1 ? described.key : `${described.key}\u0000${occurrence}`
      let info = this.infos.get(key)
      if (info === undefined) this.infos.set(key, (info = Object.freeze(described)))
      return info
    })
  }
}

/** The requests in `spans`, each shaped as BreakdownAggregator.recordRequest expects. */
function requestsFromSpans (spans, infos = new SegmentInfos(), descriptions = new CallDescriptions()) {
  const byId = new Map()
  const children = new Map()
  for (const span of spans) {
    byId.set(span.traceId + span.spanId, span)
    if (span.parentSpanId) {
      const parentKey = span.traceId + span.parentSpanId
      let list = children.get(parentKey)
      if (list === undefined) children.set(parentKey, (list = []))
      list.push(span)
    }
  }
  const requestSpans = new Set()
  for (const span of spans) {
    if (span.attributes['nodebench.kind'] === 'request') requestSpans.add(span)
  }
  // Under instrumentation-http, nodebench's spans hang under the HTTP server span: it is the request.
  for (const span of spans) {
    if (!SEGMENT_KINDS.has(span.attributes['nodebench.kind'])) continue
    const root = requestAncestor(span, byId)
    if (root !== null) requestSpans.add(root)
  }
  const requests = []
  for (const requestSpan of requestSpans) {
    const segments = []
    collectSegments(requestSpan, children, segments)
    segments.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
    const timeDependencies = () => dependencyTimes(requestSpan, segments, children, descriptions)
    requests.push(toRequest(requestSpan, segments, infos, timeDependencies))
  }
  return requests
}

/** The nearest ancestor that is not a nodebench segment or router span: the request span. */
function requestAncestor (span, byId) {
  let current = span
  for (;;) {
    if (!current.parentSpanId) return null
    const parent = byId.get(current.traceId + current.parentSpanId)
    if (parent === undefined) return null
    const kind = parent.attributes['nodebench.kind']
    if (kind === 'request' || (kind === undefined && parent.scope !== '@nodebench/trace')) return parent
    current = parent
  }
}

function collectSegments (span, children, segments) {
  for (const child of children.get(span.traceId + span.spanId) || []) {
    const kind = child.attributes['nodebench.kind']
    if (SEGMENT_KINDS.has(kind)) segments.push(child)
    if (CONTAINER_KINDS.has(kind) || SEGMENT_KINDS.has(kind)) collectSegments(child, children, segments)
  }
}

/** A request as recordRequest takes it; `dependencyTimes()` (recordDependencies'): worked out once, when asked. */
function toRequest (span, segments, segmentInfos, timeDependencies) {
  const attributes = span.attributes
  const status = attributes['http.response.status_code']
  const infos = segmentInfos.of(segments)
  let times = null
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    service: span.service,
    startNs: span.startNs,
    method: attributes['http.request.method'] || 'GET',
    route: attributes['http.route'] || '*',
    format: attributes['nodebench.format'] || 'other',
    responseTimeMs: nanosToMs(span.endNs - span.startNs),
    statusCode: typeof status === 'number' ? status : 0,
    errored: span.status.code === STATUS_ERROR || (typeof status === 'number' && status >= 500),
    aborted: attributes['nodebench.aborted'] === true,
    segmentCount: segments.length,
    segmentInfo: (i) => infos[i],
    segmentDurationMs: (i) => nanosToMs(segments[i].endNs - segments[i].startNs),
    dependencyTimes: () => (times ??= timeDependencies())
  }
}

/** The same key the middleware gives a layer, so a segment is the same segment in both breakdowns. */
function describeSegment (span) {
  const attributes = span.attributes
  const kind = attributes['nodebench.kind']
  const separator = span.name.indexOf(' - ')
  const name = attributes['code.function.name'] ?? attributes['express.name'] ??
    (separator === -1 ? span.name : span.name.slice(separator + 3))
  const file = attributes['code.file.path'] ?? null
  const line = attributes['code.line.number'] ?? null
  return { key: `${kind} ${name} ${file || '?'}:${line || 0}`, name, kind, file, line }
}

function nanosToMs (nanos) {
  return Number(nanos) / 1e6
}

module.exports = { breakdownFromSpans, requestsFromSpans }
