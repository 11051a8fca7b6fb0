'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { setTimeout: sleep } = require('node:timers/promises')
const { MongoClient } = require('mongodb')
const { startDatabase } = require('@nodebench/services')
const { startServer } = require('../lib/serve')
const { seed } = require('../seed')
const { startTestDatabase } = require('./helpers')

test('a database that goes away gives 503 with a message, never a crash; the app recovers when it returns', async (t) => {
  const first = await startTestDatabase(t)
  const client = new MongoClient(first.uri)
  const { documentId } = await seed(client, { count: 3 })
  await client.close()

  const server = await startServer({ uri: first.uri, port: 0, host: '127.0.0.1', trace: true, exporter: 'none', log: () => {} })
  t.after(server.stop)
  const base = `http://127.0.0.1:${server.port}`
  const read = (path) => fetch(base + path).then(async (r) => ({ status: r.status, body: await r.text() }))
  assert.equal((await read(`/api/db/nodebench/users/${documentId}`)).status, 200)

  await first.stop()
  const json = await read(`/api/db/nodebench/users/${documentId}`)
  assert.equal(json.status, 503, json.body)
  assert.match(JSON.parse(json.body).error, /The database is unreachable/)
  const html = await read(`/db/nodebench/users/${documentId}`)
  assert.equal(html.status, 503)
  assert.match(html.body, /The database is unreachable/)

  // The same database back on the same port and data: requests succeed again, without a restart.
  const again = await startDatabase({ dataDir: first.dataDir, port: first.port })
  t.after(() => again.stop())
  let status = 0
  for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
    status = (await read(`/api/db/nodebench/users/${documentId}`)).status
    if (status !== 200) await sleep(500)
  }
  assert.equal(status, 200, 'the app answers from the database again')
  const snapshot = JSON.parse((await read('/__nodebench')).body)
  const reads = snapshot.operations.find((o) => o.route === '/api/db/:database/:collection/:document')
  console.log(JSON.stringify(snapshot.operations.map((o) => [o.method, o.route, o.format, o.count, o.errors])))
  assert.ok(reads.errors >= 1, 'the 503s are counted as errors in the breakdown')
})
