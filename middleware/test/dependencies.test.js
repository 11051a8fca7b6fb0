'use strict'

// Dependencies inside a segment (DESIGN.md, "Timing semantics"): MongoDB commands (the driver and mongoose)
// and outgoing HTTP calls (fetch and node:http) a segment makes are attributed to it, in the breakdown and as
// CLIENT spans under its span, against the embedded database and a loopback server, on Express 4 and 5.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { MongoClient } = require('mongodb')
const mongoose = require('mongoose')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { startDatabase } = require('@nodebench/services')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')
const { recorded, operation, segment, dependency, assertConsistent } = require('./breakdown-assertions')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]
const SLOW_MS = 60

let database
let client
let upstream
let dataDir

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-dependencies-'))
  database = await startDatabase({ dataDir: path.join(dataDir, 'data'), readyTimeoutMs: 60000 })
  client = new MongoClient(database.uri)
  await client.connect()
  await client.db('deps').collection('users').deleteMany({})
  await client.db('deps').collection('users').insertMany([{ name: 'ada', secret: 'hunter2' }, { name: 'alan' }])
  await mongoose.connect(database.uri, { dbName: 'deps' })
  // The service the app calls: `/slow` answers after SLOW_MS.
  upstream = await listen(http.createServer((req, res) => {
    const answer = () => res.end(JSON.stringify({ path: req.url }))
    if (req.url.startsWith('/slow')) setTimeout(answer, SLOW_MS)
    else answer()
  }))
}, { timeout: 180000 })

after(async () => {
  await mongoose.disconnect().catch(() => {})
  await client?.close().catch(() => {})
  await upstream?.close()
  await database?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

const User = mongoose.model('User', new mongoose.Schema({ name: String, secret: String }), 'users')

function getJson (url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve(JSON.parse(body)))
    }).on('error', reject)
  })
}

function buildApp (express, trace) {
  const app = express()
  const users = client.db('deps').collection('users')
  app.use(trace)
  app.use(function callsNothing (req, res, next) { next() })
  app.get('/users', async function listUsers (req, res, next) {
    try {
      const found = await users.find({ name: 'ada' }).toArray()
      const viaFetch = await (await fetch(`${upstream.base}/profile?token=abc&page=2`)).json()
      const viaHttp = await getJson(`${upstream.base}/avatar`)
      res.json({ found: found.length, viaFetch, viaHttp })
    } catch (err) {
      next(err)
    }
  })
  app.get('/mongoose', async function countWithMongoose (req, res, next) {
    try {
      res.json({ count: await User.countDocuments({ name: 'ada' }), one: (await User.findOne({ name: 'alan' }))?.name })
    } catch (err) {
      next(err)
    }
  })
  app.get('/all', async function threeAtOnce (req, res, next) {
    try {
      const [a, b, c] = await Promise.all([User.find({ name: 'ada' }), users.find({}).toArray(), users.countDocuments({})])
      res.json({ a: a.length, b: b.length, c })
    } catch (err) {
      next(err)
    }
  })
  app.get('/slow', async function threeSlowCalls (req, res, next) {
    try {
      await Promise.all([1, 2, 3].map((n) => fetch(`${upstream.base}/slow/${n}`).then((r) => r.text())))
      res.json({ ok: true })
    } catch (err) {
      next(err)
    }
  })
  return app
}

