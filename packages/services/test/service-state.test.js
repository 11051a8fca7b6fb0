'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readState, writeState, removeState, stateFile } = require('../lib/service-state')
const { temporaryDir, deadPid } = require('./helpers')

function registration (overrides = {}) {
  return {
    name: 'db',
    pid: process.pid,
    command: process.execPath,
    uri: 'mongodb://127.0.0.1:1/',
    port: 1,
    dataDir: '/data',
    logFile: '/log',
    startedAt: new Date().toISOString(),
    owner: null,
    ...overrides
  }
}

test('write, read back, remove; nothing registered reads as null', (t) => {
  const stateDir = path.join(temporaryDir(t), 'services')
  assert.equal(readState('db', { stateDir }), null)
  const state = registration()
  assert.equal(writeState(state, { stateDir }), path.join(stateDir, 'db.json'))
  assert.deepEqual(readState('db', { stateDir }), state)
  assert.deepEqual(fs.readdirSync(stateDir), ['db.json'], 'the temporary file was renamed into place')
  assert.equal(removeState('db', { stateDir }), true)
  assert.equal(readState('db', { stateDir }), null)
})

const STALE = [
  ['its process is dead', { pid: deadPid() }],
  ['its owner is dead', { owner: deadPid() }],
  ['its pid now runs another program (pid reuse)', { command: '/usr/bin/some-other-program' }]
]

for (const [why, overrides] of STALE) {
  test(`a stale state file is removed when read: ${why}`, (t) => {
    const stateDir = temporaryDir(t)
    writeState(registration(overrides), { stateDir })
    assert.equal(readState('db', { stateDir }), null)
    assert.equal(fs.existsSync(stateFile('db', stateDir)), false)
  })
}

test('a live owner keeps its registration', (t) => {
  const stateDir = temporaryDir(t)
  writeState(registration({ owner: process.pid }), { stateDir })
  assert.equal(readState('db', { stateDir }).owner, process.pid)
})

test('an unreadable state file is not a registration', (t) => {
  const stateDir = temporaryDir(t)
  fs.writeFileSync(stateFile('db', stateDir), '{"name": "db", "pi')
  assert.equal(readState('db', { stateDir }), null)
  assert.equal(fs.existsSync(stateFile('db', stateDir)), false)
})

test('removeState with a pid removes only that registration', (t) => {
  const stateDir = temporaryDir(t)
  writeState(registration(), { stateDir })
  assert.equal(removeState('db', { stateDir, pid: process.pid + 1 }), false)
  assert.ok(fs.existsSync(stateFile('db', stateDir)))
  assert.equal(removeState('db', { stateDir, pid: process.pid }), true)
  assert.equal(removeState('db', { stateDir, pid: process.pid }), false)
})
