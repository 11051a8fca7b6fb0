'use strict'

// Every way control leaves a layer closes its segment, once: its own next, the router's next (req.next, which
// res.format and res.render call on a handler's behalf), a throw, a rejected promise, next('route'),
// next('router'), a failing param callback, the response finishing. On Express 4 and 5, each path's layers spin
// for a while, so a segment left open past its layer would show: an operation's shares must sum to 1 and no
// two segments of a request may overlap.

const { describe, test } = require('node:test')
const assert = require('node:assert/strict')
const { EXPRESS_VERSIONS, runScenario, operationOf, appSegments } = require('./express-harness')

/** Busy for `ms` milliseconds: work a segment must own, not a wait. */
function spin (ms) {
  const until = performance.now() + ms
  while (performance.now() < until);
}

function recover (err, req, res, next) {
  spin(3)
  res.status(err.status || err.statusCode || 500).send(`recovered: ${err.message}`)
}

function finalAnswer (req, res) {
  spin(1)
  res.send('final')
}

const PATHS = [
  {
    name: "res.format with no acceptable type: a route handler's segment ends at req.next(406)",
    request: { path: '/format', headers: { accept: 'application/json' } },
    build (app) {
      app.get('/format', function formatIt (req, res) {
        spin(2)
        res.format({ 'text/plain' () { res.send('text') } })
      })
      app.use(recover)
    },
    status: 406,
    segments: ['handler formatIt', 'error-handler recover']
  },
  {
    name: 'res.format with no acceptable type in a middleware, and no error handler: Express answers 406',
    request: { path: '/negotiate', headers: { accept: 'image/png' } },
    build (app) {
      // Express's own error page then shows no stack trace (whose frames would name nodebench's wrapper too).
      app.set('env', 'production')
      app.use('/negotiate', function negotiate (req, res) {
        spin(2)
        res.format({ 'text/html' () { res.send('<p>html</p>') } })
      })
    },
    status: 406,
    segments: ['middleware negotiate']
  },
  {
    name: "res.render failing (no such view): the handler's segment ends at req.next(err)",
    request: { path: '/render' },
    build (app) {
      app.set('views', __dirname)
      app.set('view engine', 'nodebench-missing-engine')
      app.get('/render', function renderIt (req, res) {
        spin(2)
        res.render('no-such-view')
      })
      app.use(recover)
    },
    status: 500,
    segments: ['handler renderIt', 'error-handler recover']
  },
  {
    name: "req.next() from a route handler: the router's next, past the rest of the route",
    request: { path: '/skip' },
    build (app) {
      app.get('/skip', function skipByRouter (req, res) {
        spin(2)
        req.next()
      }, function neverReached (req, res) {
        res.send('never')
      })
      app.use('/skip', finalAnswer)
    },
    status: 200,
    segments: ['handler skipByRouter', 'middleware finalAnswer']
  },
  {
    name: "next('route')",
    request: { path: '/route' },
    build (app) {
      app.get('/route', function skipRoute (req, res, next) {
        spin(2)
        next('route')
      })
      app.get('/route', finalAnswer)
    },
    status: 200,
    segments: ['handler skipRoute', 'handler finalAnswer']
  },
  {
    name: "next('router')",
    request: { path: '/section/page' },
    build (app, { express }) {
      const router = express.Router()
      router.use(function leaveRouter (req, res, next) {
        spin(2)
        next('router')
      })
      app.use('/section', router)
      app.get('/section/page', finalAnswer)
    },
    status: 200,
    segments: ['middleware leaveRouter', 'handler finalAnswer']
  },
  {
    name: 'a rejected promise (Express 5 passes it on; on Express 4, the app does)',
    request: { path: '/rejects' },
    build (app, { express }) {
      async function rejectLater (req, res) {
        spin(2)
        await new Promise((resolve) => setImmediate(resolve))
        throw new Error('rejected')
      }
      // Express 4 leaves a rejection unhandled: its apps hand it to next themselves.
      app.get('/rejects', express === require('express5')
        ? rejectLater
        : function rejectLater (req, res, next) {
          spin(2)
          new Promise((resolve) => setImmediate(resolve)).then(() => { throw new Error('rejected') }).catch(next)
        })
      app.use(recover)
    },
    status: 500,
    segments: ['handler rejectLater', 'error-handler recover']
  },
  {
    name: 'a param callback that fails',
    request: { path: '/items/7' },
    build (app) {
      app.param('item', function loadItem (req, res, next, id) {
        spin(2)
        next(Object.assign(new Error(`item ${id} not found`), { status: 404 }))
      })
      app.get('/items/:item', finalAnswer)
      app.use(recover)
    },
    status: 404,
    segments: ['param loadItem (:item)', 'error-handler recover']
  },
  {
    name: 'a synchronous throw',
    request: { path: '/throws' },
    build (app) {
      app.get('/throws', function throwNow (req, res) {
        spin(2)
        throw new Error('thrown')
      })
      app.use(recover)
    },
    status: 500,
    segments: ['handler throwNow', 'error-handler recover']
  },
  {
    name: 'an error handler that passes the error on to the next one',
    request: { path: '/relay' },
    build (app) {
      app.get('/relay', function failFirst (req, res, next) {
        spin(1)
        next(new Error('relayed'))
      })
      app.use(function annotate (err, req, res, next) {
        spin(2)
        err.status = 503
        next(err)
      })
      app.use(recover)
    },
    status: 503,
    segments: ['handler failFirst', 'error-handler annotate', 'error-handler recover']
  },
  {
    name: 'the response finishing: the last layer ends when it is sent',
    request: { path: '/answer' },
    build (app) {
      app.use(function pass (req, res, next) {
        spin(1)
        next()
      })
      app.get('/answer', finalAnswer)
    },
    status: 200,
    segments: ['middleware pass', 'handler finalAnswer']
  }
]

