'use strict'

const { fullUrl } = require('./http-client')

// A dependency call's CLIENT span (INTERNAL for a render, none for a serialisation: rendering.js), as both span
// writers make it (otlp-encoder.js straight from the record, sdk-spans.js through the SDK): a child of its
// segment's span, from the call's start to its end (a call still running when the response finished ends with
// its segment), with its dependency's attributes and the call's own (an HTTP call's url.full and status code),
// and error.type when it failed. Never a query's values.

/** The record's calls as `{ segment, name, internal, startMs, endMs, attributes, error }`, or an empty array. */
function dependencySpans (record) {
  const calls = record.dependencyCalls
  if (calls === null) return NO_SPANS
  const spans = []
  for (const call of calls) {
    const dependency = call.dependency
    if (call.external || dependency.spanKind === 'none') continue
    let attributes = dependency.attributes
    if (call.url !== null || call.statusCode !== 0 || call.error !== null) {
      attributes = { ...attributes }
      if (call.url !== null && dependency.urlBase !== null) attributes['url.full'] = fullUrl(dependency.urlBase, call.url)
      if (call.statusCode !== 0) attributes['http.response.status_code'] = call.statusCode
      if (call.error !== null) attributes['error.type'] = call.error
    }
    const segmentEnd = record.entryEnd(call.segment)
    spans.push({
      segment: call.segment,
      name: dependency.spanName,
      internal: dependency.spanKind === 'internal',
      startMs: call.startMs,
      endMs: call.endMs === -1 ? Math.max(segmentEnd, call.startMs) : call.endMs,
      attributes,
      error: call.error
    })
  }
  return spans
}

const NO_SPANS = Object.freeze([])

/** How many spans dependencySpans() makes of the record's calls. */
function dependencySpanCount (record) {
  const calls = record.dependencyCalls
  if (calls === null) return 0
  let count = 0
  for (const call of calls) if (!call.external && call.dependency.spanKind !== 'none') count++
  return count
}

module.exports = { dependencySpans, dependencySpanCount }

/** The calls' spans through an OpenTelemetry tracer (the app's provider), under their segments' spans. */
function startDependencySpans (tracer, record, segmentSpans) {
  const api = require('@opentelemetry/api')
  for (const span of dependencySpans(record)) {
    const parent = segmentSpans[span.segment]
    const client = tracer.startSpan(span.name, {
      kind: span.internal ? api.SpanKind.INTERNAL : api.SpanKind.CLIENT,
      startTime: span.startMs,
      attributes: span.attributes
    }, api.trace.setSpan(api.ROOT_CONTEXT, parent))
    if (span.error !== null) client.setStatus({ code: api.SpanStatusCode.ERROR })
    client.end(span.endMs)
  }
}

module.exports.startDependencySpans = startDependencySpans
