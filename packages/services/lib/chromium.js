'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const errors = require('./errors')

// The Chromium that checks nodebench's reports in a real browser (through playwright-core). nodebench never
// downloads a browser build: it uses CHROMIUM_PATH, or Debian's `chromium` package, which it installs with
// apt-get itself when it runs as root (as on the project's machines and CI); apt keeps its own cache.

/** Where Debian's (and Ubuntu's older) chromium packages put the executable. */
const CHROMIUM_CANDIDATES = Object.freeze(['/usr/bin/chromium', '/usr/bin/chromium-browser'])
const OUTPUT_LIMIT = 64 * 1024

function writeToStderr (message) {
  process.stderr.write(message + '\n')
}

function isExecutableFile (file) {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** The first directory of PATH holding an executable `name`, or null. */
function findOnPath (name, env) {
  for (const dir of (env.PATH || '').split(path.delimiter)) {
    if (dir && isExecutableFile(path.join(dir, name))) return path.join(dir, name)
  }
  return null
}

/** Runs apt-get with `args`; resolves to the end of its output, rejects with it. */
function runAptGet (aptGet, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(aptGet, args, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (chunk) => { output = (output + chunk).slice(-OUTPUT_LIMIT) }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.once('error', (err) => reject(Object.assign(err, { output })))
    child.once('close', (code, signal) => {
      if (code === 0) resolve(output)
      else reject(Object.assign(new Error(`apt-get ${args.join(' ')} exited with ${signal || `code ${code}`}`), { output }))
    })
  })
}

// Concurrent callers of one process share one installation (one `apt-get update`).
let installing = null

async function installDebianChromium (aptGet, env, onProgress) {
  onProgress("nodebench: installing Debian's chromium package (apt-get), once, for the report's browser check...")
  await runAptGet(aptGet, ['update'], env)
  onProgress('nodebench: apt-get install -y --no-install-recommends chromium...')
  await runAptGet(aptGet, ['install', '-y', '--no-install-recommends', 'chromium'], env)
}

/**
 * The path of a Chromium executable: CHROMIUM_PATH, else the first of `candidates` that exists, else Debian's
 * chromium package installed with apt-get (as root only).
 * @param {object} [options]
 * @param {(message: string) => void} [options.onProgress] default: stderr
 * @param {NodeJS.ProcessEnv} [options.env] read for CHROMIUM_PATH and PATH; default process.env
 * @param {string[]} [options.candidates] default /usr/bin/chromium, /usr/bin/chromium-browser
 * @param {boolean} [options.canInstall] default: running as root with apt-get on PATH
 * @param {string} [options.aptGet] the apt-get to run; default the one on PATH
 * @returns {Promise<string>}
 */
async function ensureChromium ({ onProgress = writeToStderr, env = process.env, candidates = CHROMIUM_CANDIDATES, canInstall, aptGet } = {}) {
  if (env.CHROMIUM_PATH) {
    if (isExecutableFile(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH
    throw errors.chromiumMissing(`CHROMIUM_PATH is ${JSON.stringify(env.CHROMIUM_PATH)}, which is not an executable file`)
  }
  const found = () => candidates.find(isExecutableFile)
  if (found()) return found()
  const aptGetPath = aptGet || findOnPath('apt-get', env)
  const installable = canInstall === undefined ? aptGetPath !== null && typeof process.getuid === 'function' && process.getuid() === 0 : canInstall
  if (!installable || !aptGetPath) {
    throw errors.chromiumMissing(`none of ${candidates.join(', ')} exists and ${aptGetPath ? 'this process is not root' : 'apt-get is not on PATH'}`)
  }
  installing = installing || installDebianChromium(aptGetPath, env, onProgress).finally(() => { installing = null })
  try {
    await installing
  } catch (err) {
    throw errors.chromiumMissing(`installing Debian's chromium package failed (${err.message})`, err.output)
  }
  if (found()) return found()
  throw errors.chromiumMissing(`apt-get installed chromium, but none of ${candidates.join(', ')} exists`)
}

module.exports = { ensureChromium, CHROMIUM_CANDIDATES }
