'use strict'

// nodebench-test: once. TTL indexes are the launcher's (Go) and FerretDB's; express-session and connect-mongo only create and read sessions through them: the Node.js version does not change what this tests.
// TTL indexes on the embedded database (ferretdb/wire_proxy.go and ttl_monitor.go): FerretDB 1.24 refuses
// expireAfterSeconds; the launcher accepts it and deletes expired documents every pass. Against the real
// launcher with one-second passes, and the real express-session + connect-mongo (its TTL index at start).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')
const { MongoClient } = require('mongodb')
const express = require('express')
const session = require('express-session')
const { MongoStore } = require('connect-mongo')
const { startDatabase } = require('..')
const { temporaryDir } = require('./helpers')

// Passes run every second here; a document may live up to one pass past its expiry, and the machine is slow.
const EXPIRY_WAIT_MS = 20000

async function startForTest (t, options) {
  const database = await startDatabase({ ttlMonitorSleepSecs: 1, ...options })
  t.after(() => database.stop())
  return database
}

async function connect (t, uri) {
  const client = new MongoClient(uri)
  t.after(() => client.close())
  await client.connect()
  return client
}

/** Polls `probe` until it returns true; false when `EXPIRY_WAIT_MS` passed first. */
async function eventually (probe) {
  const deadline = Date.now() + EXPIRY_WAIT_MS
  while (Date.now() < deadline) {
    if (await probe()) return true
    await sleep(250)
  }
  return false
}

/** An Express 5 app keeping sessions in connect-mongo (its default autoRemove: 'native', a TTL index). */
async function startSessionApp (t, uri) {
  const store = MongoStore.create({ mongoUrl: uri, dbName: 'shop', ttl: 2 })
  t.after(() => store.close())
  const app = express()
  app.use(session({ secret: 'test secret', resave: false, saveUninitialized: false, store }))
  app.get('/visit', (req, res) => {
    req.session.visits = (req.session.visits ?? 0) + 1
    res.json({ visits: req.session.visits })
  })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${server.address().port}`
}

test('connect-mongo: the app starts, its sessions are stored, an expired one is deleted', async (t) => {
  const database = await startForTest(t, { dataDir: path.join(temporaryDir(t), 'data') })
  const base = await startSessionApp(t, database.uri)

  const first = await fetch(`${base}/visit`)
  assert.equal(first.status, 200, await first.clone().text())
  assert.deepEqual(await first.json(), { visits: 1 })
  const cookie = first.headers.get('set-cookie').split(';')[0]
  const second = await fetch(`${base}/visit`, { headers: { cookie } })
  assert.deepEqual(await second.json(), { visits: 2 }, 'the session is read back from the store')

  const client = await connect(t, database.uri)
  const sessions = client.db('shop').collection('sessions')
  const indexes = await sessions.indexes()
  const ttl = indexes.find((index) => index.name === 'expires_1')
  assert.deepEqual([ttl?.key, ttl?.expireAfterSeconds], [{ expires: 1 }, 0], `listIndexes shows the TTL index as created: ${JSON.stringify(indexes)}`)
  assert.equal(await sessions.countDocuments(), 1)
  assert.ok(await eventually(async () => await sessions.countDocuments() === 0),
    `the session (ttl 2 s) is deleted within ${EXPIRY_WAIT_MS} ms`)
})

test('a TTL pass deletes dates older than expireAfterSeconds only, and goes on after a restart', async (t) => {
  const dataDir = path.join(temporaryDir(t), 'data')
  const now = Date.now()
  let database = await startForTest(t, { dataDir })
  let client = await connect(t, database.uri)
  let events = client.db('app').collection('events')
  await events.createIndex({ at: 1 }, { expireAfterSeconds: 3600 })
  await events.insertMany([
    { _id: 'hour-old', at: new Date(now - 3700 * 1000) },
    { _id: 'recent', at: new Date(now - 60 * 1000) },
    { _id: 'not-a-date', at: String(new Date(now - 3700 * 1000)) },
    { _id: 'no-field' }
  ])
  assert.ok(await eventually(async () => await events.countDocuments({ _id: 'hour-old' }) === 0))
  assert.deepEqual((await events.find().sort({ _id: 1 }).toArray()).map((document) => document._id),
    ['no-field', 'not-a-date', 'recent'])
  const specs = JSON.parse(fs.readFileSync(path.join(dataDir, 'ttl-indexes.json'), 'utf8'))
  assert.deepEqual(specs, [{ database: 'app', collection: 'events', index: 'at_1', field: 'at', expireAfterSeconds: 3600 }])
  assert.deepEqual((await events.indexes()).map((index) => [index.name, index.expireAfterSeconds]), [['_id_', undefined], ['at_1', 3600]])

  await client.close()
  await database.stop()
  database = await startForTest(t, { dataDir })
  client = await connect(t, database.uri)
  events = client.db('app').collection('events')
  await events.insertOne({ _id: 'older', at: new Date(now - 7200 * 1000) })
  assert.ok(await eventually(async () => await events.countDocuments({ _id: 'older' }) === 0),
    'the restarted database expires documents of the index created before')

  await events.drop()
  assert.ok(await eventually(() => fs.readFileSync(path.join(dataDir, 'ttl-indexes.json'), 'utf8').trim() === '[]'),
    'a dropped collection\'s TTL index is forgotten')
})
