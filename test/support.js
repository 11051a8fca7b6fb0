'use strict'

// What the tests of every package share: temporary folders, one HTTP request, the `nodebench` command run as
// users run it, environments of their own, and child processes started until they say they are ready and
// stopped when the test ends, whatever its outcome.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { execFile, spawn } = require('node:child_process')

const NODEBENCH_BIN = path.join(__dirname, '..', 'packages', 'cli', 'bin', 'nodebench.js')
const STOP_GRACE_MS = 10_000

/** A new folder under the system's temporary one, removed when `t` ends. */
function temporaryDir (t, prefix = 'nodebench-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * One request; by default on a connection of its own (so a cluster spreads requests over its workers), or on
 * `agent`'s. Resolves to `{ status, headers, body }`.
 */
function request (url, { method = 'GET', agent = false, headers, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Runs `nodebench <argv>` in a process of its own (`bin`: another copy of the command, such as an installed
 * one); resolves to `{ code, stdout, stderr }`, never rejects.
 */
function runCli (argv, { env = process.env, timeout = 300_000, cwd, bin = NODEBENCH_BIN } = {}) {
  return new Promise((resolve) => {
    const options = { env, timeout, cwd, maxBuffer: 64 * 1024 * 1024 }
    execFile(process.execPath, [bin, ...argv], options, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr })
    })
  })
}

/** process.env without MONGODB_URI, with nodebench's state and data folders under `dir`. */
function isolatedEnv (dir) {
  const { MONGODB_URI, ...env } = process.env
  return { ...env, NODEBENCH_STATE_DIR: path.join(dir, 'services'), NODEBENCH_DATA_DIR: path.join(dir, 'data') }
}

/**
 * isolatedEnv over a new temporary folder, for a test that starts nodebench's background services: when `t`
 * ends, every service still running there is stopped (`nodebench services stop` reads their pids from the
 * state folder), and only then is the folder removed. Returns `{ dir, env }`.
 */
function servicesEnv (t, prefix = 'nodebench-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const env = isolatedEnv(dir)
  t.after(async () => {
    const stopped = await runCli(['services', 'stop'], { env, timeout: 120_000 })
    fs.rmSync(dir, { recursive: true, force: true })
    if (stopped.code !== 0) throw new Error(`nodebench services stop failed (exit ${stopped.code}): ${stopped.stderr}`)
  })
  return { dir, env }
}

/** Sets environment variables of this process until `t` ends. */
function setEnv (t, vars) {
  const saved = {}
  for (const [key, value] of Object.entries(vars)) {
    saved[key] = process.env[key]
    process.env[key] = value
  }
  t.after(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  })
}

/** SIGTERM, then SIGKILL after a grace period; resolves when the process has exited. */
function stopProcess (child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/**
 * Starts `node <script> <args>` and resolves once its stdout matches `ready` (default: the `listening on
 * <url>` line nodebench's servers print) with `{ match, child, stderr() }`; rejects if it exits first or
 * takes longer than `timeoutMs`. The process is stopped when `t` ends.
 */
function startProcess (t, script, args = [], { env = {}, ready = /^listening on (http:\/\/\S+)$/m, timeoutMs = 60_000 } = {}) {
  const name = path.basename(script)
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  t.after(() => stopProcess(child))
  return new Promise((resolve, reject) => {
    let stdout = ''
    const timer = setTimeout(() => reject(new Error(`${name} did not print ${ready} within ${timeoutMs} ms\n${stderr}`)), timeoutMs)
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const match = ready.exec(stdout)
      if (match) {
        clearTimeout(timer)
        resolve({ match, child, stderr: () => stderr })
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${signal || `code ${code}`}) before it was ready\n${stderr}`))
    })
  })
}

module.exports = { temporaryDir, request, runCli, isolatedEnv, servicesEnv, setEnv, stopProcess, startProcess, NODEBENCH_BIN }
