'use strict'

// The floor of any breakdown: an app's functions timed the least way there is, and nothing else (no record, no
// aggregation). Two ways (the variants bare-clock, real-clock and real-clock-return of app.js):
//
// - at return: a read when the function is called and one when it returns, after the layers that its `next`
//   ran (bare-clock, real-clock-return). Two reads and two stores, no allocation.
// - at next: a read when the function is called and one when it calls its `next`, a `next` of its own made for
//   each call, as nodebench's must be (DESIGN.md: a segment ends at its `next`, which a layer may call late or
//   twice, after its own return). The handler, which never calls `next` on its way, ends at the response's
//   finish, read from the server's diagnostics channel as nodebench reads it (real-clock). Over the first way,
//   this one costs a closure a call and the channel's publish.
//
// `performance` is perf_hooks', held in a constant as nodebench holds it: the global of that name is a getter,
// and a look-up of it at every read cost ~17 ns a segment more (perf, Node.js 24.21.0).

const diagnosticsChannel = require('node:diagnostics_channel')
const { performance } = require('node:perf_hooks')

const RESPONSE_FINISH = 'http.server.response.finish'

/** `clocked(fn)`: `fn` between two reads of the clock, the second when it returns; two slots of `times` each. */
function clockedAtReturn (times) {
  let functions = 0
  return function clocked (fn) {
    const at = 2 * functions++
    if (times === null || at + 1 >= times.length) return fn
    return function (req, res, next) {
      times[at] = performance.now()
      const result = fn(req, res, next)
      times[at + 1] = performance.now()
      return result
    }
  }
}

/** `clocked(fn)`: `fn` between a read when it is called and one when it calls the `next` it was given. */
function clockedAtNext (times) {
  let functions = 0
  return function clocked (fn) {
    const at = 2 * functions++
    if (at + 1 >= times.length) return fn
    return function (req, res, next) {
      times[at] = performance.now()
      return fn(req, res, (err) => {
        times[at + 1] = performance.now()
        next(err)
      })
    }
  }
}

/**
 * The last slot of `times` read when a response finishes: where the handler's segment ends. One subscriber for
 * the process, as nodebench's (its response-end.js). Returns the unsubscribe.
 */
function clockResponseFinish (times) {
  const last = times.length - 1
  const onFinish = () => { times[last] = performance.now() }
  diagnosticsChannel.subscribe(RESPONSE_FINISH, onFinish)
  return () => diagnosticsChannel.unsubscribe(RESPONSE_FINISH, onFinish)
}

module.exports = { clockedAtReturn, clockedAtNext, clockResponseFinish }
