'use strict'

// The overhead benchmark's second app: a real middleware stack, packages from the npm registry as an Express
// API mounts them, nine functions a request (nine timed segments):
//
//   helmet() · cors() · compression() · express.json() · morgan('combined') to a null stream ·
//   express-rate-limit · passport.initialize() · a request id · a catchAsync-wrapped controller returning JSON
//
// Unlike the benchmark app's ten small middleware, these do to the request and the response what real
// middleware do: helmet sets a dozen headers, compression wraps `res.write`, `res.end` and `res.on`, morgan
// and the rate limiter listen for the response's end, passport adds methods to the request. What nodebench
// costs a segment depends on that (issue 51): both apps are measured side by side.

const { Writable } = require('node:stream')
const cors = require('cors')
const compression = require('compression')
const helmet = require('helmet')
const morgan = require('morgan')
const passport = require('passport')
const { rateLimit } = require('express-rate-limit')
const { clockedAtNext, clockedAtReturn, clockResponseFinish } = require('./clock-floor')

// The functions the breakdown times on this app (what real-clock and real-clock-return clock).
const REAL_SEGMENTS = 9
const unclocked = (fn) => fn

/** A stream that takes morgan's lines and drops them. */
function nullStream () {
  return new Writable({
    write (chunk, encoding, callback) {
      callback()
    }
  })
}

/** The usual wrapper of an async controller: its rejection goes to Express's `next`. */
function catchAsync (fn) {
  return function catchAsyncHandler (req, res, next) {
    fn(req, res, next).catch(next)
  }
}

/**
 * Express app `express()` with nodebench's `tracing` first (null: bare), then the real stack and one route.
 * `clocked` wraps each of the nine functions in turn (clock-floor.js: the real-clock variants); by default none.
 */
function createRealApp (express, tracing, clocked = unclocked) {
  const app = express()
  if (tracing !== null) app.use(tracing)
  app.use(clocked(helmet()))
  app.use(clocked(cors()))
  app.use(clocked(compression()))
  app.use(clocked(express.json()))
  app.use(clocked(morgan('combined', { stream: nullStream() })))
  // A limit no benchmark reaches: the limiter counts every request (its memory store) and sets its headers.
  app.use(clocked(rateLimit({ windowMs: 60_000, limit: 1e9, standardHeaders: 'draft-8', legacyHeaders: false })))
  app.use(clocked(passport.initialize()))
  let requestCount = 0
  app.use(clocked(function requestId (req, res, next) {
    req.id = (++requestCount).toString(36)
    res.setHeader('X-Request-Id', req.id)
    next()
  }))
  app.get('/api/items/:id', clocked(catchAsync(async function getItem (req, res) {
    const id = Number(req.params.id)
    const item = await Promise.resolve({ id, name: `item ${id}`, price: (id % 100) + 0.99, tags: ['small', 'json'] })
    res.json({ ...item, requestId: req.id })
  })))
  return app
}

/**
 * The floor of the breakdown on this stack (clock-floor.js), for `variant` real-clock (a read at each call and at
 * its `next`, the handler's second at the response's finish) or real-clock-return (the second read at the
 * return): `{ times, clocked, stop }`, `clocked` to give createRealApp, `stop` to stop reading the responses'
 * finish; null for any other variant.
 */
function realClockOf (variant) {
  if (variant !== 'real-clock' && variant !== 'real-clock-return') return null
  const times = new Float64Array(2 * REAL_SEGMENTS)
  if (variant === 'real-clock-return') return { times, clocked: clockedAtReturn(times), stop: () => {} }
  return { times, clocked: clockedAtNext(times), stop: clockResponseFinish(times) }
}

module.exports = { createRealApp, realClockOf, REAL_SEGMENTS }
