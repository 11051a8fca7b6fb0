'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startTestDatabase, runScript, startServerProcess } = require('./helpers')
const { request: sendRequest } = require('../../../test/support')

/** One request on a new connection, so the cluster spreads requests over its workers. */
function request (url, method = 'GET') {
  return sendRequest(url, { method })
}

test('seed.js fills nodebench.users with 1000 documents, prints an id last, and is idempotent', async (t) => {
  const database = await startTestDatabase(t)
  const env = { MONGODB_URI: database.uri }
  const first = await runScript('seed.js', [], env)
  assert.equal(first.code, 0, first.stderr)
  const id = first.stdout.trim().split('\n').pop()
  assert.match(id, /^[0-9a-f]{24}$/)
  assert.match(first.stderr, /holds 1000 documents \(inserted 1000, removed 0\)/)

  const { MongoClient } = require('mongodb')
  const client = new MongoClient(database.uri)
  t.after(() => client.close())
  const users = client.db('nodebench').collection('users')
  await users.insertOne({ username: 'left-by-a-write-run' })
  await users.deleteOne({ username: 'user-7' })

  const second = await runScript('seed.js', [], env)
  assert.equal(second.code, 0, second.stderr)
  assert.equal(second.stdout.trim().split('\n').pop(), id, 'the same document id')
  assert.match(second.stderr, /holds 1000 documents \(inserted 1, removed 1\)/)
  assert.equal(await users.countDocuments(), 1000)
  assert.equal(await users.countDocuments({ username: 'user-7' }), 1)

  const third = await runScript('seed.js', [], env)
  assert.match(third.stderr, /\(inserted 0, removed 0\)/)

  const bad = await runScript('seed.js', ['--count', 'many'], env)
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--count must be a whole number from 1 to 1000000; received "many"/)
})

test('--processes 2: both workers serve requests and GET /__nodebench counts all of them', async (t) => {
  const database = await startTestDatabase(t)
  const env = { MONGODB_URI: database.uri, NODEBENCH: '' }
  const seeded = await runScript('seed.js', ['--count', '50'], env)
  const id = seeded.stdout.trim().split('\n').pop()
  const { base } = await startServerProcess(t, ['--port', '0', '--processes', '2'], env)
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/)

  const requests = 40
  for (let i = 0; i < requests; i++) {
    const path = i % 2 === 0 ? `/api/db/nodebench/users/${id}` : `/db/nodebench/users/${id}`
    assert.equal((await request(base + path)).status, 200)
  }
  const snapshot = JSON.parse((await request(`${base}/__nodebench`)).body)
  assert.equal(snapshot.service, 'mongo-admin')
  assert.equal(snapshot.processes.length, 2, JSON.stringify(snapshot.processes))
  for (const worker of snapshot.processes) assert.ok(worker.requests > 0, `worker ${worker.pid} served requests`)
  assert.equal(snapshot.processes.reduce((sum, p) => sum + p.requests, 0), requests)
  const reads = snapshot.operations.filter((o) => o.route.endsWith('/:database/:collection/:document'))
  assert.deepEqual(reads.map((o) => [o.format, o.count]).sort(), [['html', 20], ['json', 20]])
  t.diagnostic(`requests per worker: ${snapshot.processes.map((p) => `${p.pid}: ${p.requests}`).join(', ')}`)
})

test('NODEBENCH=off runs the same app untraced; bad arguments exit 2 with the reason', async (t) => {
  const database = await startTestDatabase(t)
  const env = { MONGODB_URI: database.uri, NODEBENCH: 'off' }
  await runScript('seed.js', ['--count', '5'], env)
  const { base } = await startServerProcess(t, ['--port', '0'], env)
  const page = await request(`${base}/api/db/nodebench/users`)
  assert.equal(page.status, 200)
  assert.equal(JSON.parse(page.body).documents.length, 5)
  assert.equal((await request(`${base}/__nodebench`)).status, 404, 'no breakdown without tracing')

  for (const [args, message] of [
    [['--processes', 'two'], /--processes must be a whole number from 1 to 64; received "two"/],
    [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
    [['--exporter', 'zipkin'], /--exporter must be otlp or none; received "zipkin"/],
    [['--frobnicate'], /Unknown option '--frobnicate'/]
  ]) {
    const run = await runScript('server.js', args, env, { timeoutMs: 10_000 })
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, message)
    assert.match(run.stderr, /usage: node examples\/mongo-admin\/server.js/)
  }
})
