'use strict'

// NODEBENCH=off: nodebenchTrace() hands every request on and does nothing else (lib/untraced.js). The app answers
// exactly as without the line, nothing of it is wrapped, nodebench's paths are not served, and nodebench's own
// modules are not loaded; bad options still fail. It is how `nodebench bench --baseline-targets app-untraced`
// runs any app untraced.

const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { nodebenchTrace } = require('..')
const { listen, withEnv } = require('./helpers')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]
const PACKAGE = path.join(__dirname, '..')

/** A small app of the usual shape: a middleware, a route with a param and a throwing one, an error handler. */
function createApp (express, trace) {
  const app = express()
  if (trace !== null) app.use(trace)
  app.use(function requestId (req, res, next) {
    res.setHeader('x-request-id', 'r1')
    next()
  })
  app.param('id', function loadItem (req, res, next, id) {
    req.item = { id: Number(id) }
    next()
  })
  app.get('/items/:id', function getItem (req, res) {
    res.json({ item: req.item, next: typeof req.next })
  })
  app.get('/boom', function boom () {
    throw new Error('boom')
  })
  app.use(function onError (err, req, res, next) {
    res.status(500).json({ error: err.message })
  })
  return app
}

/** Status, the headers an app sets (not the date), and the body of each path. */
async function answers (app, paths) {
  const server = await listen(app)
  try {
    const seen = []
    for (const at of paths) {
      const response = await fetch(`${server.base}${at}`)
      const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive'))
      seen.push({ at, status: response.status, headers, body: await response.text() })
    }
    return seen
  } finally {
    await server.close()
  }
}

const OPTIONS = { serviceName: 'switched-off', exporter: 'none', expose: true, serverTiming: true }
const PATHS = ['/items/7', '/boom', '/__nodebench', '/nowhere']

for (const [label, express] of EXPRESS_VERSIONS) {
  test(`${label}, NODEBENCH=off: the app answers as without nodebench, nothing wrapped, nodebench's paths not served`, async () => {
    const bare = await answers(createApp(express, null), PATHS)
    await withEnv({ NODEBENCH: 'off' }, async () => {
      const trace = nodebenchTrace(OPTIONS)
      assert.equal(trace.enabled, false)
      const app = createApp(express, trace)
      assert.deepEqual(await answers(app, PATHS), bare)
      const stack = (app._router ?? app.router).stack
      for (const layer of stack) {
        assert.equal(Object.hasOwn(layer, 'handle_request') || Object.hasOwn(layer, 'handleRequest'), false, layer.name)
      }
      const snapshot = trace.breakdown()
      assert.equal(snapshot.service, 'switched-off')
      assert.deepEqual(snapshot.operations, [])
      assert.match(trace.traceparent({}), /^00-[\da-f]{32}-[\da-f]{16}-00$/)
      await trace.flush()
      await trace.shutdown()
    })
  })

  test(`${label}, NODEBENCH=on: the same app traced (what the test above would see if the switch did nothing)`, async () => {
    await withEnv({ NODEBENCH: 'on' }, async () => {
      const trace = nodebenchTrace(OPTIONS)
      assert.equal(trace.enabled, true)
      const [item, , breakdown] = await answers(createApp(express, trace), PATHS)
      assert.match(item.headers['server-timing'], /getItem/)
      assert.equal(breakdown.status, 200)
      await trace.shutdown()
    })
  })
}

test('NODEBENCH=off: bad options still fail with their coded error', async () => {
  await withEnv({ NODEBENCH: 'off' }, async () => {
    assert.throws(() => nodebenchTrace({ sampleRatio: 3 }), { code: 'NB_ERR_SAMPLE_RATIO' })
  })
})

test('NODEBENCH=off: nodebench\'s own modules are not loaded and nothing is subscribed to', () => {
  const script = `
    const before = new Set(Object.keys(require.cache))
    const { nodebenchTrace } = require(${JSON.stringify(PACKAGE)})
    const trace = nodebenchTrace({ expose: true })
    const loaded = Object.keys(require.cache).filter((file) => !before.has(file))
    const channels = ['http.client.request.start', 'http.server.request.start', 'undici:request:create']
    const dc = require('node:diagnostics_channel')
    console.log(JSON.stringify({ enabled: trace.enabled, loaded, subscribed: channels.filter((name) => dc.hasSubscribers(name)) }))
  `
  const run = (NODEBENCH) => JSON.parse(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, NODEBENCH }, encoding: 'utf8' }))
  const off = run('off')
  assert.equal(off.enabled, false)
  assert.deepEqual(off.subscribed, [])
  assert.ok(off.loaded.length <= 12, `modules loaded switched off: ${off.loaded.join(', ')}`)
  assert.ok(!off.loaded.some((file) => /opentelemetry|[\\/]lib[\\/]trace\.js$|breakdown/.test(file)), off.loaded.join(', '))
  const on = run('on')
  assert.equal(on.enabled, true)
  assert.ok(on.loaded.length > 50 && on.subscribed.length > 0, `${on.loaded.length} modules, ${on.subscribed}`)
})
