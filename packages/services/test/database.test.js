'use strict'

// nodebench-test: once. FerretDB is built with Go: the Node.js version does not change what this tests.
// Against the real FerretDB launcher, built through ensureGoBinary (the first run builds it, about a
// minute; later runs find it in .cache/bin). Every test uses its own data and state dirs.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { MongoClient } = require('mongodb')
const { ferretdbBinary, startDatabase, resolveDatabase } = require('..')
const { pingDatabase } = require('../lib/database')
const { BIN_DIR } = require('../lib/cache-dirs')
const { readState, stateFile } = require('../lib/service-state')
const { isAlive, waitForExit, terminate } = require('../lib/processes')
const { temporaryDir, deadPid, coded, registerDatabase } = require('./helpers')
const { isolatedEnv } = require('../../../test/support')

const CHILD = path.join(__dirname, 'fixtures', 'database-child.js')

/** Starts a database for test `t` and stops it after the test, whatever the outcome. */
async function startForTest (t, options) {
  const database = await startDatabase(options)
  t.after(() => database.stop())
  return database
}

/** Runs the fixture; resolves to the child and the JSON line it prints once it has its database. */
async function startChild (t, args, env = process.env) {
  const child = spawn(process.execPath, [CHILD, ...args], { env, stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(() => child.kill('SIGKILL'))
  let output = ''
  for await (const chunk of child.stdout) {
    output += chunk
    if (output.includes('\n')) break
  }
  assert.ok(output.includes('\n'), `the fixture printed its database (exit code ${child.exitCode})`)
  return { child, info: JSON.parse(output) }
}

/** The pids of running launchers serving `dataDir` (Linux: from /proc). */
function launchersOf (dataDir) {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && isAlive(Number(entry))).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dataDir)
    } catch {
      return false
    }
  })
}

async function roundTrip (uri, document) {
  const client = new MongoClient(uri)
  try {
    const collection = client.db('nodebench_test').collection('things')
    if (document) await collection.insertOne(document)
    return await collection.find({}, { projection: { _id: 0 } }).toArray()
  } finally {
    await client.close()
  }
}

test('ferretdbBinary: the launcher, built once and cached by version and source hash', async () => {
  const progress = []
  const binary = await ferretdbBinary({ onProgress: (message) => progress.push(message) })
  assert.equal(path.dirname(binary), BIN_DIR)
  assert.match(path.basename(binary), /^ferretdb-v1\.24\.0-[0-9a-f]{12}$/)
  assert.equal(fs.statSync(binary).mode & 0o111, 0o111)
  const again = []
  assert.equal(await ferretdbBinary({ onProgress: (message) => again.push(message) }), binary)
  assert.deepEqual(again, [], 'a cache hit says nothing')
})

test('startDatabase: answers ping, round-trips a document, stops (idempotently)', async (t) => {
  const dir = temporaryDir(t)
  const database = await startForTest(t, { dataDir: path.join(dir, 'data') })
  assert.match(database.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/)
  assert.equal(database.uri, `mongodb://127.0.0.1:${database.port}/`)
  assert.equal(database.dataDir, path.join(dir, 'data'))
  assert.equal(database.logFile, path.join(dir, 'ferretdb.log'))
  assert.ok(isAlive(database.pid))
  assert.deepEqual(await roundTrip(database.uri, { name: 'first' }), [{ name: 'first' }])
  assert.match(fs.readFileSync(database.logFile, 'utf8'), /starting .*ferretdb-v1\.24\.0-\w+ -listen 127\.0\.0\.1:\d+ -data /)

  const stopping = database.stop()
  assert.equal(database.stop(), stopping, 'a second stop() waits for the same stop')
  await stopping
  assert.equal(isAlive(database.pid), false)
  assert.equal(await pingDatabase(database.uri, { timeoutMs: 300 }), false)
  await database.stop()
})

test('the data persists across a restart on the same data dir', async (t) => {
  const dataDir = path.join(temporaryDir(t), 'data')
  const first = await startForTest(t, { dataDir })
  await roundTrip(first.uri, { kept: true })
  await first.stop()
  const second = await startForTest(t, { dataDir })
  assert.deepEqual(await roundTrip(second.uri), [{ kept: true }])
})

test('an attached database dies with its parent, even on SIGKILL', async (t) => {
  const dataDir = path.join(temporaryDir(t), 'data')
  const { child, info } = await startChild(t, ['start', dataDir])
  t.after(() => terminate(info.databasePid))
  assert.ok(isAlive(info.databasePid))
  child.kill('SIGKILL')
  await once(child, 'exit')
  assert.equal(await waitForExit(info.databasePid, 5000), true, 'FerretDB stopped within 5 s of its parent')
})

test('a database that cannot start: NB_ERR_DB_START naming the log file and quoting it', async (t) => {
  const dir = temporaryDir(t)
  const blocker = net.createServer()
  await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.after(() => blocker.close())
  const { port } = blocker.address()
  const logFile = path.join(dir, 'custom.log')
  await assert.rejects(startDatabase({ dataDir: path.join(dir, 'data'), port, logFile }),
    coded('NB_ERR_DB_START', new RegExp(`^FerretDB exited \\(code 1\\) before answering a ping on mongodb://127\\.0\\.0\\.1:${port}/; ` +
      `its log is ${logFile}, ending with:\\n.*address already in use`, 's')))
})

