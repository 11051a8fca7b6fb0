'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')

// Executables nodebench takes from Debian packages (Chromium for the report's browser check, valgrind for
// the instruction-count benchmark). nodebench never downloads them itself: it uses the path an environment
// variable names, or the package's executable, installing the package with apt-get when it runs as root (as
// on the project's machines and CI); apt keeps its own cache.

const OUTPUT_LIMIT = 64 * 1024
// Another apt-get or dpkg (a second nodebench, the system's unattended upgrades) holds Debian's package lock:
// apt-get says so and exits at once. nodebench waits for it, this long at most, trying again every second.
const LOCK_TIMEOUT_MS = 10 * 60_000
const LOCK_RETRY_MS = 1000
const LOCK_HELD = /Could not get lock (\S+?)\.? |Unable to acquire the dpkg frontend lock \(([^)]+)\)|Unable to lock (?:the )?directory (\S+)/

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

/** Which lock apt-get's output says is held, and by whom; null when it failed for another reason. */
function heldLock (output) {
  const match = LOCK_HELD.exec(output)
  if (match === null) return null
  const holder = /It is held by process (\d+)(?: \(([^)]+)\))?/.exec(output)
  return { lock: match[1] ?? match[2] ?? match[3], holder: holder === null ? null : `process ${holder[1]}${holder[2] ? ` (${holder[2]})` : ''}` }
}

/**
 * runAptGet, waiting while another apt-get or dpkg holds the package lock: one line says so, then apt-get is
 * tried again every second until it gets the lock or `lockTimeoutMs` has passed.
 */
async function runAptGetWhenFree (aptGet, args, { env, onProgress, lockTimeoutMs }) {
  const deadline = Date.now() + lockTimeoutMs
  let waiting = false
  for (;;) {
    try {
      return await runAptGet(aptGet, args, env)
    } catch (err) {
      const held = heldLock(err.output || '')
      if (held === null) throw err
      if (Date.now() + LOCK_RETRY_MS > deadline) {
        throw Object.assign(new Error(`Debian's package lock ${held.lock} was still held${held.holder ? ` by ${held.holder}` : ''} ` +
          `after ${formatWait(lockTimeoutMs)}`), { output: err.output })
      }
      if (!waiting) {
        waiting = true
        onProgress(`nodebench: Debian's package lock ${held.lock} is held${held.holder ? ` by ${held.holder}` : ''} (another apt-get or dpkg); ` +
          `waiting for it, ${formatWait(lockTimeoutMs)} at most...`)
      }
      await sleep(LOCK_RETRY_MS)
    }
  }
}

function formatWait (ms) {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`
}

/** ['nginx'] -> "Debian's nginx package"; ['apache2', 'libapache2-mod-php'] -> "... apache2 and ... packages". */
function packagesText (packageNames) {
  const names = packageNames.length === 1 ? packageNames[0] : `${packageNames.slice(0, -1).join(', ')} and ${packageNames[packageNames.length - 1]}`
  return `Debian's ${names} package${packageNames.length === 1 ? '' : 's'}`
}

async function installDebianPackages (packageNames, purpose, aptGet, { env, onProgress, lockTimeoutMs }) {
  onProgress(`nodebench: installing ${packagesText(packageNames)} (apt-get), once, ${purpose}...`)
  await runAptGetWhenFree(aptGet, ['update'], { env, onProgress, lockTimeoutMs })
  onProgress(`nodebench: apt-get install -y --no-install-recommends ${packageNames.join(' ')}...`)
  await runAptGetWhenFree(aptGet, ['install', '-y', '--no-install-recommends', ...packageNames], { env, onProgress, lockTimeoutMs })
}

/**
 * The path of an executable that a Debian package provides: the one `envVar` names, else the first of
 * `candidates` that exists, else the package installed with apt-get (as root only).
 * @param {object} what
 * @param {string|string[]} what.packageName the Debian package, e.g. 'chromium', or the packages that together
 *   provide what is needed, e.g. ['apache2', 'libapache2-mod-php']
 * @param {string} what.envVar the variable that names an executable to use instead, e.g. 'CHROMIUM_PATH'
 * @param {string[]} what.candidates where the package puts the executable
 * @param {string} what.purpose what it is for, shown while installing ("for the report's browser check")
 * @param {(reason: string, output?: string) => Error} what.missing the coded error when it cannot be had
 * @param {{ present: (executable: string) => boolean, what: string }} [what.alongside] what else the packages
 *   must have put beside the executable (Apache's PHP module), and how to tell it is there
 * @param {object} [options]
 * @param {(message: string) => void} [options.onProgress] default: stderr
 * @param {NodeJS.ProcessEnv} [options.env] read for `envVar` and PATH; default process.env
 * @param {boolean} [options.canInstall] default: running as root with apt-get on PATH
 * @param {string} [options.aptGet] the apt-get to run; default the one on PATH
 * @param {number} [options.lockTimeoutMs] how long to wait while another apt-get or dpkg holds the package lock;
 *   default 10 minutes
 * @returns {Promise<string>}
 */
async function ensureDebianExecutable (
  { packageName, envVar, candidates, purpose, missing, alongside = null },
  { onProgress = writeToStderr, env = process.env, canInstall, aptGet, lockTimeoutMs = LOCK_TIMEOUT_MS } = {}
) {
  const packageNames = [].concat(packageName)
  const complete = (executable) => alongside === null || alongside.present(executable)
  if (env[envVar]) {
    if (!isExecutableFile(env[envVar])) throw missing(`${envVar} is ${JSON.stringify(env[envVar])}, which is not an executable file`)
    if (!complete(env[envVar])) throw missing(`${envVar} is ${JSON.stringify(env[envVar])}, but ${alongside.what} is missing`)
    return env[envVar]
  }
  const found = () => candidates.find((file) => isExecutableFile(file) && complete(file))
  if (found()) return found()
  const partly = candidates.find(isExecutableFile)
  const absent = partly === undefined ? `none of ${candidates.join(', ')} exists` : `${partly} exists but ${alongside.what} is missing`
  const aptGetPath = aptGet || findOnPath('apt-get', env)
  const installable = canInstall === undefined ? aptGetPath !== null && typeof process.getuid === 'function' && process.getuid() === 0 : canInstall
  if (!installable || !aptGetPath) {
    throw missing(`${absent} and ${aptGetPath ? 'this process is not root' : 'apt-get is not on PATH'}`)
  }
  const key = packageNames.join(' ')
  if (!installing.has(key)) {
    const installation = installDebianPackages(packageNames, purpose, aptGetPath, { env, onProgress, lockTimeoutMs })
    installing.set(key, installation.finally(() => installing.delete(key)))
  }
  try {
    await installing.get(key)
  } catch (err) {
    throw missing(`installing ${packagesText(packageNames)} failed (${err.message})`, err.output)
  }
  if (found()) return found()
  const after = candidates.find(isExecutableFile)
  throw missing(`apt-get installed ${packageNames.join(' and ')}, but ${after === undefined ? `none of ${candidates.join(', ')} exists` : `${alongside.what} is missing`}`)
}

module.exports = { ensureDebianExecutable }
