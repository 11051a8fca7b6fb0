'use strict'

// What the CLI's tests share: a temporary folder removed after the test, and the command run as users run it.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')

const BIN = path.join(__dirname, '..', 'bin', 'nodebench.js')

/** A new folder under the system's temporary one, removed when `t` ends. */
function temporaryDir (t, prefix = 'nodebench-cli-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs `nodebench <argv>` in a process of its own; resolves to `{ code, stdout, stderr }`, never rejects. */
function runCli (argv, { env = process.env, timeout = 300_000 } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...argv], { env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr })
    })
  })
}

module.exports = { temporaryDir, runCli, BIN }
