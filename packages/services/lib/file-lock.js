'use strict'

// A lock between processes: the file is created with O_EXCL ('wx'), so exactly one creator wins, and holds
// the winner's pid. A lock whose pid is dead is stale (its holder crashed) and is taken over. Two waiters
// that both find the same stale lock could both remove it, the second removing the lock the first just
// took; the window is a few microseconds after a crash, which is acceptable for guarding a database start.

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { isAlive } = require('./processes')
const errors = require('./errors')

const POLL_MS = 100
// A lock file is empty between its creation and its pid being written; only an old empty file is stale.
const EMPTY_LOCK_STALE_MS = 5000

function holderOf (lockFile) {
  try {
    const text = fs.readFileSync(lockFile, 'utf8').trim()
    const { mtimeMs } = fs.statSync(lockFile)
    return { pid: text === '' ? null : Number(text), ageMs: Date.now() - mtimeMs }
  } catch (err) {
    if (err.code === 'ENOENT') return null
    throw err
  }
}

function isStale (holder) {
  if (holder.pid === null) return holder.ageMs > EMPTY_LOCK_STALE_MS
  return !isAlive(holder.pid)
}

function tryCreate (lockFile) {
  let fd
  try {
    fd = fs.openSync(lockFile, 'wx')
  } catch (err) {
    if (err.code === 'EEXIST') return false
    throw err
  }
  try {
    fs.writeSync(fd, String(process.pid))
  } finally {
    fs.closeSync(fd)
  }
  return true
}

/**
 * Waits up to `timeoutMs` for `lockFile`, then holds it. Resolves to `release()`, which removes the file
 * (only while it is still ours).
 */
async function acquireLock (lockFile, { timeoutMs }) {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true })
  const started = Date.now()
  for (;;) {
    if (tryCreate(lockFile)) return () => release(lockFile)
    const holder = holderOf(lockFile)
    if (holder === null) continue // released between our attempt and our look
    if (isStale(holder)) {
      fs.rmSync(lockFile, { force: true })
      continue
    }
    const waitedMs = Date.now() - started
    if (waitedMs >= timeoutMs) throw errors.lockTimeout(lockFile, holder.pid, waitedMs)
    await sleep(POLL_MS)
  }
}

function release (lockFile) {
  const holder = holderOf(lockFile)
  if (holder !== null && holder.pid === process.pid) fs.rmSync(lockFile, { force: true })
}

module.exports = { acquireLock }
