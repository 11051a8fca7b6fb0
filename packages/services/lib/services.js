'use strict'

// Background services `nodebench services start|stop|status` manages: detached processes that outlive the
// CLI, found again through their state files. The database is built in; other packages add theirs with
// registerService (the collector adds Jaeger), so this package need not depend on them.

const { stateDir: defaultStateDir, databaseDataDir } = require('./cache-dirs')
const { ensureRegisteredDatabase, pingDatabase } = require('./database')
const { readState, removeState } = require('./service-state')
const { checkDatabaseName, databaseNameFor, uriWithDatabase } = require('./database-uri')
const { terminate } = require('./processes')
const errors = require('./errors')

/**
 * `start(options)` resolves to `{ state, alreadyRunning }`; `answers(state)` to whether the running service
 * responds; `env(state)` is what a client needs to reach it, as environment variables.
 */
const services = new Map([
  ['db', Object.freeze({
    description: 'the embedded database (FerretDB, MongoDB wire protocol)',
    // --database: the name in the URI it prints (database-uri.js); default the app's package.json name.
    options: { database: { type: 'string' } },
    parseOptions: ({ database }) => (database === undefined ? {} : { database: checkDatabaseName(database) }),
    async start ({ stateDir, onProgress, env, readyTimeoutMs, settings = {} }) {
      const { state, database } = await ensureRegisteredDatabase({
        stateDir, dataDir: databaseDataDir(env), detached: true, onProgress, env, readyTimeoutMs
      })
      // The registration keeps the bare address (any app, any database); the name is this start's.
      const name = settings.database ?? databaseNameFor(process.cwd())
      return { state: { ...state, database: name }, alreadyRunning: database === null }
    },
    answers: (state) => pingDatabase(state.uri),
    env: (state) => ({ MONGODB_URI: state.database ? uriWithDatabase(state.uri, state.database) : state.uri })
  })]
])

/**
 * Adds service `name`: `{ description, start(options) -> { state, alreadyRunning }, answers(state) -> boolean,
 * env(state) -> variables }`. `start` registers what it started with writeState (from ./service-state).
 * A service that takes settings of its own (Prometheus: its scrape targets) also has `options` (the
 * command line's, in node:util parseArgs' form) and `parseOptions(values) -> settings`, which `start`
 * receives as `options.settings`.
 */
function registerService (name, spec) {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(name)) {
    throw errors.invalidOption('name', name, 'a lower-case service name, e.g. "jaeger"')
  }
  for (const method of ['start', 'answers', 'env']) {
    if (spec === null || typeof spec !== 'object' || typeof spec[method] !== 'function') {
      throw errors.invalidOption(`spec.${method}`, spec && spec[method], 'a function')
    }
  }
  if (spec.options !== undefined && typeof spec.parseOptions !== 'function') {
    throw errors.invalidOption('spec.parseOptions', spec.parseOptions, 'a function, since the service has options')
  }
  services.set(name, Object.freeze({ ...spec }))
}

/** The names of the services, the built-in database first. */
function serviceNames () {
  return Array.from(services.keys())
}

function serviceNamed (name) {
  const service = services.get(name)
  if (service === undefined) throw errors.serviceUnknown(name, serviceNames())
  return service
}

function stateDirOf ({ env = process.env, stateDir }) {
  return stateDir ?? defaultStateDir(env)
}

/** The command-line options service `name` takes besides its name (parseArgs' form), and how to read them. */
function serviceOptions (name) {
  const service = serviceNamed(name)
  return { options: service.options ?? {}, parseOptions: service.parseOptions ?? (() => ({})) }
}

/**
 * Starts service `name` detached, unless it already runs and answers (then `settings` change what they
 * name, where the service allows it). Resolves to
 * `{ name, pid, uri, port, dataDir, logFile, startedAt, owner, env, alreadyRunning }`.
 */
async function startService (name, options = {}) {
  const service = serviceNamed(name)
  const { onProgress, env = process.env, readyTimeoutMs, settings = {} } = options
  const stateDir = stateDirOf(options)
  const { state, alreadyRunning } = await service.start({ stateDir, onProgress, env, readyTimeoutMs, settings })
  return { ...state, env: service.env(state), alreadyRunning }
}

/** Stops service `name` (SIGTERM, SIGKILL after 5 s). Resolves to `{ name, wasRunning, pid }`. */
async function stopService (name, options = {}) {
  serviceNamed(name)
  const stateDir = stateDirOf(options)
  const state = readState(name, { stateDir })
  if (state === null) return { name, wasRunning: false, pid: null }
  await terminate(state.pid)
  removeState(name, { stateDir, pid: state.pid })
  return { name, wasRunning: true, pid: state.pid }
}

/** The registration of service `name` when it runs (what its `start` wrote: its addresses, files), else null. */
function serviceState (name, options = {}) {
  serviceNamed(name)
  return readState(name, { stateDir: stateDirOf(options) })
}

/** Resolves to `{ name, running, pid, uri, startedAt, owner, answering }`. */
async function serviceStatus (name, options = {}) {
  const service = serviceNamed(name)
  const state = readState(name, { stateDir: stateDirOf(options) })
  if (state === null) {
    return { name, running: false, pid: null, uri: null, startedAt: null, owner: null, answering: false }
  }
  const { pid, uri, startedAt, owner = null } = state
  return { name, running: true, pid, uri, startedAt, owner, answering: await service.answers(state) }
}

module.exports = {
  registerService, serviceNames, serviceOptions, serviceState, startService, stopService, serviceStatus
}
