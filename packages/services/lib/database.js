'use strict'

// The embedded database: FerretDB (MongoDB wire protocol, SQLite backend) run by this package's ferretdb/, a
// launcher built from the Go module proxy on first use. Apps get their database from resolveDatabase: MONGODB_URI
// when set, else the registered `db` service, else an embedded FerretDB that lives as long as the app.

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { MongoClient } = require('mongodb')
const { stateDir: defaultStateDir, databaseDataDir } = require('./cache-dirs')
const { ensureGoBinary } = require('./go-binary')
const { freeLoopbackPort, terminate } = require('./processes')
const { readState, writeState, removeState } = require('./service-state')
const { acquireLock } = require('./file-lock')
const errors = require('./errors')

// Shipped in this package (its `files`), so an installed nodebench builds it as a checkout does.
const LAUNCHER_DIR = path.join(__dirname, '..', 'ferretdb')
const SERVICE_NAME = 'db'
const PING_TIMEOUT_MS = 2000
const READY_POLL_MS = 25
const LOG_TAIL_BYTES = 16 * 1024
// Between two passes of the launcher's TTL monitor: MongoDB's ttlMonitorSleepSecs default.
const TTL_MONITOR_SLEEP_SECS = 60
// A starter holding the lock needs at most its ready timeout; waiters give it this much more.
const LOCK_MARGIN_MS = 10000

function launcherSourceFiles () {
  return fs.readdirSync(LAUNCHER_DIR)
    .filter((file) => file === 'go.mod' || file === 'go.sum' || file.endsWith('.go'))
    .map((file) => path.join(LAUNCHER_DIR, file))
}

/** The FerretDB version the launcher requires in its go.mod. */
function ferretdbVersion () {
  const goMod = fs.readFileSync(path.join(LAUNCHER_DIR, 'go.mod'), 'utf8')
  return /github\.com\/FerretDB\/FerretDB (v\S+)/.exec(goMod)[1]
}

/** The path of the FerretDB launcher binary, built the first time (about a minute). */
function ferretdbBinary ({ onProgress, env = process.env } = {}) {
  return ensureGoBinary({
    name: 'ferretdb',
    displayName: 'FerretDB',
    version: ferretdbVersion(),
    buildTime: 'about a minute',
    sourceFiles: launcherSourceFiles(),
    alternatives: errors.DATABASE_ALTERNATIVES,
    onProgress,
    env,
    build: ({ output, go }) => go(['build', '-o', output, '.'], { cwd: LAUNCHER_DIR })
  })
}

/** Whether a MongoDB server at `uri` answers `{ ping: 1 }` within `timeoutMs`. */
async function pingDatabase (uri, { timeoutMs = PING_TIMEOUT_MS } = {}) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs })
  try {
    await client.db('admin').command({ ping: 1 })
    return true
  } catch {
    return false
  } finally {
    await client.close().catch(() => {})
  }
}

/** `work` runs on the first call; every call returns its promise. */
function idempotent (work) {
  let promise = null
  return () => (promise ??= work())
}

function readLogFrom (logFile, offset) {
  try {
    const { size } = fs.statSync(logFile)
    const start = Math.max(offset, size - LOG_TAIL_BYTES)
    const buffer = Buffer.alloc(size - start)
    const fd = fs.openSync(logFile, 'r')
    try {
      fs.readSync(fd, buffer, 0, buffer.length, start)
    } finally {
      fs.closeSync(fd)
    }
    return buffer.toString('utf8')
  } catch {
    return ''
  }
}

