'use strict'

// nodebench finds the whole router tree (nested routers, mounted sub-apps, each handler of a route, param
// callbacks, layers registered before it or added later), names each segment, builds the full route
// template, and leaves the user's functions untouched. Every scenario runs on Express 4 and Express 5.

const { describe, test } = require('node:test')
const assert = require('node:assert/strict')
const {
  EXPRESS_VERSIONS,
  runScenario,
  send,
  recorded,
  operationOf,
  appSegments,
  segmentOf,
  appStack
} = require('./express-harness')

function describeRoutes (snapshot) {
  return snapshot.operations.map((o) => `${o.method} ${o.route} ${o.format}`).join(', ')
}

function routerOf (app) {
  return app._router !== undefined ? app._router : app.router
}

/** The function of every layer of the tree, routes' own stacks and nested routers included. */
function layerHandles (stack) {
  return stack.flatMap((layer) => [
    layer.handle,
    ...(layer.route ? layerHandles(layer.route.stack) : []),
    ...(Array.isArray(layer.handle.stack) ? layerHandles(layer.handle.stack) : [])
  ])
}

function buildDatabaseApp (app, { express }) {
  app.param('database', function (req, res, next, value) {
    req.loaded = [value]
    next()
  })
  const database = express.Router({ mergeParams: true })
  database.param('collection', function (req, res, next, value) {
    req.loaded.push(value)
    next()
  })
  const collection = express.Router({ mergeParams: true })
  collection.param('document', function (req, res, next, value) {
    req.loaded.push(value)
    next()
  })
  collection.get('/:document', function viewDocument (req, res) {
    res.json({ params: req.params, loaded: req.loaded })
  })
  database.use('/:collection', collection)
  app.use('/db/:database', database)
}

/** A param callback with an own property, to see that the wrapper keeps the original's identity. */
function buildUserApp (app, context) {
  function loadUser (req, res, next, id) {
    req.userId = id
    next()
  }
  loadUser.custom = 42
  context.loadUser = loadUser
  app.param('id', loadUser)
  app.get('/users/:id', function showUser (req, res) {
    res.json({ id: req.userId })
  })
  context.handlesBefore = layerHandles(appStack(app))
}

const treeScenarios = [
  {
    name: 'nested routers with mergeParams: param segments and the full route template',
    requests: [{ path: '/db/nodebench/users/ada' }, { path: '/db/other/users/bob' }],
    build: buildDatabaseApp,
    check ({ snapshot, responses }) {
      assert.deepEqual(JSON.parse(responses[0].body), {
        params: { database: 'nodebench', collection: 'users', document: 'ada' },
        loaded: ['nodebench', 'users', 'ada']
      })
      const operation = operationOf(snapshot, 'GET', '/db/:database/:collection/:document', 'json')
      assert.equal(operation.count, 2)
      assert.deepEqual(appSegments(operation),
        ['param database', 'param collection', 'param document', 'handler viewDocument'])
      for (const name of ['database', 'collection', 'document']) assert.equal(segmentOf(operation, name).kind, 'param')
    }
  },
  {
    name: 'a request that ends in a param callback (404, error) belongs to the route it matched, after a catch-all route',
    requests: [{ path: '/api/docs/missing' }, { path: '/api/docs/bad' }, { path: '/api/docs/found' }],
    build (app, { express }) {
      app.all(/.*/, function setLocals (req, res, next) {
        next()
      })
      const api = express.Router()
      api.param('document', function (req, res, next, id) {
        if (id === 'missing') return res.status(404).json({ error: 'not found' })
        if (id === 'bad') return next(new Error('bad id'))
        next()
      })
      api.get('/docs/:document', function viewDocument (req, res) {
        res.json({ ok: true })
      })
      api.use(function sendError (err, req, res, next) {
        res.status(500).json({ error: err.message })
      })
      app.use('/api', api)
    },
    check ({ snapshot, responses }) {
      assert.deepEqual(responses.map((r) => r.status), [404, 500, 200])
      const operation = operationOf(snapshot, 'GET', '/api/docs/:document', 'json')
      assert.equal(operation.count, 3)
      assert.equal(operation.errors, 1)
      assert.equal(snapshot.operations.length, 1, describeRoutes(snapshot))
    }
  },
  {
    name: 'a sub-app mounted in the app: its middleware and route are segments',
    requests: [{ path: '/admin/users' }],
    build (app, { express }) {
      const admin = express()
      admin.use(function adminOnly (req, res, next) {
        res.set('x-admin', 'yes')
        next()
      })
      admin.get('/users', function listUsers (req, res) {
        res.json(['ada'])
      })
      app.use('/admin', admin)
    },
    check ({ snapshot, responses }) {
      assert.equal(responses[0].headers['x-admin'], 'yes')
      const operation = operationOf(snapshot, 'GET', '/admin/users', 'json')
      assert.deepEqual(appSegments(operation), ['middleware adminOnly', 'handler listUsers'])
    }
  },
  {
    name: 'app.get(path, validate, load, render) gives three handler segments in order',
    requests: [{ path: '/items/7' }],
    build (app) {
      app.get('/items/:item', function validate (req, res, next) {
        next()
      }, function load (req, res, next) {
        req.item = { id: req.params.item }
        next()
      }, function render (req, res) {
        res.send(`<p>item ${req.item.id}</p>`)
      })
    },
    check ({ snapshot }) {
      const operation = operationOf(snapshot, 'GET', '/items/:item', 'html')
      assert.deepEqual(appSegments(operation), ['handler validate', 'handler load', 'handler render'])
      const orders = ['validate', 'load', 'render'].map((name) => segmentOf(operation, name).order)
      assert.deepEqual(orders, [...orders].sort((a, b) => a - b))
    }
  },
  {
    name: 'middleware registered before app.use(trace) is timed after the first request',
    requests: [{ path: '/early' }],
    beforeTrace (app) {
      app.use(function registeredEarly (req, res, next) {
        res.set('x-early', 'yes')
        next()
      })
    },
    build (app) {
      app.get('/early', function afterEarly (req, res) {
        res.send('<p>early</p>')
      })
    },
    check ({ snapshot }) {
      const operation = operationOf(snapshot, 'GET', '/early', 'html')
      assert.deepEqual(appSegments(operation), ['middleware registeredEarly', 'handler afterEarly'])
    }
  },
  {
    name: 'a route and a param callback added after the first request are timed',
    requests: [{ path: '/added/1' }, { path: '/added/2' }],
    build (app) {
      app.get('/before', function before (req, res) {
        res.send('before')
      })
    },
    afterWarmUp (app) {
      app.param('later', function (req, res, next) {
        next()
      })
      app.get('/added/:later', function addedLater (req, res) {
        res.send('<p>added</p>')
      })
    },
    check ({ snapshot }) {
      const operation = operationOf(snapshot, 'GET', '/added/:later', 'html')
      assert.equal(operation.count, 2)
      assert.deepEqual(appSegments(operation), ['param later', 'handler addedLater'])
      assert.equal(segmentOf(operation, 'addedLater').count, 2)
    }
  },
  {
    name: 'the format comes from the Content-Type: html, json, other',
    requests: ['html', 'json', 'text'].map((format) => ({ path: `/format/${format}` })),
    build (app) {
      app.get('/format/html', function sendHtml (req, res) {
        res.send('<p>html</p>')
      })
      app.get('/format/json', function sendJson (req, res) {
        res.json({ format: 'json' })
      })
      app.get('/format/text', function sendText (req, res) {
        res.type('text/plain').send('text')
      })
    },
    check ({ snapshot }) {
      assert.deepEqual(appSegments(operationOf(snapshot, 'GET', '/format/html', 'html')), ['handler sendHtml'])
      assert.deepEqual(appSegments(operationOf(snapshot, 'GET', '/format/json', 'json')), ['handler sendJson'])
      assert.deepEqual(appSegments(operationOf(snapshot, 'GET', '/format/text', 'other')), ['handler sendText'])
    }
  }
]

