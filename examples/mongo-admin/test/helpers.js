'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startDatabase } = require('@nodebench/services')
const { startProcess, stopProcess } = require('../../../test/support')

const EXAMPLE_DIR = path.join(__dirname, '..')

/** A real embedded database (FerretDB) on a free loopback port, with its data in a temporary directory. */
async function startTestDatabase (t, { port } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-mongo-admin-'))
  const database = await startDatabase({ dataDir, port, onProgress: (message) => t.diagnostic(message) })
  t.after(async () => {
    await database.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return { ...database, dataDir }
}

/** Runs a script of the example to its end; resolves with its exit code and output. */
function runScript (script, args, env, { timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(EXAMPLE_DIR, script), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} did not finish within ${timeoutMs} ms\n${stderr}`))
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * Starts `server.js` with `args`; resolves when it prints its `listening on` line, with `{ base, child,
 * stderr() }`. The server is stopped (SIGTERM, then SIGKILL) when the test ends, whatever its outcome.
 */
async function startServerProcess (t, args, env) {
  const { match, child, stderr } = await startProcess(t, path.join(EXAMPLE_DIR, 'server.js'), args, { env })
  return { base: match[1], child, stderr }
}

module.exports = { startTestDatabase, runScript, startServerProcess, stopProcess, EXAMPLE_DIR }
