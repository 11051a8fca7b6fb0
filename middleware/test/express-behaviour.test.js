'use strict'

// With nodebench the app answers exactly as without it (next('route'), next('router'), errors, throws,
// rejected promises, headers already sent, redirects, static files, HEAD, aborted clients), and what it
// records is right: segments, shares, names, spans. Every scenario runs on Express 4 and Express 5.

const { describe, test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { randomBytes } = require('node:crypto')
const { SpanKind, SpanStatusCode } = require('@opentelemetry/api')
const {
  EXPRESS_VERSIONS,
  runScenario,
  operationOf,
  appSegments,
  segmentOf,
  spanNamed,
  isChildOf
} = require('./express-harness')

const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-static-'))
const staticFiles = { 'hello.txt': Buffer.from('hello from disk\n'), 'data.bin': randomBytes(64 * 1024) }
for (const [name, content] of Object.entries(staticFiles)) fs.writeFileSync(path.join(staticDir, name), content)
after(() => fs.rmSync(staticDir, { recursive: true, force: true }))

// Real apps write controllers like this; the function's own `.name` is empty.
const exp = {}
exp.viewDocument = function (req, res) {
  res.send('<p>document</p>')
}

function errorHandler (err, req, res, next) {
  res.status(500).send(`handled: ${err.message}`)
}

/** The 1-based line of this file whose code starts with `prefix` (there must be exactly one). */
function lineStartingWith (prefix) {
  const lines = fs.readFileSync(__filename, 'utf8').split('\n')
  const found = lines.flatMap((line, index) => (line.trimStart().startsWith(prefix) ? [index + 1] : []))
  assert.equal(found.length, 1, `lines starting with ${prefix}: ${found}`)
  return found[0]
}

/** next(err), a throw or a rejection in `handlerName` reached errorHandler: recorded as an error. */
function assertErrorRecorded ({ snapshot, spans, responses }, route, handlerName, message) {
  assert.equal(responses[0].status, 500)
  assert.equal(responses[0].body.toString(), `handled: ${message}`)
  const operation = operationOf(snapshot, 'GET', route, 'html')
  assert.equal(operation.count, 1)
  assert.equal(operation.errors, 1)
  assert.deepEqual(appSegments(operation), [`handler ${handlerName}`, 'error-handler errorHandler'])
  assert.equal(segmentOf(operation, 'errorHandler').kind, 'error-handler')

  const failing = spanNamed(spans, `handler - ${handlerName}`)
  assert.equal(failing.status.code, SpanStatusCode.ERROR)
  assert.equal(failing.status.message, message)
  const exception = failing.events.find((event) => event.name === 'exception')
  assert.ok(exception, 'the error is recorded as an exception event')
  assert.equal(exception.attributes['exception.message'], message)
  assert.equal(spanNamed(spans, 'error-handler - errorHandler').attributes['nodebench.kind'], 'error-handler')
  const server = spanNamed(spans, `GET ${route}`)
  assert.equal(server.status.code, SpanStatusCode.ERROR)
  assert.equal(server.attributes['http.response.status_code'], 500)
}

function buildUsersApp (app, { express }) {
  app.use(function logRequest (req, res, next) {
    next()
  })
  app.param('id', function (req, res, next, id) {
    req.userId = id
    next()
  })
  app.get('/users/:id', function showUser (req, res) {
    res.json({ id: req.userId })
  })
  const api = express.Router()
  api.get('/items', function listItems (req, res) {
    res.json([])
  })
  app.use('/api', api)
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_SPAN_ID = '00f067aa0ba902b7'

const controlFlow = [
  {
    name: 'next() passes the request on',
    requests: [{ path: '/next' }],
    build (app) {
      app.use(function first (req, res, next) {
        res.set('x-first', 'yes')
        next()
      })
      app.get('/next', function answer (req, res) {
        res.send('answered')
      })
    },
    check ({ snapshot, responses }) {
      assert.equal(responses[0].headers['x-first'], 'yes')
      const operation = operationOf(snapshot, 'GET', '/next', 'html')
      assert.equal(operation.count, 1)
      assert.equal(operation.errors, 0)
      assert.deepEqual(appSegments(operation), ['middleware first', 'handler answer'])
    }
  },
  {
    // Express's router sets req.next to the `next` it hands a layer; a route's own handlers get the route's
    // `next` while req.next stays the router's. res.format calls the chosen handler with req.next. runScenario
    // compares every observation with the plain app's; the check says which ones Express promises.
    name: 'req.next is the next each layer receives, and res.format hands it to the chosen handler',
    requests: [
      { path: '/format', headers: { accept: 'application/json' } },
      { path: '/format', headers: { accept: 'text/html;q=0.5, application/json;q=0.9' } },
      { path: '/format', headers: { accept: 'image/png' } },
      { path: '/route-format', headers: { accept: 'text/html' } },
      { path: '/format-error', headers: { accept: 'text/plain' } }
    ],
    build (app, { seen }) {
      app.use('/format', function negotiate (req, res, next) {
        seen.push(['negotiate: req.next is next', req.next === next])
        res.format({
          'text/html' (a, b, c) {
            seen.push(['html: handed next', a === req && b === res && c === next])
            res.send('<p>hey</p>')
          },
          'application/json' (a, b, c) {
            seen.push(['json: handed next', c === next && c === req.next])
            res.json({ message: 'hey' })
          },
          default (a, b, c) {
            seen.push(['default: handed next', c === next])
            res.status(406).send('not acceptable')
          }
        })
      })
      app.get('/route-format', function routeNegotiate (req, res, next) {
        seen.push(['route handler: req.next is next', req.next === next])
        res.format({
          'text/html' (a, b, c) {
            seen.push(['route html: handed req.next', c === req.next])
            res.send('<p>route</p>')
          }
        })
      })
      app.get('/format-error', function failing (req, res, next) {
        next(new Error('failed'))
      })
      app.use(function formatError (err, req, res, next) {
        seen.push(['error handler: req.next is next', req.next === next])
        res.format({
          'text/plain' (a, b, c) {
            seen.push(['error text: handed next', c === next])
            res.status(500).send(err.message)
          }
        })
      })
    },
    check ({ responses, traced }) {
      assert.deepEqual(responses.map((r) => r.status), [200, 200, 406, 200, 500])
      assert.deepEqual(JSON.parse(responses[1].body), { message: 'hey' })
      assert.deepEqual(traced.context.seen, [
        ['negotiate: req.next is next', true], ['json: handed next', true],
        ['negotiate: req.next is next', true], ['json: handed next', true],
        ['negotiate: req.next is next', true], ['default: handed next', true],
        ['route handler: req.next is next', false], ['route html: handed req.next', true],
        ['error handler: req.next is next', true], ['error text: handed next', true]
      ])
    }
  },
  {
    // nodebench writes req.next only where Express's would be found, and puts Express's back at the end.
    name: "an app's own req.next is left alone, and req.next is Express's again once the response has finished",
    requests: [{ path: '/own-next' }, { path: '/api/after' }],
    build (app, { express, seen }) {
      let custom = null
      app.use('/own-next', function replaceNext (req, res, next) {
        const expressNext = req.next
        custom = function customNext (err) { return expressNext(err) }
        req.next = custom
        next()
      })
      app.use('/own-next', function readNext (req, res, next) {
        seen.push(['the app\'s req.next stays', req.next === custom])
        next()
      })
      app.get('/own-next', function answer (req, res) {
        res.on('finish', () => seen.push(['after finish: still the app\'s', req.next === custom]))
        res.send('own')
      })
      const api = express.Router()
      api.get('/after', function after (req, res) {
        // Express's router's own `next` (named next), not one of nodebench's.
        res.on('finish', () => seen.push(['after finish: req.next is', req.next.name]))
        res.send('after')
      })
      app.use('/api', api)
    },
    check ({ traced }) {
      assert.deepEqual(traced.context.seen, [
        ['the app\'s req.next stays', true], ['after finish: still the app\'s', true],
        ['after finish: req.next is', 'next']
      ])
    }
  },
  {
    name: "next('route') skips to the next route with the same path",
    requests: [{ path: '/route' }],
    build (app) {
      app.get('/route', function skipRoute (req, res, next) {
        next('route')
      }, function neverCalled (req, res) {
        res.send('first route')
      })
      app.get('/route', function secondRoute (req, res) {
        res.send('second route')
      })
    },
    check ({ snapshot, responses }) {
      assert.equal(responses[0].body.toString(), 'second route')
      const operation = operationOf(snapshot, 'GET', '/route', 'html')
      assert.equal(operation.errors, 0)
      assert.deepEqual(appSegments(operation), ['handler skipRoute', 'handler secondRoute'])
    }
  },
  {
    name: "next('router') leaves a Router and a later app route answers",
    requests: [{ path: '/section/page' }],
    build (app, { express }) {
      const router = express.Router()
      router.use(function leaveRouter (req, res, next) {
        next('router')
      })
      router.get('/page', function routerPage (req, res) {
        res.send('router page')
      })
      app.use('/section', router)
      app.get('/section/page', function appPage (req, res) {
        res.send('app page')
      })
    },
    check ({ snapshot, responses }) {
      assert.equal(responses[0].body.toString(), 'app page')
      const operation = operationOf(snapshot, 'GET', '/section/page', 'html')
      assert.equal(operation.errors, 0)
      assert.deepEqual(appSegments(operation), ['middleware leaveRouter', 'handler appPage'])
    }
  },
  {
    name: 'next(err) reaches a four-argument error handler',
    requests: [{ path: '/next-error' }],
    build (app) {
      app.get('/next-error', function passError (req, res, next) {
        next(new Error('passed on'))
      })
      app.use(errorHandler)
    },
    check: (result) => assertErrorRecorded(result, '/next-error', 'passError', 'passed on')
  },
  {
    name: 'a synchronous throw reaches the error handler',
    requests: [{ path: '/throw' }],
    build (app) {
      app.get('/throw', function throwing (req, res) {
        throw new Error('thrown')
      })
      app.use(errorHandler)
    },
    check: (result) => assertErrorRecorded(result, '/throw', 'throwing', 'thrown')
  },
  {
    name: 'a rejected promise reaches the error handler',
    handlesPromises: true,
    requests: [{ path: '/reject' }],
    build (app) {
      app.get('/reject', async function rejecting (req, res) {
        await null
        throw new Error('rejected')
      })
      app.use(errorHandler)
    },
    check: (result) => assertErrorRecorded(result, '/reject', 'rejecting', 'rejected')
  },
  {
    name: 'a handler that never calls next and answers later owns most of the time',
    requests: [{ path: '/later' }],
    build (app) {
      app.get('/later', function answerLater (req, res) {
        setTimeout(() => res.send('later'), 30)
      })
    },
    check ({ snapshot }) {
      const operation = operationOf(snapshot, 'GET', '/later', 'html')
      const segment = segmentOf(operation, 'answerLater')
      assert.ok(segment.meanMs >= 25, `answerLater took ${segment.meanMs} ms`)
      assert.ok(segment.share > 0.8, `answerLater's share is ${segment.share}`)
    }
  },
  {
    name: 'res.headersSent is true for a layer after one that sent and called next',
    requests: [{ path: '/sent' }],
    build (app, { seen }) {
      app.use('/sent', function sendEarly (req, res, next) {
        res.send('early')
        next()
      })
      app.use('/sent', function checkHeadersSent (req, res, next) {
        seen.push(`headersSent ${res.headersSent}`)
        if (!res.headersSent) res.send('late')
      })
    },
    check ({ snapshot, responses, traced }) {
      assert.equal(responses[0].body.toString(), 'early')
      assert.deepEqual(traced.context.seen, ['headersSent true'])
      const operation = operationOf(snapshot, 'GET', '*', 'html')
      assert.deepEqual(appSegments(operation), ['middleware sendEarly', 'middleware checkHeadersSent'])
    }
  },
  {
    name: 'a redirect keeps its status and Location',
    requests: [{ path: '/old' }],
    build (app) {
      app.get('/old', function moved (req, res) {
        res.redirect('/new')
      })
    },
    check ({ snapshot, responses }) {
      assert.equal(responses[0].status, 302)
      assert.equal(responses[0].headers.location, '/new')
      const operation = operationOf(snapshot, 'GET', '/old', 'other')
      assert.deepEqual(appSegments(operation), ['handler moved'])
    }
  },
  {
    name: 'express.static serves byte-identical files',
    requests: Object.keys(staticFiles).map((name) => ({ path: `/static/${name}` })),
    build (app, { express }) {
      app.use('/static', express.static(staticDir))
    },
    check ({ snapshot, responses }) {
      Object.values(staticFiles).forEach((content, i) => assert.ok(responses[i].body.equals(content)))
      const operation = operationOf(snapshot, 'GET', '*', 'other')
      assert.equal(operation.count, 2)
      assert.equal(segmentOf(operation, 'serveStatic').kind, 'middleware')
    }
  },
  {
    name: 'HEAD answers without a body and with the headers of GET',
    requests: [{ method: 'HEAD', path: '/resource' }, { path: '/resource' }],
    build (app) {
      app.get('/resource', function resource (req, res) {
        res.set('x-resource', 'yes')
        res.send('<p>resource</p>')
      })
    },
    check ({ snapshot, responses: [head, get] }) {
      assert.equal(head.status, 200)
      assert.equal(head.body.length, 0)
      for (const name of ['content-type', 'content-length', 'etag', 'x-resource']) {
        assert.equal(head.headers[name], get.headers[name], name)
      }
      assert.deepEqual(appSegments(operationOf(snapshot, 'HEAD', '/resource', 'html')), ['handler resource'])
      assert.equal(operationOf(snapshot, 'GET', '/resource', 'html').count, 1)
    }
  },
  {
    name: 'a client that aborts mid-request: the record finishes and a late answer is harmless',
    requests: [{ path: '/abort', abort: true }],
    build (app, { events, seen }) {
      app.get('/abort', function slowAnswer (req, res) {
        events.emit('started')
        res.on('close', () => setTimeout(() => {
          try {
            res.send('too late')
            seen.push(`answered after the client left, writableEnded ${res.writableEnded}`)
          } catch (err) {
            seen.push(`threw ${err.message}`)
          }
          events.emit('responded')
        }, 10))
      })
    },
    check ({ snapshot, spans, traced }) {
      assert.deepEqual(traced.context.seen, ['answered after the client left, writableEnded true'])
      const operation = operationOf(snapshot, 'GET', '/abort', 'other')
      assert.equal(operation.count, 1)
      assert.equal(operation.aborted, 1)
      assert.deepEqual(appSegments(operation), ['handler slowAnswer'])
      const server = spanNamed(spans, 'GET /abort')
      assert.equal(server.attributes['nodebench.aborted'], true)
      assert.ok(isChildOf(spanNamed(spans, 'handler - slowAnswer'), server))
    }
  },
  {
    name: 'names: a function assigned to a property, an inline arrow; every segment has file and line',
    requests: [{ path: '/named' }, { path: '/anonymous' }],
    build (app) {
      app.get('/named', exp.viewDocument)
      app.get('/anonymous', (req, res) => res.send('<p>anonymous</p>'))
    },
    check ({ snapshot }) {
      assert.equal(exp.viewDocument.name, '', 'the name is not the function\'s own')
      const named = operationOf(snapshot, 'GET', '/named', 'html')
      assert.deepEqual(appSegments(named), ['handler viewDocument'])
      assert.equal(segmentOf(named, 'viewDocument').line, lineStartingWith('exp.viewDocument = function'))
      const anonymous = operationOf(snapshot, 'GET', '/anonymous', 'html')
      const line = lineStartingWith("app.get('/anonymous', (req, res) =>")
      assert.deepEqual(appSegments(anonymous), [`handler <anonymous> ${path.relative(process.cwd(), __filename)}:${line}`])
      assert.match(anonymous.segments.at(-1).name, /^<anonymous> (?:.+\/)?express-behaviour\.test\.js:\d+$/)
      for (const segment of [...named.segments, ...anonymous.segments]) {
        if (segment.name === 'query' || segment.name === 'expressInit') continue // Express 4's own
        assert.equal(path.basename(segment.file), 'express-behaviour.test.js', segment.name)
        assert.ok(Number.isInteger(segment.line) && segment.line > 0, `${segment.name} line ${segment.line}`)
      }
    }
  },
  {
    name: 'spans: a SERVER span per request, a child per segment, router spans around their layers',
    requests: [{ path: '/users/42' }, { path: '/api/items' }],
    build: buildUsersApp,
    check ({ spans }) {
      const server = spanNamed(spans, 'GET /users/:id')
      assert.equal(server.kind, SpanKind.SERVER)
      assert.equal(server.parentSpanContext, undefined)
      assert.equal(server.attributes['http.route'], '/users/:id')
      assert.equal(server.attributes['http.request.method'], 'GET')
      assert.equal(server.attributes['http.response.status_code'], 200)
      const expected = [
        ['middleware - logRequest', 'middleware', 'logRequest', 'middleware'],
        ['param - id', 'param', 'id', 'middleware'],
        ['handler - showUser', 'handler', 'showUser', 'request_handler']
      ]
      for (const [name, kind, functionName, expressType] of expected) {
        const span = spans.find((s) => s.name === name && isChildOf(s, server))
        assert.ok(span, `no span "${name}" under ${server.name}`)
        assert.equal(span.kind, SpanKind.INTERNAL)
        assert.equal(span.spanContext().traceId, server.spanContext().traceId)
        assert.equal(span.attributes['nodebench.kind'], kind)
        assert.equal(span.attributes['code.function.name'], functionName)
        assert.equal(span.attributes['code.file.path'], __filename)
        assert.ok(Number.isInteger(span.attributes['code.line.number']), name)
        assert.equal(span.attributes['express.type'], expressType)
        assert.equal(span.attributes['express.name'], functionName)
      }
      const apiServer = spanNamed(spans, 'GET /api/items')
      assert.equal(apiServer.attributes['url.path'], '/api/items', 'the whole path, not the router-relative one')
      assert.equal(server.attributes['url.path'], '/users/42')
      const router = spanNamed(spans, 'router - /api')
      assert.ok(isChildOf(router, apiServer))
      assert.equal(router.attributes['express.type'], 'router')
      assert.equal(router.attributes['express.name'], '/api')
      assert.ok(isChildOf(spanNamed(spans, 'handler - listItems'), router))
    }
  },
  {
    name: 'an incoming traceparent header sets the trace id and parent of the SERVER span',
    requests: [{ path: '/users/7', headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } }],
    build: buildUsersApp,
    check ({ spans }) {
      const server = spanNamed(spans, 'GET /users/:id')
      assert.equal(server.spanContext().traceId, TRACE_ID)
      assert.equal(server.parentSpanContext.spanId, PARENT_SPAN_ID)
      assert.ok(spans.length > 1)
      for (const span of spans) assert.equal(span.spanContext().traceId, TRACE_ID, span.name)
    }
  },
  {
    // nodebench finds a request's record under a symbol of its own on the response (request-record.js): by
    // name the app sees the same request and response as without it. runScenario compares the bodies.
    name: 'the request and the response keep the keys an app reads by name',
    requests: [{ path: '/keys' }, { path: '/keys' }],
    build (app) {
      app.use(function first (req, res, next) {
        next()
      })
      app.get('/keys', function listKeys (req, res) {
        const forIn = []
        for (const key in res) if (Object.hasOwn(res, key)) forIn.push(key)
        res.json({ req: Object.keys(req), res: Object.keys(res), forIn, copied: Object.keys({ ...res }) })
      })
    },
    check ({ responses }) {
      const body = JSON.parse(responses[1].body.toString())
      assert.ok(body.res.includes('locals'), 'the handler listed the response\'s own keys')
      for (const keys of Object.values(body)) assert.ok(!keys.some((key) => /nodebench/i.test(key)), keys.join(', '))
    }
  },
  {
    name: 'sampleRatio 0: no spans, every request still in the breakdown',
    traceOptions: { sampleRatio: 0 },
    requests: [1, 2, 3, 4, 5].map((id) => ({ path: `/users/${id}` })),
    build: buildUsersApp,
    check ({ snapshot, spans }) {
      assert.equal(spans.length, 0)
      const operation = operationOf(snapshot, 'GET', '/users/:id', 'json')
      assert.equal(operation.count, 5)
      assert.equal(segmentOf(operation, 'id').count, 5)
    }
  }
]

for (const [label, express] of EXPRESS_VERSIONS) {
  // Express 4 leaves a rejected promise unhandled: that case exists only where the router handles promises.
  const handlesPromises = label === 'express 5'
  describe(label, () => {
    for (const scenario of controlFlow) {
      if (scenario.handlesPromises && !handlesPromises) continue
      test(scenario.name, async (t) => {
        scenario.check(await runScenario(t, express, scenario))
      })
    }
  })
}
