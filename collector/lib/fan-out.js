'use strict'

const { BreakdownAggregator, roundMs } = require('@nodebench/breakdown')
const { requestsFromSpans } = require('./spans-to-breakdown')

// A request that fans out to other processes (a front-end splitting a read across back-ends), read from its
// traces: per operation of the calling service, for every process it called (a service's instance), how many
// calls a request made, how long they took against the request's own time, and where inside them the time went
// (their segments, as any breakdown); and the critical path: the call that ended last in each request (the
// request could not answer before it), how often each process was that one, and where its time went.

/** A process of a service: its instance id when its spans carry one, else the service alone. */
function processOf (span) {
  return span.instance ? `${span.service} ${span.instance}` : span.service
}

/**
 * @param {Array} spans flat spans (jaeger-client's flattenSpans) of whole traces
 * @param {object} options `service`: the calling service (the requests whose fan-out is read)
 * @returns {{ schema: 1, service, operations: Array }} operations that called another process at least once
 */
function fanOutFromSpans (spans, { service }) {
  const byId = new Map(spans.map((span) => [span.traceId + span.spanId, span]))
  const requests = requestsFromSpans(spans)
  const requestSpans = new Map()
  for (const span of spans) {
    if (span.attributes['nodebench.kind'] === 'request') requestSpans.set(span.traceId + span.spanId, span)
  }
  // A request span's caller: the nearest request span above it, of another process.
  const callerOf = (span) => {
    let current = span.parentSpanId ? byId.get(span.traceId + span.parentSpanId) : undefined
    while (current !== undefined) {
      if (requestSpans.has(current.traceId + current.spanId)) {
        return processOf(current) === processOf(span) ? null : current
      }
      current = current.parentSpanId ? byId.get(current.traceId + current.parentSpanId) : undefined
    }
    return null
  }
  const operations = new Map()
  const callsByCaller = new Map()
  for (const request of requests) {
    const span = requestSpans.get(request.traceId + request.spanId)
    const caller = span === undefined ? null : callerOf(span)
    if (caller === null || caller.service !== service) continue
    const key = caller.traceId + caller.spanId
    if (!callsByCaller.has(key)) callsByCaller.set(key, [])
    callsByCaller.get(key).push({ span, request })
  }
  for (const [key, calls] of callsByCaller) {
    const caller = requestSpans.get(key)
    const attributes = caller.attributes
    const operationKey = `${attributes['http.request.method']} ${attributes['http.route']} ${attributes['nodebench.format']}`
    let operation = operations.get(operationKey)
    if (operation === undefined) {
      operation = {
        method: attributes['http.request.method'] || 'GET',
        route: attributes['http.route'] || '*',
        format: attributes['nodebench.format'] || 'other',
        requests: 0,
        totalMs: 0,
        callees: new Map(),
        critical: { byProcess: new Map(), aggregator: new BreakdownAggregator({ service: 'critical path' }), totalMs: 0 }
      }
      operations.set(operationKey, operation)
    }
    const requestMs = nanosToMs(caller.endNs - caller.startNs)
    operation.requests++
    operation.totalMs += requestMs
    let last = null
    for (const call of calls) {
      const process = processOf(call.span)
      let callee = operation.callees.get(process)
      if (callee === undefined) {
        callee = {
          service: call.span.service,
          process,
          calls: 0,
          requests: new Set(),
          totalMs: 0,
          requestMs: 0,
          aggregator: new BreakdownAggregator({ service: call.span.service })
        }
        operation.callees.set(process, callee)
      }
      callee.calls++
      if (!callee.requests.has(key)) {
        callee.requests.add(key)
        callee.requestMs += requestMs
      }
      callee.totalMs += call.request.responseTimeMs
      callee.aggregator.recordRequest(call.request)
      if (last === null || call.span.endNs > last.span.endNs) last = call
    }
    const critical = operation.critical
    const process = processOf(last.span)
    critical.byProcess.set(process, (critical.byProcess.get(process) ?? 0) + 1)
    critical.totalMs += last.request.responseTimeMs
    critical.aggregator.recordRequest(last.request)
  }
  return {
    schema: 1,
    service,
    operations: Array.from(operations.values(), (operation) => ({
      method: operation.method,
      route: operation.route,
      format: operation.format,
      requests: operation.requests,
      responseTimeMs: { mean: roundMs(operation.totalMs / operation.requests) },
      callees: Array.from(operation.callees.values(), (callee) => ({
        service: callee.service,
        process: callee.process,
        calls: callee.calls,
        callsPerRequest: callee.calls / callee.requests.size,
        meanMs: roundMs(callee.totalMs / callee.calls),
        // Its calls' time over the time of the requests that made them (calls at once can each come near 1).
        share: callee.requestMs > 0 ? callee.totalMs / callee.requestMs : 0,
        segments: segmentsOf(callee.aggregator)
      })).sort((a, b) => (a.process < b.process ? -1 : 1)),
      criticalPath: {
        meanMs: roundMs(operation.critical.totalMs / operation.requests),
        share: operation.totalMs > 0 ? operation.critical.totalMs / operation.totalMs : 0,
        processes: Array.from(operation.critical.byProcess, ([process, requests]) => ({ process, requests }))
          .sort((a, b) => b.requests - a.requests || (a.process < b.process ? -1 : 1)),
        segments: segmentsOf(operation.critical.aggregator)
      }
    }))
  }
}

/** An aggregator's segments over all its operations, by name and kind: mean time and share of the calls' time. */
function segmentsOf (aggregator) {
  const snapshot = aggregator.snapshot({ pid: null })
  const byName = new Map()
  let totalMs = 0
  for (const operation of snapshot.operations) {
    totalMs += operation.responseTimeMs.total
    for (const segment of operation.segments) {
      const key = `${segment.kind} ${segment.name}`
      const known = byName.get(key) ?? { name: segment.name, kind: segment.kind, count: 0, totalMs: 0 }
      known.count += segment.count
      known.totalMs += segment.totalMs
      byName.set(key, known)
    }
  }
  return Array.from(byName.values(), (segment) => ({
    name: segment.name,
    kind: segment.kind,
    meanMs: roundMs(segment.totalMs / segment.count),
    share: totalMs > 0 ? segment.totalMs / totalMs : 0
  }))
}

function nanosToMs (nanos) {
  return Number(nanos) / 1e6
}

module.exports = { fanOutFromSpans }
