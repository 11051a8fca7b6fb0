'use strict'

const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { freeLoopbackPort } = require('@nodebench/services')
const { codes, NodebenchError } = require('@nodebench/errors')
const { commandLine, baseAt } = require('./app-target')

// The app under load (app-target.js names it), started for a bench cell, a browser run: an app directory with
// the example's entry points (`server.js --port <p> --processes <n>`, printing `listening on <url>`), a command
// of the user's (`--cmd`, with {port} and {processes} filled in, ready when it answers), or an app already
// running (`--url` alone, never started or stopped).

const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 15_000

function appError (message) {
  return new NodebenchError(codes.NB_ERR_APP_START, message)
}

/**
 * Resolves to `{ base, pid, stop(), kill() }` once the app answers: `stop` ends it gracefully, `kill` at once
 * (SIGKILL, an instance dying abruptly); an app at --url alone has neither (pid null). `args`: more
 * arguments for an app directory's server.js (`--server-timing` for nodebench browser). `traced: false`
 * starts it with NODEBENCH=off (the app without nodebench, which an app directory's server.js honours).
 */
async function startApp (target, { processes, env, args = [], traced = true }) {
  const nodebench = traced ? 'on' : 'off'
  if (target.app !== null) return startScript(path.join(target.app, 'server.js'), { processes, env: { ...env, NODEBENCH: nodebench }, args })
  if (target.cmd !== null) return startCommand(target, { processes, env: traced ? env : { ...env, NODEBENCH: 'off' } })
  await waitUntilAnswering(target.url, { deadline: Date.now() + 5000, exited: () => null })
  return { base: target.url, pid: null, stop: async () => {}, kill () {} }
}

/**
 * A Node.js script with an app directory's entry point (`<script> --port 0 --processes <n> [args]`, printing
 * `listening on <url>`), run with this process's Node.js; resolves as startApp.
 */
function startScript (script, { processes, env, args = [] }) {
  const argv = [script, '--port', '0', '--processes', String(processes), ...args]
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = captureOutput(child)
  const stop = stopper(child)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(appError(`the app did not print "listening on" within ${START_TIMEOUT_MS / 1000} s${output.tail()}`))
    }, START_TIMEOUT_MS)
    child.stdout.on('data', () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(output.stdout())
      if (match) {
        clearTimeout(timer)
        resolve({ base: match[1], pid: child.pid, stop, kill: () => signal(child, 'SIGKILL') })
      }
    })
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(appError(`the app could not be started: ${err.message}`))
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(appError(`the app exited (${signal || `code ${code}`}) before listening${output.tail()}`))
    })
  })
}

async function startCommand (target, { processes, env }) {
  const port = target.cmd.includes('{port}') ? await freeLoopbackPort() : null
  const command = commandLine(target, { port, processes })
  const base = port === null ? target.url : baseAt(target, port)
  const child = spawn(command, { shell: true, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const output = captureOutput(child)
  let exitReason = null
  child.once('exit', (code, signal) => { exitReason = signal || `code ${code}` })
  child.once('error', (err) => { exitReason = err.message })
  // detached: the command runs in its own process group, so stopping it stops what the shell started.
  const stop = stopper(child, { group: true })
  try {
    const deadline = Date.now() + START_TIMEOUT_MS
    await waitUntilAnswering(base, { deadline, exited: () => exitReason, tail: output.tail })
  } catch (err) {
    await stop()
    throw err
  }
  return { base, pid: child.pid, stop, kill: () => signal(child, 'SIGKILL', { group: true }) }
}

/** Polls `base` until it answers HTTP at all (any status). */
async function waitUntilAnswering (base, { deadline, exited, tail = () => '' }) {
  for (;;) {
    if (exited() !== null) throw appError(`the app exited (${exited()}) before ${base} answered${tail()}`)
    try {
      const response = await fetch(base, { signal: AbortSignal.timeout(2000) })
      await response.arrayBuffer()
      return
    } catch (err) {
      if (Date.now() > deadline) {
        const reason = (err.cause && (err.cause.code || err.cause.message)) || err.message
        throw appError(`${base} is not reachable (${reason})${tail()}`)
      }
    }
    await sleep(200)
  }
}

function captureOutput (child) {
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000) })
  return {
    stdout: () => stdout,
    tail: () => {
      const lines = stderr.trim().split('\n').slice(-5).join('\n  ')
      return lines ? `; its last output:\n  ${lines}` : ''
    }
  }
}

/** Sends `name` to the process, or to its process group (a shell command and what it started). */
function signal (child, name, { group = false } = {}) {
  try {
    if (group) process.kill(-child.pid, name)
    else child.kill(name)
  } catch {}
}

/** Stops the process (SIGTERM: the app flushes and stops its database), SIGKILL after a grace period. */
function stopper (child, { group = false } = {}) {
  let stopping = null
  return () => (stopping ??= new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve()
    const timer = setTimeout(() => signal(child, 'SIGKILL', { group }), STOP_TIMEOUT_MS)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    signal(child, 'SIGTERM', { group })
  }))
}

module.exports = { startApp, startScript }
