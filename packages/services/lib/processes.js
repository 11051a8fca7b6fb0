'use strict'

const fs = require('node:fs')
const net = require('node:net')
const { setTimeout: sleep } = require('node:timers/promises')

const POLL_MS = 50

/**
 * Whether process `pid` runs. A zombie (exited, not yet reaped: an orphan waits for its new parent, which
 * in a container may be slow to reap) counts as gone, although `kill(pid, 0)` still succeeds on it.
 */
function isAlive (pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (err) {
    return err.code === 'EPERM'
  }
  return !isZombie(pid)
}

function isZombie (pid) {
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may contain spaces and parentheses, so split after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z'
  } catch {
    return false // no /proc (macOS) or the process is gone already: kill(pid, 0) decided
  }
}

/** The program `pid` runs (argv[0]), or null where /proc cannot tell (gone, or not Linux). */
function commandOf (pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] || null
  } catch {
    return null
  }
}

/** Polls until `pid` is gone; resolves whether it went within `timeoutMs`. */
async function waitForExit (pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false
    await sleep(POLL_MS)
  }
  return true
}

function signal (pid, name) {
  try {
    process.kill(pid, name)
  } catch (err) {
    if (err.code !== 'ESRCH') throw err
  }
}

/** SIGTERM, then SIGKILL when `pid` still runs after `graceMs`. Resolves once it is gone. */
async function terminate (pid, { graceMs = 5000 } = {}) {
  if (!isAlive(pid)) return
  signal(pid, 'SIGTERM')
  if (await waitForExit(pid, graceMs)) return
  signal(pid, 'SIGKILL')
  await waitForExit(pid, graceMs)
}

/** A loopback port free at the time of asking (the kernel picks it; the socket is closed again). */
function freeLoopbackPort () {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

module.exports = { isAlive, commandOf, waitForExit, terminate, freeLoopbackPort }