function validateStartOptions ({ port, readyTimeoutMs, ttlMonitorSleepSecs, postgresqlUrl }) {
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    throw errors.invalidOption('port', port, 'an integer from 1 to 65535, or undefined for a free port')
  }
  if (!(Number.isInteger(readyTimeoutMs) && readyTimeoutMs > 0)) {
    throw errors.invalidOption('readyTimeoutMs', readyTimeoutMs, 'a positive integer (milliseconds)')
  }
  if (!(Number.isInteger(ttlMonitorSleepSecs) && ttlMonitorSleepSecs > 0)) {
    throw errors.invalidOption('ttlMonitorSleepSecs', ttlMonitorSleepSecs, 'a positive integer (seconds between two TTL passes)')
  }
  if (postgresqlUrl !== undefined && !(typeof postgresqlUrl === 'string' && /^postgres(ql)?:\/\//.test(postgresqlUrl))) {
    throw errors.invalidOption('postgresqlUrl', postgresqlUrl, 'a postgres:// connection string, or undefined for SQLite')
  }
}

function spawnLauncher (binary, args, { detached, logFd }) {
  if (detached) {
    // `nodebench services start db`: the database outlives the CLI, so nothing links it to this process.
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd] })
    child.unref()
    return child
  }
  // Attached: the launcher stops when its stdin closes, which the kernel does when this process dies, even
  // by SIGKILL. Unreferenced, so the database never keeps the app alive by itself.
  const child = spawn(binary, [...args, '-exit-on-stdin-close'], { stdio: ['pipe', logFd, logFd] })
  child.stdin.on('error', () => {})
  child.stdin.unref()
  child.unref()
  return child
}

/** Whether something accepts TCP connections on the loopback `port`. */
function acceptsConnections (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/** Follows `child`'s end: `reason()` is null while it runs, then says how it ended; `exited` resolves then. */
function watchExit (child) {
  let reason = null
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => { reason = `exited (${signal ?? `code ${code}`})`; resolve() })
    child.once('error', (err) => { reason = `could not be started (${err.message})`; resolve() })
  })
  return { exited, reason: () => reason }
}

/**
 * Polls until the database answers; resolves to null when it does, else to why it did not. The port is
 * polled first: a ping sent before the listener is up makes the driver wait for its next heartbeat (500 ms).
 */
async function waitUntilAnswering ({ watch, port, uri, readyTimeoutMs }) {
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    if (watch.reason() !== null) return `${watch.reason()} before answering a ping on ${uri}`
    const remaining = deadline - Date.now()
    if (remaining <= 0) return `did not answer a ping on ${uri} within ${readyTimeoutMs} ms`
    const pingTimeoutMs = Math.min(PING_TIMEOUT_MS, remaining)
    const answered = await acceptsConnections(port) &&
      await Promise.race([pingDatabase(uri, { timeoutMs: pingTimeoutMs }), watch.exited.then(() => false)])
    // Another server on this port would answer too; the answer counts only if ours still runs.
    if (answered && watch.reason() === null) return null
    await sleep(READY_POLL_MS)
  }
}

/**
 * Starts FerretDB on a loopback port and resolves once it answers a ping.
 * Resolves to `{ uri, pid, port, dataDir, logFile, stop() }`.
 */
async function startDatabase (options = {}) {
  const {
    env = process.env, dataDir = databaseDataDir(env), onProgress, detached = false,
    logFile = path.join(path.dirname(path.resolve(dataDir)), 'ferretdb.log'), readyTimeoutMs = 30000,
    ttlMonitorSleepSecs = TTL_MONITOR_SLEEP_SECS, postgresqlUrl
  } = options
  validateStartOptions({ port: options.port, readyTimeoutMs, ttlMonitorSleepSecs, postgresqlUrl })
  const binary = await ferretdbBinary({ onProgress, env })
  const port = options.port ?? await freeLoopbackPort()
  const uri = `mongodb://127.0.0.1:${port}/`
  const args = [
    '-listen', `127.0.0.1:${port}`, '-data', path.resolve(dataDir), '-ttl-monitor-sleep-secs', String(ttlMonitorSleepSecs),
    ...(postgresqlUrl === undefined ? [] : ['-postgresql-url', postgresqlUrl])
  ]

  fs.mkdirSync(dataDir, { recursive: true })
  fs.mkdirSync(path.dirname(logFile), { recursive: true })
  const logFd = fs.openSync(logFile, 'a')
  const logOffset = fs.fstatSync(logFd).size
  let child
  try {
    fs.writeSync(logFd, `\n[nodebench ${new Date().toISOString()}] starting ${binary} ${args.join(' ')}\n`)
    child = spawnLauncher(binary, args, { detached, logFd })
  } finally {
    fs.closeSync(logFd) // the child holds its own copy
  }
  const watch = watchExit(child)

  const killOnExit = () => child.kill('SIGTERM')
  if (!detached) process.on('exit', killOnExit)
  const stop = idempotent(async () => {
    process.removeListener('exit', killOnExit)
    if (child.pid !== undefined) await terminate(child.pid)
  })

  const failure = await waitUntilAnswering({ watch, port, uri, readyTimeoutMs })
  if (failure !== null) {
    await stop()
    throw errors.databaseStart(failure, logFile, readLogFrom(logFile, logOffset))
  }
  return { uri, pid: child.pid, port, dataDir: path.resolve(dataDir), logFile, stop }
}