for (const [label, express] of EXPRESS_VERSIONS) {
  test(`${label}: MongoDB commands and outgoing calls are attributed to the segment that made them`, { timeout: 120000 }, async (t) => {
    const exporter = new InMemorySpanExporter()
    const trace = nodebenchTrace({ serviceName: 'dependencies', exporter, metrics: { prometheus: '/metrics' } })
    t.after(() => trace.shutdown())
    const app = await listen(buildApp(express, trace))
    t.after(() => app.close())
    // The first request finds the app; the first outgoing call turns the requests' context on.
    await (await fetch(`${app.base}/users`)).json()
    await recorded(trace, 1)
    // The snapshot says how this Node.js keeps it: by async hooks (every promise pays) or by AsyncContextFrame.
    const frame = Number(process.versions.node.split('.')[0]) >= 24 || process.execArgv.includes('--experimental-async-context-frame')
    assert.equal(trace.breakdown().requestContext, frame ? 'async-context-frame' : 'async-hooks')
    trace.reset()
    exporter.reset()

    const { port } = upstream.server.address()
    for (let i = 0; i < 3; i++) assert.deepEqual((await (await fetch(`${app.base}/users`)).json()).found, 1)
    for (let i = 0; i < 2; i++) await (await fetch(`${app.base}/mongoose`)).json()
    await (await fetch(`${app.base}/all`)).json()
    await (await fetch(`${app.base}/slow`)).json()
    const snapshot = await recorded(trace, 7)

    const users = operation(snapshot, '/users')
    assertConsistent(users)
    assert.equal(segment(users, 'callsNothing').dependencies, undefined, 'a middleware that calls nothing has no dependencies')
    const listUsers = segment(users, 'listUsers')
    assert.equal(dependency(listUsers, 'mongodb', 'find', 'users').count, 1)
    const outgoing = dependency(listUsers, 'http', 'GET', `127.0.0.1:${port}`)
    assert.equal(outgoing.count, 2, 'fetch and node:http, one call each per request')
    assert.ok(outgoing.meanMs > 0 && outgoing.share > 0)

    const viaMongoose = segment(operation(snapshot, '/mongoose'), 'countWithMongoose')
    assert.equal(dependency(viaMongoose, 'mongodb', 'aggregate', 'users').count, 1, JSON.stringify(viaMongoose.dependencies))
    assert.equal(dependency(viaMongoose, 'mongodb', 'find', 'users').count, 1)

    const all = operation(snapshot, '/all')
    assertConsistent(all)
    const threeAtOnce = segment(all, 'threeAtOnce')
    assert.equal(dependency(threeAtOnce, 'mongodb', 'find', 'users').count, 2)
    assert.equal(dependency(threeAtOnce, 'mongodb', 'aggregate', 'users').count, 1)

    // Three calls of SLOW_MS at once: their union, about SLOW_MS, not three times it.
    const slow = operation(snapshot, '/slow')
    assertConsistent(slow)
    const threeSlowCalls = segment(slow, 'threeSlowCalls')
    const slowCalls = dependency(threeSlowCalls, 'http', 'GET', `127.0.0.1:${port}`)
    assert.equal(slowCalls.count, 3)
    assert.ok(slowCalls.meanMs >= SLOW_MS * 0.9 && slowCalls.meanMs <= threeSlowCalls.meanMs,
      `${slowCalls.meanMs} ms waited in a segment of ${threeSlowCalls.meanMs} ms`)

    // Spans: each call a CLIENT span under its segment's span, with the conventions' attributes, no values.
    await trace.flush()
    const spans = exporter.getFinishedSpans()
    const clientSpans = spans.filter((span) => span.kind === 2)
    const segmentSpan = spans.find((span) => span.name === 'handler - listUsers')
    assert.ok(segmentSpan)
    const underListUsers = clientSpans.filter((span) => span.parentSpanContext?.spanId === segmentSpan.spanContext().spanId)
    const find = underListUsers.find((span) => span.attributes['db.system.name'] === 'mongodb')
    assert.ok(find, 'the find is a CLIENT span under listUsers')
    assert.equal(find.name, 'find users')
    assert.equal(find.attributes['db.operation.name'], 'find')
    assert.equal(find.attributes['db.collection.name'], 'users')
    assert.equal(find.attributes['db.namespace'], 'deps')
    assert.equal(find.attributes['server.address'], '127.0.0.1')
    assert.equal(find.attributes['server.port'], database.port)
    const calls = underListUsers.filter((span) => span.attributes['http.request.method'] === 'GET')
    assert.equal(calls.length, 2)
    const urls = calls.map((span) => span.attributes['url.full']).sort()
    assert.deepEqual(urls, [`http://127.0.0.1:${port}/avatar`, `http://127.0.0.1:${port}/profile?token=REDACTED&page=REDACTED`])
    for (const call of calls) {
      assert.equal(call.attributes['http.response.status_code'], 200)
      assert.equal(call.attributes['server.port'], port)
    }
    assert.ok(!JSON.stringify(clientSpans.map((span) => span.attributes)).includes('ada'), 'no query values')

    // The request span: the HTTP server attributes.
    const server = spans.find((span) => span.kind === 1 && span.name === 'GET /users')
    assert.ok(server)
    assert.equal(server.attributes['url.scheme'], 'http')
    assert.equal(server.attributes['server.address'], '127.0.0.1')
    assert.equal(server.attributes['server.port'], app.server.address().port)
    assert.equal(server.attributes['network.protocol.version'], '1.1')
    assert.match(server.attributes['client.address'], /127\.0\.0\.1/)
    assert.equal(typeof server.attributes['user_agent.original'], 'string')
    assert.equal(server.attributes['error.type'], undefined)

    // Metrics: a series per operation, segment and dependency.
    const metrics = await (await fetch(`${app.base}/metrics`)).text()
    const series = metrics.split('\n').find((line) => line.startsWith('nodebench_dependency_duration_count{') &&
      line.includes('nodebench_segment_name="listUsers"') && line.includes('nodebench_dependency_system="mongodb"'))
    assert.ok(series, metrics.split('\n').filter((line) => line.includes('dependency')).slice(0, 5).join('\n'))
    assert.match(series, /nodebench_dependency_operation="find",nodebench_dependency_target="users"/)
  })
}

test('an app\'s own OpenTelemetry CLIENT spans are its segment\'s dependencies; what nodebench times itself is not counted twice', { timeout: 60000 }, async () => {
  const { execFile } = require('node:child_process')
  const { breakdown } = await new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'fixtures', 'otel-client-app.js')], { timeout: 50_000, env: { ...process.env, OTEL_TRACES_SAMPLER: '' } },
      (err, stdout, stderr) => err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)))
  })
  const orders = operation(breakdown, '/orders')
  assertConsistent(orders)
  assert.equal(segment(orders, 'callsNothing').dependencies, undefined)
  const listOrders = segment(orders, 'listOrders')
  const select = dependency(listOrders, 'postgresql', 'SELECT', 'orders')
  assert.equal(select.count, 1)
  assert.ok(select.meanMs >= 15, `${select.meanMs} ms`)
  // The node:http call: once (from Node.js's channel), not again from instrumentation-http's CLIENT span.
  const calls = listOrders.dependencies.filter((d) => d.system === 'http')
  assert.equal(calls.length, 1, JSON.stringify(listOrders.dependencies))
  assert.ok(calls[0].count <= 1, JSON.stringify(calls[0]))
  assert.ok(!JSON.stringify(breakdown).includes('$1'), 'no query text')
})