test('a database that does not answer in time: NB_ERR_DB_START, and the process is stopped', { skip: process.platform !== 'linux' }, async (t) => {
  const dataDir = path.join(temporaryDir(t), 'data')
  await assert.rejects(startDatabase({ dataDir, readyTimeoutMs: 1 }),
    coded('NB_ERR_DB_START', /^FerretDB did not answer a ping on mongodb:\/\/127\.0\.0\.1:\d+\/ within 1 ms; its log is .*ferretdb\.log, ending with:\n {2}\[nodebench .*\] starting /))
  assert.deepEqual(launchersOf(dataDir), [])
})

test('startDatabase validates its options: NB_ERR_INVALID_OPTION', async () => {
  await assert.rejects(startDatabase({ port: 70000 }), coded('NB_ERR_INVALID_OPTION', /option "port" must be an integer from 1 to 65535.*; received 70000/))
  await assert.rejects(startDatabase({ readyTimeoutMs: '5s' }), coded('NB_ERR_INVALID_OPTION', /option "readyTimeoutMs" .*; received '5s'/))
})

test('resolveDatabase: MONGODB_URI wins, and nothing is started or registered', async (t) => {
  const dir = temporaryDir(t)
  const env = { ...isolatedEnv(dir), MONGODB_URI: 'mongodb://db.example:27017/' }
  const database = await resolveDatabase({ env })
  assert.deepEqual({ uri: database.uri, source: database.source }, { uri: 'mongodb://db.example:27017/', source: 'MONGODB_URI' })
  await database.stop()
  assert.deepEqual(fs.readdirSync(dir), [])
})

test('resolveDatabase: embedded and registered; other processes reuse it; stop() unregisters', async (t) => {
  const dir = temporaryDir(t)
  const env = isolatedEnv(dir)
  const stateDir = env.NODEBENCH_STATE_DIR
  const database = await resolveDatabase({ env })
  t.after(() => database.stop())
  assert.equal(database.source, 'embedded')
  const state = readState('db', { stateDir })
  assert.equal(state.uri, database.uri)
  assert.equal(state.owner, process.pid)
  assert.equal(state.dataDir, env.NODEBENCH_DATA_DIR)

  const { info } = await startChild(t, ['resolve'], env)
  assert.deepEqual([info.source, info.uri], ['service', database.uri])
  const inProcess = await resolveDatabase({ env })
  assert.deepEqual([inProcess.source, inProcess.uri], ['service', database.uri])
  await inProcess.stop()
  assert.ok(await pingDatabase(database.uri), 'a reuser\'s stop() leaves the database running')

  await database.stop()
  assert.equal(fs.existsSync(stateFile('db', stateDir)), false)
  assert.equal(isAlive(state.pid), false)
})

test('resolveDatabase: two processes starting at once share one database', async (t) => {
  const env = isolatedEnv(temporaryDir(t))
  const [first, second] = await Promise.all([startChild(t, ['resolve'], env), startChild(t, ['resolve'], env)])
  assert.equal(first.info.uri, second.info.uri)
  assert.deepEqual([first.info.source, second.info.source].sort(), ['embedded', 'service'])
})

test('resolveDatabase: a registered live service (nodebench services start db) is used, not stopped', async (t) => {
  const dir = temporaryDir(t)
  const env = isolatedEnv(dir)
  const service = await startForTest(t, { dataDir: path.join(dir, 'service-data') })
  registerDatabase(env.NODEBENCH_STATE_DIR, { pid: service.pid, uri: service.uri, port: service.port })
  const database = await resolveDatabase({ env })
  assert.deepEqual([database.source, database.uri], ['service', service.uri])
  await database.stop()
  assert.ok(isAlive(service.pid))
  assert.equal(fs.existsSync(env.NODEBENCH_DATA_DIR), false, 'no embedded database was started')
})

test('resolveDatabase: a stale registration is cleaned and replaced by an embedded database', async (t) => {
  const env = isolatedEnv(temporaryDir(t))
  const stateDir = env.NODEBENCH_STATE_DIR
  registerDatabase(stateDir, { pid: deadPid() })
  const database = await resolveDatabase({ env })
  t.after(() => database.stop())
  assert.equal(database.source, 'embedded')
  assert.equal(readState('db', { stateDir }).uri, database.uri)
})

test('resolveDatabase: a registered process that does not answer: NB_ERR_SERVICE_NOT_ANSWERING', async (t) => {
  const env = isolatedEnv(temporaryDir(t))
  const silent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  t.after(() => silent.kill('SIGKILL'))
  await once(silent, 'spawn')
  registerDatabase(env.NODEBENCH_STATE_DIR, { pid: silent.pid })
  await assert.rejects(resolveDatabase({ env }),
    coded('NB_ERR_SERVICE_NOT_ANSWERING', new RegExp(`registered as running \\(pid ${silent.pid}, mongodb://127\\.0\\.0\\.1:1/\\) but does not answer`)))
})