/** The registered database when it answers; null when none is registered; throws when one hangs. */
async function answeringRegistration (stateDir) {
  const state = readState(SERVICE_NAME, { stateDir })
  if (state === null) return null
  if (await pingDatabase(state.uri)) return state
  throw errors.serviceNotAnswering(state)
}

/**
 * The registered database if one answers, else a new one, registered in `stateDir` (so other processes
 * reuse it instead of opening the same SQLite files with a second FerretDB). Resolves to
 * `{ state, database }`, `database` being null when an already registered one was found.
 */
async function ensureRegisteredDatabase (options) {
  const { stateDir, dataDir, detached, onProgress, env, readyTimeoutMs = 30000 } = options
  const registered = await answeringRegistration(stateDir)
  if (registered !== null) return { state: registered, database: null }

  // Build before taking the lock: a build takes a minute, and concurrent builds do not conflict.
  const command = await ferretdbBinary({ onProgress, env })
  const release = await acquireLock(`${path.resolve(dataDir)}.lock`, { timeoutMs: readyTimeoutMs + LOCK_MARGIN_MS })
  try {
    const raced = await answeringRegistration(stateDir)
    if (raced !== null) return { state: raced, database: null }
    const database = await startDatabase({ dataDir, detached, onProgress, env, readyTimeoutMs })
    const { uri, pid, port, logFile } = database
    const state = {
      name: SERVICE_NAME,
      pid,
      command,
      uri,
      port,
      dataDir: database.dataDir,
      logFile,
      startedAt: new Date().toISOString(),
      owner: detached ? null : process.pid
    }
    writeState(state, { stateDir })
    return { state, database }
  } finally {
    release()
  }
}

async function noop () {}

/**
 * The database an app should use: `{ uri, source, pid, stop() }`, `source` being 'MONGODB_URI', 'service' (a
 * registered database, shared) or 'embedded' (started here, registered for other processes, stopped with
 * this process or by `stop()`); `pid` its process (null for MONGODB_URI, which may be on another machine).
 */
async function resolveDatabase (options = {}) {
  const {
    onProgress, env = process.env, stateDir = defaultStateDir(env), dataDir = databaseDataDir(env), readyTimeoutMs
  } = options
  if (env.MONGODB_URI) return { uri: env.MONGODB_URI, source: 'MONGODB_URI', pid: null, stop: noop }

  const { state, database } = await ensureRegisteredDatabase({
    stateDir, dataDir, detached: false, onProgress, env, readyTimeoutMs
  })
  if (database === null) return { uri: state.uri, source: 'service', pid: state.pid ?? null, stop: noop }

  const unregister = () => removeState(SERVICE_NAME, { stateDir, pid: database.pid })
  process.once('exit', unregister)
  const stop = idempotent(async () => {
    process.removeListener('exit', unregister)
    unregister() // first, so that no other process picks up a database that is going away
    await database.stop()
  })
  return { uri: database.uri, source: 'embedded', pid: database.pid, stop }
}

module.exports = {
  ferretdbBinary, ferretdbVersion, pingDatabase, startDatabase, ensureRegisteredDatabase, resolveDatabase, SERVICE_NAME
}
