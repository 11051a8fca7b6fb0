'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

// Executables nodebench takes from Debian packages (Chromium for the report's browser check, valgrind for
// the instruction-count benchmark). nodebench never downloads them itself: it uses the path an environment
// variable names, or the package's executable, installing the package with apt-get when it runs as root (as
// on the project's machines and CI); apt keeps its own cache.

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

// Concurrent callers of one process share one installation per package (one `apt-get update`).
const installing = new Map()

async function installDebianPackage (packageName, purpose, aptGet, env, onProgress) {
  onProgress(`nodebench: installing Debian's ${packageName} package (apt-get), once, ${purpose}...`)
  await runAptGet(aptGet, ['update'], env)
  onProgress(`nodebench: apt-get install -y --no-install-recommends ${packageName}...`)
  await runAptGet(aptGet, ['install', '-y', '--no-install-recommends', packageName], env)
}

/**
 * The path of an executable that a Debian package provides: the one `envVar` names, else the first of
 * `candidates` that exists, else the package installed with apt-get (as root only).
 * @param {object} what
 * @param {string} what.packageName the Debian package, e.g. 'chromium'
 * @param {string} what.envVar the variable that names an executable to use instead, e.g. 'CHROMIUM_PATH'
 * @param {string[]} what.candidates where the package puts the executable
 * @param {string} what.purpose what it is for, shown while installing ("for the report's browser check")
 * @param {(reason: string, output?: string) => Error} what.missing the coded error when it cannot be had
 * @param {object} [options]
 * @param {(message: string) => void} [options.onProgress] default: stderr
 * @param {NodeJS.ProcessEnv} [options.env] read for `envVar` and PATH; default process.env
 * @param {boolean} [options.canInstall] default: running as root with apt-get on PATH
 * @param {string} [options.aptGet] the apt-get to run; default the one on PATH
 * @returns {Promise<string>}
 */
async function ensureDebianExecutable (
  { packageName, envVar, candidates, purpose, missing },
  { onProgress = writeToStderr, env = process.env, canInstall, aptGet } = {}
) {
  if (env[envVar]) {
    if (isExecutableFile(env[envVar])) return env[envVar]
    throw missing(`${envVar} is ${JSON.stringify(env[envVar])}, which is not an executable file`)
  }
  const found = () => candidates.find(isExecutableFile)
  if (found()) return found()
  const aptGetPath = aptGet || findOnPath('apt-get', env)
  const installable = canInstall === undefined ? aptGetPath !== null && typeof process.getuid === 'function' && process.getuid() === 0 : canInstall
  if (!installable || !aptGetPath) {
    throw missing(`none of ${candidates.join(', ')} exists and ${aptGetPath ? 'this process is not root' : 'apt-get is not on PATH'}`)
  }
  if (!installing.has(packageName)) {
    installing.set(packageName, installDebianPackage(packageName, purpose, aptGetPath, env, onProgress)
      .finally(() => installing.delete(packageName)))
  }
  try {
    await installing.get(packageName)
  } catch (err) {
    throw missing(`installing Debian's ${packageName} package failed (${err.message})`, err.output)
  }
  if (found()) return found()
  throw missing(`apt-get installed ${packageName}, but none of ${candidates.join(', ')} exists`)
}

module.exports = { ensureDebianExecutable }
