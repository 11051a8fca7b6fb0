'use strict'

const { normalizeOptions } = require('./options')
const { randomTraceId, randomSpanId } = require('./trace-context')

// `NODEBENCH=off` in the environment: nodebenchTrace() gives the app a layer that only hands the request on.
// Nothing is instrumented, wrapped, patched or exported, nodebench's paths are not served, and of its modules
// only these few are loaded (index.js loads the rest when nodebench is on): the app runs as it would without the
// line. It is what `nodebench bench --baseline-targets app-untraced` compares the traced app with (those cells
// start the app with NODEBENCH=off), and a switch for any deployment. The options are still checked: an app
// that passes bad ones fails the same way on and off.

const OFF = 'off'

/** Whether nodebench is switched off for this process (NODEBENCH=off). */
function switchedOff (env = process.env) {
  return env.NODEBENCH === OFF
}

/** The middleware nodebenchTrace(options) answers when switched off: the same methods, none of which does anything. */
function untracedMiddleware (options) {
  const config = normalizeOptions(options)
  const middleware = function nodebenchTraceOff (req, res, next) {
    next()
  }
  // An empty breakdown of the service, as a traced app's before its first request (loaded when first asked for).
  let empty = null
  middleware.breakdown = () => {
    const { BreakdownAggregator } = require('@nodebench/breakdown')
    empty ??= new BreakdownAggregator({ service: config.serviceName, maxOperations: config.maxOperations })
    return empty.snapshot()
  }
  middleware.reset = () => {}
  // Nothing is sampled: the trace another service would join says so (flags 00), as for an unsampled request.
  middleware.traceparent = () => `00-${randomTraceId()}-${randomSpanId()}-00`
  middleware.flush = () => Promise.resolve()
  middleware.shutdown = () => Promise.resolve()
  middleware.options = config
  middleware.enabled = false
  return middleware
}

module.exports = { switchedOff, untracedMiddleware }
