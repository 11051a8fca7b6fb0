'use strict'

const { attributeCalls } = require('@nodebench/breakdown')

// The dependencies of a request rebuilt from its spans, as the middleware recorded them: every CLIENT span under a
// segment's span is a call of that segment (nodebench's own: a MongoDB command, an outgoing HTTP call; and those
// of the app's own instrumentations: pg, mysql2, redis...), named as the middleware names it (system, operation,
// target) from the semantic conventions' attributes it wrote. The segment's time splits among them as in process
// (@nodebench/breakdown's attributeCalls: clipped to the segment, overlaps counted once). A render is an INTERNAL
// span that names itself (`nodebench.dependency.system`, `.operation`, `.target`: dependencies/rendering.js), and
// counts the same way.

const SPAN_KIND_CLIENT = 3
// The instrumentations whose calls nodebench times itself (and writes its own CLIENT span of): their spans would
// count each call twice, as the middleware does not count them.
const OBSERVED_DIRECTLY = /instrumentation-(http|undici|mongodb|mongoose|fetch)$/

function text (value) {
  return typeof value === 'string' && value !== '' ? value : null
}

/** `{ system, operation, target }` of a CLIENT span, as the middleware describes the call (dependencies/*.js). */
function describeCall (span) {
  const attributes = span.attributes
  const named = text(attributes['nodebench.dependency.system'])
  if (named !== null) {
    return { system: named, operation: text(attributes['nodebench.dependency.operation']) ?? span.name, target: text(attributes['nodebench.dependency.target']) ?? '' }
  }
  const method = text(attributes['http.request.method']) ?? text(attributes['http.method'])
  if (method !== null) {
    const host = text(attributes['server.address']) ?? text(attributes['net.peer.name']) ?? 'localhost'
    const port = attributes['server.port'] ?? attributes['net.peer.port']
    return { system: 'http', operation: method, target: port === undefined ? host : `${host}:${port}` }
  }
  const system = text(attributes['db.system.name']) ?? text(attributes['db.system']) ??
    text(attributes['rpc.system']) ?? text(attributes['messaging.system']) ?? 'client'
  const operation = text(attributes['db.operation.name']) ?? text(attributes['db.operation']) ??
    text(attributes['rpc.method']) ?? text(attributes['messaging.operation.name']) ?? span.name
  const target = text(attributes['db.collection.name']) ?? text(attributes['db.sql.table']) ??
    text(attributes['db.namespace']) ?? text(attributes['db.name']) ??
    (system === 'mongodb' ? null : text(attributes['server.address'])) ?? ''
  return { system, operation, target }
}

/**
 * One frozen description per distinct system, operation and target over a whole read (the aggregator keys them by
 * `key`; attributeCalls tells a segment's dependencies apart by identity).
 */
class CallDescriptions {
  constructor () {
    this.known = new Map()
  }

  of (span) {
    const { system, operation, target } = describeCall(span)
    const key = `${system} ${operation} ${target}`
    let description = this.known.get(key)
    if (description === undefined) {
      description = Object.freeze({ key, system, operation, target })
      this.known.set(key, description)
    }
    return description
  }
}

/**
 * The calls a segment's span holds (CLIENT spans, and spans naming their dependency): its children, and theirs
 * through spans of the app's that are not calls.
 */
function callSpansOf (segment, children) {
  const found = []
  const pending = [...(children.get(segment.traceId + segment.spanId) || [])]
  while (pending.length > 0) {
    const span = pending.pop()
    if (span.attributes['nodebench.kind'] !== undefined) continue
    if (span.kind === SPAN_KIND_CLIENT || text(span.attributes['nodebench.dependency.system']) !== null) {
      if (!OBSERVED_DIRECTLY.test(span.scope ?? '')) found.push(span)
      continue
    }
    pending.push(...(children.get(span.traceId + span.spanId) || []))
  }
  return found
}

/**
 * The time each segment of a request waited on each dependency (attributeCalls' [segment, dependency, calls, ms]
 * quadruples, segments by their index in `segments`), or an empty array when no segment made a call.
 */
function dependencyTimes (requestSpan, segments, children, descriptions) {
  const origin = requestSpan.startNs
  const ms = (ns) => Number(ns - origin) / 1e6
  const calls = []
  segments.forEach((segment, index) => {
    for (const span of callSpansOf(segment, children)) {
      const dependency = descriptions.of(span)
      calls.push({ segment: index, dependency, startMs: ms(span.startNs), endMs: ms(span.endNs) })
    }
  })
  if (calls.length === 0) return []
  calls.sort((a, b) => a.segment - b.segment || a.startMs - b.startMs)
  return attributeCalls({
    dependencyCalls: calls,
    entryStart: (index) => ms(segments[index].startNs),
    entryEnd: (index) => ms(segments[index].endNs)
  })
}

module.exports = { dependencyTimes, describeCall, CallDescriptions }