for (const [label, express] of EXPRESS_VERSIONS) {
  // The layer methods nodebench shadows with own properties (wrap-layer.js).
  const shadowed = label === 'express 4' ? 'handle_request' : 'handleRequest'

  describe(label, () => {
    for (const scenario of treeScenarios) {
      test(scenario.name, async (t) => {
        scenario.check(await runScenario(t, express, scenario))
      })
    }

    test('every layer keeps the user function as its handle; the method is shadowed instead', async (t) => {
      const { traced } = await runScenario(t, express, { build: buildUserApp, requests: [{ path: '/users/1' }] })
      const handlesAfter = layerHandles(appStack(traced.app))
      assert.equal(handlesAfter.length, traced.context.handlesBefore.length)
      handlesAfter.forEach((handle, i) => assert.equal(handle, traced.context.handlesBefore[i], `layer ${i}`))
      const routeLayer = appStack(traced.app).find((layer) => layer.route)
      for (const layer of [routeLayer, ...routeLayer.route.stack]) {
        assert.ok(Object.hasOwn(layer, shadowed), `${layer.name}: own ${shadowed}`)
      }
    })

    test('a wrapped param callback keeps length, name and own properties, and is wrapped once', async (t) => {
      const { traced, trace } = await runScenario(t, express, { build: buildUserApp, requests: [{ path: '/users/1' }] })
      const { app, context: { loadUser } } = traced
      const params = routerOf(app).params
      const wrapped = params.id[0]
      assert.notEqual(wrapped, loadUser, 'the callback is wrapped')
      assert.equal(wrapped.length, loadUser.length)
      assert.equal(wrapped.name, 'loadUser')
      assert.equal(wrapped.custom, 42)

      trace.reset()
      let sent = 0
      for (const round of [1, 2]) {
        // A layer added later makes nodebench walk the stack (and the params) again.
        app.get(`/round${round}/:id`, function addedRoute (req, res) {
          res.json({ id: req.userId })
        })
        for (const requestPath of ['/users/2', '/users/3', `/round${round}/4`]) {
          const response = await send(traced.base, { path: requestPath })
          assert.equal(response.status, 200)
          sent++
        }
        assert.equal(params.id.length, 1)
        assert.equal(params.id[0], wrapped, `round ${round}: the wrapper is not wrapped again`)
      }
      const snapshot = await recorded(trace, sent)
      const users = operationOf(snapshot, 'GET', '/users/:id', 'json')
      assert.equal(users.count, 4)
      // A named param callback keeps its name, beside its parameter.
      assert.equal(segmentOf(users, 'loadUser (:id)').count, 4, 'one param segment per request')
      assert.equal(segmentOf(operationOf(snapshot, 'GET', '/round2/:id', 'json'), 'loadUser (:id)').count, 1)
    })
  })
}
