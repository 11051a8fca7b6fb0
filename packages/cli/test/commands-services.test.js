'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { describeStatus, describeStart, describeStop } = require('../lib/commands/services')

const RUNNING = { name: 'db', running: true, pid: 12, uri: 'mongodb://127.0.0.1:4000/', startedAt: '2026-01-02T03:04:05.000Z', owner: null, answering: true }

test('status lines: running, owned by an app, not answering, not running', () => {
  assert.equal(describeStatus(RUNNING), 'db: running, pid 12, mongodb://127.0.0.1:4000/, since 2026-01-02T03:04:05.000Z')
  assert.equal(describeStatus({ ...RUNNING, owner: 34 }),
    'db: running, pid 12, mongodb://127.0.0.1:4000/, since 2026-01-02T03:04:05.000Z, stops with pid 34')
  assert.match(describeStatus({ ...RUNNING, answering: false }), /, NOT answering$/)
  assert.equal(describeStatus({ name: 'db', running: false }), 'db: not running')
})

test('start and stop lines', () => {
  const started = { ...RUNNING, logFile: '/x/ferretdb.log', alreadyRunning: false }
  assert.equal(describeStart(started),
    'nodebench: db started (pid 12, log /x/ferretdb.log); stop it with `nodebench services stop db`')
  assert.equal(describeStart({ ...started, alreadyRunning: true, owner: 34 }),
    'nodebench: db already running (pid 12, since 2026-01-02T03:04:05.000Z, started by pid 34 and stops with it)')
  assert.equal(describeStop({ name: 'db', wasRunning: true, pid: 12 }), 'db: stopped (pid 12)')
  assert.equal(describeStop({ name: 'db', wasRunning: false, pid: null }), 'db: not running')
})
