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

// The functions the breakdown times on this app (what bare-clock would clock).
const REAL_SEGMENTS = 9

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

/** Express app `express()` with nodebench's `tracing` first (null: bare), then the real stack and one route. */
function createRealApp (express, tracing) {
  const app = express()
  if (tracing !== null) app.use(tracing)
  app.use(helmet())
  app.use(cors())
  app.use(compression())
  app.use(express.json())
  app.use(morgan('combined', { stream: nullStream() }))
  // A limit no benchmark reaches: the limiter counts every request (its memory store) and sets its headers.
  app.use(rateLimit({ windowMs: 60_000, limit: 1e9, standardHeaders: 'draft-8', legacyHeaders: false }))
  app.use(passport.initialize())
  let requestCount = 0
  app.use(function requestId (req, res, next) {
    req.id = (++requestCount).toString(36)
    res.setHeader('X-Request-Id', req.id)
    next()
  })
  app.get('/api/items/:id', catchAsync(async function getItem (req, res) {
    const id = Number(req.params.id)
    const item = await Promise.resolve({ id, name: `item ${id}`, price: (id % 100) + 0.99, tags: ['small', 'json'] })
    res.json({ ...item, requestId: req.id })
  }))
  return app
}

module.exports = { createRealApp, REAL_SEGMENTS }
