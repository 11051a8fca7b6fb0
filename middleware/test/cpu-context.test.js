'use strict'

// CPU of async code (lib/cpu-context.js): while nodebench flame's agent samples, the app's nodebench logs which
// segment's async context runs from which moment on, on Express 4 and 5: the continuation after an await in a
// handler, a callback it waits on, are the handler's; the request's context is on only while a log holds it
// (or for good, once a dependency is observed).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')

// What nodebench flame's agent puts in the app before it loads (packages/cli/lib/flame/v8-agent.js).
const logs = []
globalThis[Symbol.for('nodebench.cpuContexts')] = Object.freeze({ offer: (log) => logs.push(log) })

const { nodebenchTrace } = require('..')
const { observing, holdRequestContext, releaseRequestContext, observeRequests } = require('../lib/dependencies/calls')
const { listen } = require('./helpers')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]

/** CPU that a callback on the next turn of the event loop runs: no frame of the handler below it. */
function hashLater (text) {
  return new Promise((resolve) => setImmediate(() => {
    let digest = text
    for (let i = 0; i < 200; i++) digest = crypto.createHash('sha256').update(digest).digest('hex')
    resolve(digest)
  }))
}

function appOf (express) {
  const app = express()
  app.use(nodebenchTrace({ exporter: 'none' }))
  app.use(async function waits (req, res, next) {
    await new Promise((resolve) => setImmediate(resolve))
    next()
  })
  app.get('/login', async function login (req, res) {
    await new Promise((resolve) => setImmediate(resolve))
    const token = await hashLater('token')
    await Promise.resolve()
    res.json({ token })
  })
  return app
}

// First, before any outgoing call of this process (the tests' own fetch) has the dependencies observed.
test('the request context is on while a profiler holds it, and stays on for good once a dependency is observed', () => {
  assert.equal(observing(), false)
  holdRequestContext()
  holdRequestContext()
  releaseRequestContext()
  assert.equal(observing(), true, 'one hold left')
  releaseRequestContext()
  assert.equal(observing(), false, 'every hold released, no dependency observed: off')
  holdRequestContext()
  observeRequests()
  releaseRequestContext()
  assert.equal(observing(), true, 'a dependency observed keeps it')
})

for (const [label, express] of EXPRESS_VERSIONS) {
  test(`${label}: the log names the segment each continuation ran for, on the clock of V8's profiles`, async (t) => {
    const { base, close } = await listen(appOf(express))
    t.after(close)
    // The first request finds the app (and offers the log); the log starts after it.
    assert.equal((await fetch(`${base}/login`)).status, 200)
    assert.equal(logs.length, 1, 'one copy of nodebench offered its log once')
    const [log] = logs
    log.start()
    t.after(() => log.stop())
    assert.equal(observing(), true)
    for (let i = 0; i < 5; i++) await Promise.all([fetch(`${base}/login`), fetch(`${base}/login`)].map((p) => p.then((r) => r.json())))
    const { times, contexts, table, truncated } = log.stop()
    assert.equal(truncated, false)
    assert.equal(times.length, contexts.length)
    for (let i = 1; i < times.length; i++) assert.ok(times[i] >= times[i - 1], 'the log is in time order')
    // On the clock V8's profiles use (process.hrtime's, in µs).
    const nowUs = Number(process.hrtime.bigint()) / 1000
    assert.ok(times[times.length - 1] <= nowUs && times[0] > nowUs - 60_000_000, `${times[0]} .. ${nowUs}`)
    const login = table.findIndex((context) => context.name === 'login')
    const waits = table.findIndex((context) => context.name === 'waits')
    assert.ok(login !== -1 && waits !== -1, JSON.stringify(table))
    assert.deepEqual([table[login].method, table[login].route, table[login].format, table[login].kind], ['GET', '/login', 'json', 'handler'])
    assert.match(table[login].file, /cpu-context\.test\.js$/)
    // Its position among the request's segments (Express 4's query and expressInit come first).
    assert.equal(table[login].position, table[waits].position + 1)
    // Each request's handler ran in several continuations after its awaits: it appears again and again.
    const runs = contexts.filter((context) => context === login).length
    assert.ok(runs >= 10, `login's context began ${runs} times for 10 requests`)
    assert.ok(contexts.includes(-1), 'moments in no request (the event loop between callbacks)')
    // A second stop has nothing more to give.
    assert.equal(log.stop(), null)
  })
}
