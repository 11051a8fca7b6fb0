'use strict'

// What other instrumentations put around an Express layer's function, and the function they wrap.
//
// OpenTelemetry's instrumentation-express replaces `layer.handle` of every layer it sees added (app.use,
// router.use, router.route) with a function of its own, `patched`, that opens its layer span and calls the
// original. It wraps through @opentelemetry/instrumentation's shimmer, which marks the wrapper the way the
// `shimmer` package does: `__wrapped` true, `__original` the function it replaced, `__unwrap` to put it back.
// So do other patchers built on shimmer. The wrapper keeps the original's enumerable properties (as getters)
// but not its name, arity or source location: a layer is recognised (nodebench's own middleware, a router, a
// mounted app) and named by the function under every such wrapper. An error handler (four arguments) is left
// as it is by instrumentation-express, which then marks the original itself as its own `__original`.
//
// The wrapper also closes over the instrumentation that made it (`instrumentation`), whose configuration says
// whether it creates layer spans (layer-spans.js decides which instrumentation's stand).

// How many wrappers deep a function is looked for: patchers rarely stack more than two.
const MAX_DEPTH = 8

/** Whether `fn` is a shimmer-style wrapper around another function. */
function isForeignWrapper (fn) {
  if (typeof fn !== 'function') return false
  try {
    const original = fn.__original
    return fn.__wrapped === true && typeof original === 'function' && original !== fn
  } catch {
    return false
  }
}

/** The function under every shimmer-style wrapper around `fn` (`fn` itself when it is not wrapped). */
function unwrapFunction (fn) {
  let current = fn
  for (let depth = 0; depth < MAX_DEPTH && isForeignWrapper(current); depth++) current = current.__original
  return current
}

const EXPRESS_INSTRUMENTATION = '@opentelemetry/instrumentation-express'

/**
 * The OpenTelemetry instrumentation that made the wrapper `fn` (its closure's `instrumentation`, found through
 * `lookup`, a function-names.js FunctionLookup), when it is instrumentation-express; else null.
 */
function expressInstrumentationOf (fn, lookup) {
  if (!isForeignWrapper(fn)) return null
  const instrumentation = lookup.closureValue(fn, 'instrumentation')
  if (instrumentation === null || typeof instrumentation !== 'object') return null
  if (instrumentation.instrumentationName !== EXPRESS_INSTRUMENTATION) return null
  if (typeof instrumentation.getConfig !== 'function' || typeof instrumentation.setConfig !== 'function') return null
  return instrumentation
}

module.exports = { isForeignWrapper, unwrapFunction, expressInstrumentationOf, EXPRESS_INSTRUMENTATION }
