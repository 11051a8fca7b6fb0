'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const http = require('node:http')
const cluster = require('node:cluster')
const { nodebenchPrimary } = require('..')
const { request: sendRequest, startProcess } = require('../../test/support')

/** One request, on a connection of its own unless `agent` is given. */
function request (url, method = 'GET', agent = false) {
  return sendRequest(url, { method, agent })
}

/** Starts the cluster fixture; resolves with its base URL once every worker listens. */
async function startClusterApp (t, env = {}) {
  const { match } = await startProcess(t, path.join(__dirname, 'fixtures', 'cluster-app.js'), [], { env, ready: /port (\d+)/, timeoutMs: 15_000 })
  return `http://127.0.0.1:${match[1]}`
}

test('with nodebenchPrimary(), GET /__nodebench on any worker answers for every worker; DELETE resets them all', async (t) => {
  const base = await startClusterApp(t)
  for (let i = 0; i < 40; i++) assert.equal((await request(`${base}/items/${i}`)).status, 200)
  const snapshot = JSON.parse((await request(`${base}/__nodebench`)).body)
  assert.equal(snapshot.service, 'cluster-app')
  assert.equal(snapshot.processes.length, 2, JSON.stringify(snapshot.processes))
  assert.notEqual(snapshot.processes[0].pid, snapshot.processes[1].pid)
  for (const worker of snapshot.processes) assert.ok(worker.requests > 0, `worker ${worker.pid} served requests`)
  assert.equal(snapshot.processes[0].requests + snapshot.processes[1].requests, 40)
  const operation = snapshot.operations.find((o) => o.route === '/items/:id')
  assert.equal(operation.count, 40)
  assert.deepEqual(operation.segments.map((s) => s.name), ['loadItem', 'viewItem'])
  assert.equal(snapshot.requestContext, undefined, 'no worker observed a dependency')
  assert.equal(operation.segments[0].count, 40)

  const deleted = JSON.parse((await request(`${base}/__nodebench`, 'DELETE')).body)
  assert.equal(deleted.operations.find((o) => o.route === '/items/:id').count, 40)
  const afterReset = JSON.parse((await request(`${base}/__nodebench`)).body)
  assert.deepEqual(afterReset.operations, [])
  assert.equal(afterReset.processes.length, 2)
})

test('the merged snapshot says how the workers keep their requests\' context, when any one keeps it', async (t) => {
  // One of two workers loaded the MongoDB driver: its context is kept, the other's not.
  const base = await startClusterApp(t, { MONGODB_WORKERS: '1' })
  for (let i = 0; i < 20; i++) assert.equal((await request(`${base}/items/${i}`)).status, 200)
  const snapshot = JSON.parse((await request(`${base}/__nodebench`)).body)
  assert.equal(snapshot.processes.length, 2)
  const frame = Number(process.versions.node.split('.')[0]) >= 24 || process.execArgv.includes('--experimental-async-context-frame')
  assert.equal(snapshot.requestContext, frame ? 'async-context-frame' : 'async-hooks')
})

test('without nodebenchPrimary(), each worker answers for itself', async (t) => {
  const base = await startClusterApp(t, { NO_PRIMARY: '1' })
  for (let i = 0; i < 10; i++) await request(`${base}/items/${i}`)
  const snapshot = JSON.parse((await request(`${base}/__nodebench`)).body)
  assert.equal(snapshot.processes, undefined)
  const operation = snapshot.operations.find((o) => o.route === '/items/:id')
  assert.ok(operation.count > 0 && operation.count < 10, `one worker's share of 10 requests: ${operation.count}`)
})

test('nodebenchPrimary() validates its options, and answers with an empty snapshot when no worker is traced', async () => {
  assert.equal(cluster.isPrimary, true)
  assert.throws(() => nodebenchPrimary({ timeoutMs: 0 }), /timeoutMs must be a positive integer/)
  const primary = nodebenchPrimary()
  try {
    const snapshot = await primary.breakdown()
    assert.deepEqual(snapshot.operations, [])
    assert.deepEqual(snapshot.processes, [])
  } finally {
    primary.close()
  }
})

