'use strict'

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn } = require('node:child_process')
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

/**
 * Starts `binary` as a server nodebench owns, its output appended to `logFile`; unless `detached`, it is sent
 * SIGTERM if this process exits first. Returns the child, `exited()` (why it ended: a signal, `code N` or a
 * spawn error; null while it runs) and `stop()` (terminate: SIGTERM, then SIGKILL; the same promise however
 * often it is called).
 * @param {string} binary
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, detached?: boolean, logFile: string }} options
 */
function startLoggedChild (binary, args, { env = process.env, detached = false, logFile }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true })
  const logFd = fs.openSync(logFile, 'a')
  let child
  try {
    child = spawn(binary, args, { env, detached, stdio: ['ignore', logFd, logFd] })
  } finally {
    fs.closeSync(logFd) // the child holds its own copy
  }
  let exited = null
  child.once('exit', (code, signalName) => { exited = signalName || `code ${code}` })
  child.once('error', (err) => { exited = err.message })
  const killOnExit = () => child.kill('SIGTERM')
  if (detached) child.unref()
  else process.on('exit', killOnExit)
  let stopped = null
  const stop = () => (stopped ??= (async () => {
    process.removeListener('exit', killOnExit)
    if (child.pid !== undefined) await terminate(child.pid)
  })())
  return { child, exited: () => exited, stop }
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

module.exports = { isAlive, commandOf, waitForExit, terminate, startLoggedChild, freeLoopbackPort }
