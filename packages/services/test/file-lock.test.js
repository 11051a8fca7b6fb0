'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { acquireLock } = require('../lib/file-lock')
const { temporaryDir, deadPid, coded } = require('./helpers')

test('the lock holds the pid; release removes it', async (t) => {
  const lockFile = path.join(temporaryDir(t), 'sub', 'data.lock')
  const release = await acquireLock(lockFile, { timeoutMs: 1000 })
  assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.pid))
  release()
  assert.equal(fs.existsSync(lockFile), false)
})

test('a second taker waits until the first releases', async (t) => {
  const lockFile = path.join(temporaryDir(t), 'data.lock')
  const releaseFirst = await acquireLock(lockFile, { timeoutMs: 1000 })
  let secondHasIt = false
  const second = acquireLock(lockFile, { timeoutMs: 5000 }).then((release) => { secondHasIt = true; return release })
  await new Promise((resolve) => setTimeout(resolve, 250))
  assert.equal(secondHasIt, false)
  releaseFirst()
  const releaseSecond = await second
  assert.equal(secondHasIt, true)
  releaseSecond()
})

test('a lock left by a dead process is taken over', async (t) => {
  const lockFile = path.join(temporaryDir(t), 'data.lock')
  fs.writeFileSync(lockFile, String(deadPid()))
  const release = await acquireLock(lockFile, { timeoutMs: 500 })
  assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.pid))
  release()
})

test('a lock held too long: NB_ERR_LOCK_TIMEOUT, naming the holder and the file', async (t) => {
  const lockFile = path.join(temporaryDir(t), 'data.lock')
  fs.writeFileSync(lockFile, String(process.ppid))
  await assert.rejects(acquireLock(lockFile, { timeoutMs: 300 }), (err) =>
    coded('NB_ERR_LOCK_TIMEOUT', new RegExp(`^waited \\d+ ms for process ${process.ppid} `))(err) &&
    err.message.includes(`(lock file ${lockFile})`))
  assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.ppid), 'a live holder keeps its lock')
})