/** A keep-alive connection to one worker: every request on it goes to the same process. */
function connection () {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  return {
    request: (url, method = 'GET') => request(url, method, agent),
    close: () => agent.destroy()
  }
}

/** Two connections, each held by a different worker. */
async function connectionsToBothWorkers (t, base) {
  const first = connection()
  t.after(first.close)
  const firstPid = JSON.parse((await first.request(`${base}/pid`)).body).pid
  for (let attempt = 0; attempt < 10; attempt++) {
    const other = connection()
    t.after(other.close)
    if (JSON.parse((await other.request(`${base}/pid`)).body).pid !== firstPid) return [first, other]
  }
  throw new Error('the cluster gave every connection to one worker')
}

function itemCount (snapshot) {
  const operation = snapshot.operations.find((o) => o.route === '/items/:id')
  return operation === undefined ? 0 : operation.count
}

test('concurrent DELETEs across the cluster: together they answer every request once; none is lost or counted twice', async (t) => {
  const base = await startClusterApp(t)
  for (let i = 0; i < 40; i++) await request(`${base}/items/${i}`)
  const deletes = await Promise.all(Array.from({ length: 6 }, () => request(`${base}/__nodebench`, 'DELETE')))
  assert.deepEqual(deletes.map((d) => d.status), [200, 200, 200, 200, 200, 200])
  assert.equal(deletes.reduce((sum, d) => sum + itemCount(JSON.parse(d.body)), 0), 40)
  assert.equal(itemCount(JSON.parse((await request(`${base}/__nodebench`)).body)), 0)
})

test('a worker that answers a reset after the primary stopped waiting: its requests come with the next breakdown', async (t) => {
  const base = await startClusterApp(t, { PRIMARY_TIMEOUT_MS: '300' })
  const [busy, idle] = await connectionsToBothWorkers(t, base)
  for (let i = 0; i < 10; i++) await busy.request(`${base}/items/${i}`)
  for (let i = 0; i < 6; i++) await idle.request(`${base}/items/${i}`)
  const blocking = busy.request(`${base}/block?ms=1200`)
  await new Promise((resolve) => setTimeout(resolve, 100))
  const deleted = JSON.parse((await idle.request(`${base}/__nodebench`, 'DELETE')).body)
  assert.equal(deleted.missingProcesses, 1, 'the busy worker did not answer in time')
  assert.equal(itemCount(deleted), 6)
  await blocking
  const next = JSON.parse((await idle.request(`${base}/__nodebench`)).body)
  assert.equal(itemCount(next), 10, 'the busy worker reset itself when it answered late: its 10 requests are kept')
  assert.equal(next.missingProcesses, undefined)
  const drained = JSON.parse((await idle.request(`${base}/__nodebench`, 'DELETE')).body)
  assert.equal(itemCount(drained), 10)
  assert.equal(itemCount(JSON.parse((await idle.request(`${base}/__nodebench`)).body)), 0)
})

test('a DELETE whose client goes away before the cluster answers resets nothing that is lost', async (t) => {
  const base = await startClusterApp(t)
  const [busy, idle] = await connectionsToBothWorkers(t, base)
  for (let i = 0; i < 10; i++) await busy.request(`${base}/items/${i}`)
  for (let i = 0; i < 6; i++) await idle.request(`${base}/items/${i}`)
  const blocking = busy.request(`${base}/block?ms=800`)
  await new Promise((resolve) => setTimeout(resolve, 100))
  // Through the idle worker, a client that gives up while the primary waits for the busy one.
  const gone = http.request(`${base}/__nodebench`, { method: 'DELETE', agent: false })
  gone.on('error', () => {})
  gone.end()
  await new Promise((resolve) => setTimeout(resolve, 200))
  gone.destroy()
  await blocking
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(itemCount(JSON.parse((await idle.request(`${base}/__nodebench`)).body)), 16)
})
