'use strict'

// nodebench-test: once. The db service is FerretDB (built with Go) started detached, its state file and its stop by pid: the Node.js version does not change what this tests.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { serviceNames, startService, stopService, serviceStatus } = require('..')
const { pingDatabase } = require('../lib/database')
const { databaseNameFor } = require('../lib/database-uri')
const { readState } = require('../lib/service-state')
const { isAlive, terminate } = require('../lib/processes')
const { temporaryDir, deadPid, coded, registerDatabase } = require('./helpers')

/** Options pointing the state and data dirs of test `t` at a temporary dir; stops what is left running. */
function isolated (t) {
  const options = { onProgress: () => {} }
  // Registered before the directory's removal (hooks run in order): the state file names the pid to stop.
  t.after(() => { const state = readState('db', options); return state && terminate(state.pid) })
  const dir = temporaryDir(t)
  const stateDir = path.join(dir, 'services')
  return Object.assign(options, { dir, stateDir, env: { ...process.env, NODEBENCH_DATA_DIR: path.join(dir, 'data') } })
}

test('serviceNames lists the services: the built-in database', () => {
  assert.deepEqual(serviceNames(), ['db'])
})

test('startService db: detached, registered, logging to its file; again: alreadyRunning', async (t) => {
  const options = isolated(t)
  const started = await startService('db', options)
  assert.equal(started.alreadyRunning, false)
  assert.equal(started.owner, null)
  // The URI to paste names a database: the package.json name of where it ran (database-uri.test.js), or --database's.
  assert.deepEqual(started.env, { MONGODB_URI: `${started.uri}${databaseNameFor(process.cwd())}` })
  assert.equal(started.dataDir, path.join(options.dir, 'data'))
  assert.ok(await pingDatabase(started.uri))
  assert.deepEqual(readState('db', { stateDir: options.stateDir }).pid, started.pid)
  assert.match(fs.readFileSync(started.logFile, 'utf8'), new RegExp(`ready mongodb://127\\.0\\.0\\.1:${started.port}/`))

  const again = await startService('db', { ...options, settings: { database: 'shop' } })
  assert.equal(again.alreadyRunning, true)
  assert.equal(again.pid, started.pid)
  assert.deepEqual(again.env, { MONGODB_URI: `${started.uri}shop` })
})

test('serviceStatus and stopService', async (t) => {
  const options = isolated(t)
  assert.deepEqual(await serviceStatus('db', options),
    { name: 'db', running: false, pid: null, uri: null, startedAt: null, owner: null, answering: false })
  const started = await startService('db', options)
  assert.deepEqual(await serviceStatus('db', options),
    { name: 'db', running: true, pid: started.pid, uri: started.uri, startedAt: started.startedAt, owner: null, answering: true })

  assert.deepEqual(await stopService('db', options), { name: 'db', wasRunning: true, pid: started.pid })
  assert.equal(isAlive(started.pid), false)
  assert.equal(readState('db', { stateDir: options.stateDir }), null)
  assert.deepEqual(await stopService('db', options), { name: 'db', wasRunning: false, pid: null })
})

test('a stale state file reads as not running, and is removed', async (t) => {
  const options = isolated(t)
  registerDatabase(options.stateDir, { pid: deadPid() })
  assert.equal((await serviceStatus('db', options)).running, false)
  assert.deepEqual(fs.readdirSync(options.stateDir), [])
})

test('an unknown service: NB_ERR_SERVICE_UNKNOWN', async () => {
  for (const call of [startService, stopService, serviceStatus]) {
    await assert.rejects(call('foo'), coded('NB_ERR_SERVICE_UNKNOWN', /^unknown service 'foo'; expected one of db$/))
  }
  await assert.rejects(serviceStatus('toString'), coded('NB_ERR_SERVICE_UNKNOWN'))
})
