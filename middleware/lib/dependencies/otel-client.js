'use strict'

const api = require('@opentelemetry/api')
const { startCall, endCall, observeRequests, observing } = require('./calls')
const { describeDependency } = require('./describe')
const { reportInternalError } = require('../internal-errors')

// The CLIENT spans the app's own OpenTelemetry instrumentations make (pg, mysql2, redis, ...): heard by a span
// processor added to the TracerProvider the app registered, whose onStart runs in the async context of the
// code that starts the span, so the span's time goes to the segment open there. An app without OpenTelemetry
// gets nothing. The spans themselves stay the app's (nodebench writes no second span for them). Calls that
// nodebench times itself (MongoDB commands, outgoing HTTP) are not counted a second time from the spans
// instrumentation-mongodb, -mongoose, -http or -undici make of them.

const kCall = Symbol('nodebench.dependencyCall')
const OBSERVED_DIRECTLY = /instrumentation-(http|undici|mongodb|mongoose|fetch)$/

let observedProvider = null

/**
 * The span processor, added once to the registered provider's processors (the SDK's TracerProvider keeps
 * them in a MultiSpanProcessor that its tracers share, made and not replaced): true when it is.
 */
function observeOtelClients (provider) {
  if (provider === null || provider === undefined || provider === observedProvider) return observedProvider !== null
  try {
    const processors = provider._activeSpanProcessor?._spanProcessors
    if (!Array.isArray(processors)) return false
    processors.push(new DependencySpanProcessor())
    observedProvider = provider
    observeRequests()
    return true
  } catch (err) {
    reportInternalError('observe the app\'s CLIENT spans', err)
    return false
  }
}

class DependencySpanProcessor {
  onStart (span) {
    if (span.kind !== api.SpanKind.CLIENT || !observing()) return
    try {
      const scope = span.instrumentationScope?.name ?? span.instrumentationLibrary?.name ?? ''
      if (OBSERVED_DIRECTLY.test(scope) || scope === '@nodebench/trace') return
      const attributes = span.attributes ?? {}
      const system = text(attributes['db.system.name']) ?? text(attributes['db.system']) ??
        text(attributes['rpc.system']) ?? text(attributes['messaging.system']) ?? 'client'
      if (system === 'mongodb' || attributes['http.request.method'] !== undefined || attributes['http.method'] !== undefined) return
      const operation = text(attributes['db.operation.name']) ?? text(attributes['db.operation']) ??
        text(attributes['rpc.method']) ?? text(attributes['messaging.operation.name']) ?? span.name
      const target = text(attributes['db.collection.name']) ?? text(attributes['db.sql.table']) ??
        text(attributes['db.namespace']) ?? text(attributes['db.name']) ?? text(attributes['server.address']) ?? ''
      const dependency = describeDependency(system, '', operation, target, () => ({
        system, operation, target, spanName: span.name, attributes: {}
      }))
      const call = startCall(dependency)
      if (call === null) return
      call.external = true
      span[kCall] = call
    } catch (err) {
      reportInternalError('time a CLIENT span', err)
    }
  }

  onEnd (span) {
    const call = span[kCall]
    if (call === undefined) return
    endCall(call, span.status?.code === api.SpanStatusCode.ERROR ? text(span.attributes?.['error.type']) ?? '_OTHER' : null)
  }

  forceFlush () {
    return Promise.resolve()
  }

  shutdown () {
    return Promise.resolve()
  }
}

function text (value) {
  return typeof value === 'string' && value !== '' ? value : null
}

module.exports = { observeOtelClients, DependencySpanProcessor }
