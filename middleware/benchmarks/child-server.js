'use strict'

// The benchmarks' child servers (app.js, otlp-sink.js): started as node processes that print
// `listening on <url>` when ready, and stopped with SIGTERM, then SIGKILL. `onLine` sees every line the server
// prints (cpu-split.js reads its probe's lines so).

const { spawn } = require('node:child_process')

const START_TIMEOUT_MS = 20000
const STOP_GRACE_MS = 5000
const LISTENING_LINE = /^listening on (http:\/\/\S+)$/
const STOPPED_LINE = /^stopped (\{.*\})$/

/**
 * Spawns a node script and resolves `listening` with the URL it prints on its `listening on <url>` line.
 * `exited` resolves with { code, signal } once the process is gone; `onLine(line)`, if given, is called with every
 * line of its stdout (trimmed).
 */
function spawnServer (script, args, { env, execArgv = [], name, log, nodePath = process.execPath, onLine = null }) {
  const child = spawn(nodePath, [...execArgv, script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const handle = { child, name, stopped: null, exitStatus: null }
  // 'close', not 'exit': by then stdout is drained, so the `stopped` line has been read.
  handle.exited = new Promise((resolve) => {
    child.once('close', (code, signal) => {
      handle.exitStatus = { code, signal }
      resolve(handle.exitStatus)
    })
    // A process that could not be spawned may never emit 'close'.
    child.once('error', () => {
      if (handle.exitStatus !== null) return
      handle.exitStatus = { code: null, signal: null }
      resolve(handle.exitStatus)
    })
  })
  handle.listening = new Promise((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => reject(new Error(`${name} did not print "listening on" within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS)
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(new Error(`${name} could not be started: ${err.message}`))
    })
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      buffered += chunk
      let newline
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline).trim()
        buffered = buffered.slice(newline + 1)
        if (onLine !== null) onLine(line)
        const listening = LISTENING_LINE.exec(line)
        if (listening !== null) {
          clearTimeout(timer)
          resolve(listening[1])
        }
        const stopped = STOPPED_LINE.exec(line)
        if (stopped !== null) handle.stopped = JSON.parse(stopped[1])
      }
    })
    handle.exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (code ${code}, signal ${signal}) before it was listening`))
    })
  })
  // Attach a handler now: a child that dies early must not surface as an unhandled rejection.
  handle.listening.catch(() => {})
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    for (const line of chunk.split('\n')) if (line.trim() !== '') log(`  [${name}] ${line}`)
  })
  return handle
}

/** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves with the exit status and whether it had to be killed. */
async function stopServer (handle, log) {
  if (handle.exitStatus !== null) return { ...handle.exitStatus, killed: false }
  handle.child.kill('SIGTERM')
  let timer
  const graceOver = new Promise((resolve) => { timer = setTimeout(resolve, STOP_GRACE_MS, 'timeout') })
  const outcome = await Promise.race([handle.exited, graceOver])
  clearTimeout(timer)
  if (outcome !== 'timeout') return { ...outcome, killed: false }
  log(`  ${handle.name} did not exit ${STOP_GRACE_MS} ms after SIGTERM: SIGKILL`)
  handle.child.kill('SIGKILL')
  return { ...(await handle.exited), killed: true }
}

module.exports = { spawnServer, stopServer }