/** A request's segment spans (not routers, nor a segment's render and dependency spans) in start order never overlap. */
function assertNoOverlap (spans) {
  const byTrace = new Map()
  for (const span of spans) {
    const kind = span.attributes['nodebench.kind']
    if (kind === undefined || kind === 'request' || kind === 'router' || kind === 'route') continue
    const list = byTrace.get(span.spanContext().traceId) ?? []
    list.push(span)
    byTrace.set(span.spanContext().traceId, list)
  }
  assert.ok(byTrace.size > 0, 'segment spans were written')
  const nanos = ([seconds, nanoseconds]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)
  for (const list of byTrace.values()) {
    list.sort((a, b) => (nanos(a.startTime) < nanos(b.startTime) ? -1 : 1))
    for (let i = 1; i < list.length; i++) {
      assert.ok(nanos(list[i].startTime) >= nanos(list[i - 1].endTime),
        `${list[i].name} starts before ${list[i - 1].name} ends`)
    }
  }
}

for (const [label, express] of EXPRESS_VERSIONS) {
  describe(label, () => {
    for (const path of PATHS) {
      test(path.name, async (t) => {
        const { snapshot, spans, responses } = await runScenario(t, express, { build: path.build, requests: [path.request] })
        assert.equal(responses[0].status, path.status)
        // runScenario checked that the shares of every operation sum to 1, and the responses are the plain app's.
        const [operation] = snapshot.operations
        assert.equal(snapshot.operations.length, 1, snapshot.operations.map((o) => o.route).join(', '))
        assert.deepEqual(appSegments(operation), path.segments)
        // Overlapping segments would own more than the response time (runScenario: shares sum to 1 exactly).
        const owned = operation.segments.reduce((sum, s) => sum + s.share, 0)
        assert.ok(owned <= 1 + 1e-9, `the segments own ${owned} of the response time`)
        assertNoOverlap(spans)
        assert.ok(operationOf(snapshot, operation.method, operation.route, operation.format))
      })
    }
  })
}
