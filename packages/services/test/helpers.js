'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const { writeState } = require('../lib/service-state')

/** A fresh directory under the system's temporary dir, removed after test `t`. */
function temporaryDir (t, prefix = 'nodebench-services-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The pid of a process that has exited (and been reaped). */
function deadPid () {
  return spawnSync(process.execPath, ['-e', '']).pid
}

/** Registers a `db` service in `stateDir` as `nodebench services start db` would, with `fields` changed. */
function registerDatabase (stateDir, fields) {
  writeState({ name: 'db', uri: 'mongodb://127.0.0.1:1/', startedAt: new Date().toISOString(), owner: null, ...fields }, { stateDir })
}

/** A validator for assert.throws / assert.rejects: a NodebenchError with `code` and a message matching `message`. */
function coded (code, message) {
  return (err) => {
    assert.equal(err.name, 'NodebenchError', err.stack)
    assert.equal(err.code, code)
    if (message) assert.match(err.message, message)
    return true
  }
}

module.exports = { temporaryDir, deadPid, coded, registerDatabase }
