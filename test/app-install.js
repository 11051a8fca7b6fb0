'use strict'

// What the tests that install the packed tarballs into an app with npm share (test/runners.test.js,
// test/packages.test.js): `npm install` / `npm ci` into a folder outside the
// checkout, from the registry through the npm cache (--prefer-offline: a package already in the cache is not
// asked for again); apps with many packages are kept installed in the user's cache between runs (cachedApp).
// Both files run once per CI run (their `nodebench-test: once` tag, docs/development.md).

const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { userCacheDir } = require('@nodebench/services')

const ROOT = path.join(__dirname, '..')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const INSTALL_TIMEOUT_MS = 600_000

/**
 * Runs `command args` in `cwd`; resolves to `{ code, output }` (stdout and stderr together), never rejects.
 * `timeoutMs`: the process (and its own children, a process group) is killed past it, and `timedOut` set.
 */
function runCommand (command, args, { cwd, env = process.env, timeoutMs = INSTALL_TIMEOUT_MS }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
    let output = ''
    let timedOut = false
    const take = (chunk) => { output += chunk }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL')
      } catch {}
    }, timeoutMs)
    child.once('error', (err) => {
      clearTimeout(timer)
      resolve({ code: null, output: output + err.message, timedOut })
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output, timedOut })
    })
  })
}

/** The environment npm runs with: quiet, no audit or funding calls, engine warnings still printed. */
function npmEnv (env = process.env) {
  const result = { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_loglevel: 'warn' }
  // node:test's marker for its own children: a suite an app's runner starts would take it for a subtest.
  delete result.NODE_TEST_CONTEXT
  return result
}

/**
 * `npm <args>` (install, ci) in `cwd`, from the cache when it has the packages; resolves to npm's output.
 * Fails with npm's output on an error, and on any EBADENGINE warning (a package that does not support this
 * Node.js).
 */
async function npm (cwd, args) {
  const { code, output, timedOut } = await runCommand(NPM, [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, env: npmEnv() })
  if (code !== 0) {
    throw new Error(`npm ${args.join(' ')} in ${cwd} ${timedOut ? `did not finish in ${INSTALL_TIMEOUT_MS / 1000} s` : `failed (exit ${code})`}:\n` +
      output.slice(-4000))
  }
  const engines = output.split('\n').filter((line) => line.includes('EBADENGINE'))
  if (engines.length > 0) throw new Error(`npm ${args.join(' ')} in ${cwd}: engine warnings on Node.js ${process.version}:\n${engines.join('\n')}`)
  return output
}

/** Whether a process with this pid runs. */
function isRunning (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

const LOCK_WAIT_MS = 1_200_000

/**
 * Runs `fn` holding `<dir>.lock` (a folder made atomically, with the holder's pid): another run of the tests
 * on this machine waits for it; a lock whose process is gone is taken over.
 */
async function withDirLock (dir, fn) {
  const lock = `${dir}.lock`
  fs.mkdirSync(path.dirname(lock), { recursive: true })
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      fs.mkdirSync(lock)
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid))
      break
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
      const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }))
      if (holder > 0 && !isRunning(holder)) {
        fs.rmSync(lock, { recursive: true, force: true })
        continue
      }
      if (Date.now() > deadline) throw new Error(`${lock} is held by process ${holder || '(starting)'} for more than ${LOCK_WAIT_MS / 1000} s`)
      await sleep(1000)
    }
  }
  try {
    return await fn()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * An app kept installed between runs in the user's cache (`<cache>/test-apps/<name>`): removing a test's
 * node_modules took minutes here (tens of thousands of files), installing them again as long. `base` is its
 * package.json without our packages; when it changes (or no install finished), the app is installed anew.
 * Then this run's `tarballs` (`[{ file }]`) are installed into it, copied under names made of their content so
 * that npm replaces what an earlier run installed. Resolves to the app's folder. Call it under withDirLock.
 */
async function cachedApp (name, base, tarballs, { onProgress = () => {} } = {}) {
  const dir = path.join(userCacheDir(), 'test-apps', name)
  const stamp = path.join(dir, '.nodebench-base')
  const wanted = JSON.stringify(base)
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== wanted) {
    onProgress(`npm install (once: kept in ${dir})`)
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(base, null, 2) + '\n')
    await npm(dir, ['install'])
    fs.writeFileSync(stamp, wanted)
  }
  const shipped = path.join(dir, 'tarballs')
  fs.mkdirSync(shipped, { recursive: true })
  const files = tarballs.map(({ file }) => {
    const hash = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 12)
    const copy = path.join(shipped, path.basename(file).replace(/\.tgz$/, `-${hash}.tgz`))
    fs.copyFileSync(file, copy)
    return copy
  })
  onProgress(`npm install ${files.map((file) => path.basename(file)).join(' ')}`)
  await npm(dir, ['install', ...files.map((file) => `./${path.relative(dir, file)}`)])
  for (const entry of fs.readdirSync(shipped)) {
    if (!files.includes(path.join(shipped, entry))) fs.rmSync(path.join(shipped, entry), { force: true })
  }
  return dir
}

/** `fn` over `items`, at most `limit` at a time; resolves to the results in order, or rejects with the first error. */
async function inPool (items, limit, fn) {
  const results = new Array(items.length)
  let next = 0
  async function worker () {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index], index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

module.exports = { ROOT, runCommand, npmEnv, npm, inPool, withDirLock, cachedApp }
