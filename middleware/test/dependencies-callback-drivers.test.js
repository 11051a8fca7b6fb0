'use strict'

// MongoDB time inside a segment on the drivers most Express APIs in the wild still run: mongoose 5 (driver 3.7,
// the API boilerplate's), 6 (driver 4) and 7 (driver 5). Their drivers' methods take callbacks, and a pooled
// connection's callback runs in whatever async context gave the connection back; the calls are timed at the
// driver's Server, in the operation's own context. A pool of 2 connections under 8 concurrent requests makes
// requests wait for each other's connections: each call must still be its own request's segment's.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const express = require('express4')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const { startDatabase } = require('@nodebench/services')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')
const { recorded, segment, dependency, assertConsistent } = require('./breakdown-assertions')

const DRIVERS = [
  { label: 'mongoose 5 (driver 3.7)', name: 'mongoose-5', driver: '3.', options: { useUnifiedTopology: true, useNewUrlParser: true, poolSize: 2 } },
  { label: 'mongoose 6 (driver 4)', name: 'mongoose-6', driver: '4.', options: { maxPoolSize: 2 } },
  { label: 'mongoose 7 (driver 5)', name: 'mongoose-7', driver: '5.', options: { maxPoolSize: 2 } }
]
const CONCURRENT = 8

let database
let dataDir
const connected = new Map()

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-callback-drivers-'))
  database = await startDatabase({ dataDir: path.join(dataDir, 'data'), readyTimeoutMs: 60000 })
  // Every copy is loaded and connected before nodebench is made, as an app's are.
  for (const { name, options } of DRIVERS) {
    const mongoose = require(name)
    await mongoose.connect(database.uri, { dbName: name.replace('-', ''), ...options })
    const User = mongoose.model('User', new mongoose.Schema({ name: String, secret: String }), 'users')
    await User.deleteMany({})
    const [ada] = await User.create([{ name: 'ada', secret: 'hunter2' }, { name: 'alan' }])
    connected.set(name, { mongoose, User, adaId: String(ada._id) })
  }
}, { timeout: 180000 })

after(async () => {
  for (const { mongoose } of connected.values()) await mongoose.disconnect().catch(() => {})
  await database?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

function buildApp (trace, { User, adaId }) {
  const app = express()
  app.use(trace)
  app.use(async function auth (req, res, next) {
    try {
      req.user = await User.findById(adaId).lean()
      next()
    } catch (err) {
      next(err)
    }
  })
  app.get('/users', async function listUsers (req, res, next) {
    try {
      const [count, users] = await Promise.all([User.countDocuments({}), User.find({ name: { $ne: 'nobody' } }).lean()])
      res.json({ user: req.user.name, count, names: users.map((user) => user.name).sort() })
    } catch (err) {
      next(err)
    }
  })
  app.post('/users', async function addUser (req, res, next) {
    try {
      const created = await User.create({ name: 'grace' })
      await User.deleteOne({ _id: created._id })
      res.status(201).json({ created: created.name })
    } catch (err) {
      next(err)
    }
  })
  return app
}

for (const { label, name, driver } of DRIVERS) {
  test(`${label}: each request's database calls are its own segments, with the pool shared`, { timeout: 120000 }, async (t) => {
    const { mongoose } = connected.get(name)
    assert.ok(require(require.resolve('mongodb/package.json', { paths: [path.dirname(require.resolve(name))] })).version.startsWith(driver))
    const exporter = new InMemorySpanExporter()
    const trace = nodebenchTrace({ serviceName: 'callback-drivers', exporter })
    t.after(() => trace.shutdown())
    const app = await listen(buildApp(trace, connected.get(name)))
    t.after(() => app.close())
    // The first request finds the app and its driver.
    assert.equal((await fetch(`${app.base}/users`)).status, 200)
    await recorded(trace, 1)
    trace.reset()
    exporter.reset()

    const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => fetch(`${app.base}/users`).then((res) => res.json())))
    for (const answer of answers) assert.deepEqual(answer, { user: 'ada', count: 2, names: ['ada', 'alan'] })
    const created = await fetch(`${app.base}/users`, { method: 'POST' })
    assert.equal(created.status, 201)
    const snapshot = await recorded(trace, CONCURRENT + 1)

    const users = snapshot.operations.find((op) => op.method === 'GET' && op.route === '/users')
    assertConsistent(users)
    const auth = segment(users, 'auth')
    assert.equal(dependency(auth, 'mongodb', 'find', 'users').count, 1, JSON.stringify(auth.dependencies))
    assert.equal(auth.dependencies.length, 1, JSON.stringify(auth.dependencies))
    const listUsers = segment(users, 'listUsers')
    assert.equal(dependency(listUsers, 'mongodb', 'find', 'users').count, 1, JSON.stringify(listUsers.dependencies))
    assert.equal(dependency(listUsers, 'mongodb', 'aggregate', 'users').count, 1, 'countDocuments')
    for (const entry of [...auth.dependencies, ...listUsers.dependencies]) assert.ok(entry.meanMs > 0 && entry.share > 0, JSON.stringify(entry))
    const addUser = segment(snapshot.operations.find((op) => op.method === 'POST' && op.route === '/users'), 'addUser')
    assert.equal(dependency(addUser, 'mongodb', 'insert', 'users').count, 1, JSON.stringify(addUser.dependencies))
    assert.equal(dependency(addUser, 'mongodb', 'delete', 'users').count, 1)

    // Spans: each request's find a CLIENT span under its own auth span.
    await trace.flush()
    const spans = exporter.getFinishedSpans()
    const authSpans = spans.filter((span) => span.name === 'middleware - auth')
    assert.ok(authSpans.length >= CONCURRENT + 1, `${authSpans.length} auth spans`) // and the first request's, if its batch left after the reset
    for (const authSpan of authSpans) {
      const children = spans.filter((span) => span.kind === 2 && span.parentSpanContext?.spanId === authSpan.spanContext().spanId)
      assert.equal(children.length, 1, `one call under each auth: ${children.map((span) => span.name)}`)
      const [find] = children
      assert.equal(find.name, 'find users')
      assert.equal(find.attributes['db.system.name'], 'mongodb')
      assert.equal(find.attributes['db.namespace'], name.replace('-', ''))
      assert.equal(find.attributes['server.port'], database.port)
      assert.ok(!JSON.stringify(find.attributes).includes('hunter2') && !JSON.stringify(find.attributes).includes(connected.get(name).adaId))
    }
    assert.ok(mongoose.connection.readyState === 1)
  })
}
