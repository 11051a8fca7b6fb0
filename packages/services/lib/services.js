'use strict'

// Background services `nodebench services start|stop|status` manages: detached processes that outlive the
// CLI, found again through their state files. Adding a service is an entry in SERVICES.

const { stateDir: defaultStateDir, databaseDataDir } = require('./cache-dirs')
const { ensureRegisteredDatabase, pingDatabase } = require('./database')
const { readState, removeState } = require('./service-state')
const { terminate } = require('./processes')
const errors = require('./errors')

/**
 * `start(options)` resolves to `{ state, alreadyRunning }`; `answers(state)` to whether the running service
 * responds; `env(state)` is what a client needs to reach it, as environment variables.
 */
const SERVICES = Object.freeze({
  db: Object.freeze({
    description: 'the embedded database (FerretDB, MongoDB wire protocol)',
    async start ({ stateDir, onProgress, env, readyTimeoutMs }) {
      const { state, database } = await ensureRegisteredDatabase({
        stateDir, dataDir: databaseDataDir(env), detached: true, onProgress, env, readyTimeoutMs
      })
      return { state, alreadyRunning: database === null }
    },
    answers: (state) => pingDatabase(state.uri),
    env: (state) => ({ MONGODB_URI: state.uri })
  })
})

const SERVICE_NAMES = Object.freeze(Object.keys(SERVICES))

function serviceNamed (name) {
  if (!Object.hasOwn(SERVICES, name)) throw errors.serviceUnknown(name, SERVICE_NAMES)
  return SERVICES[name]
}

function stateDirOf ({ env = process.env, stateDir }) {
  return stateDir ?? defaultStateDir(env)
}

/**
 * Starts service `name` detached, unless it already runs and answers. Resolves to
 * `{ name, pid, uri, port, dataDir, logFile, startedAt, owner, env, alreadyRunning }`.
 */
async function startService (name, options = {}) {
  const service = serviceNamed(name)
  const { onProgress, env = process.env, readyTimeoutMs } = options
  const { state, alreadyRunning } = await service.start({ stateDir: stateDirOf(options), onProgress, env, readyTimeoutMs })
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

/** Resolves to `{ name, running, pid, uri, startedAt, owner, answering }`. */
async function serviceStatus (name, options = {}) {
  const service = serviceNamed(name)
  const state = readState(name, { stateDir: stateDirOf(options) })
  if (state === null) return { name, running: false, pid: null, uri: null, startedAt: null, owner: null, answering: false }
  const { pid, uri, startedAt, owner = null } = state
  return { name, running: true, pid, uri, startedAt, owner, answering: await service.answers(state) }
}

module.exports = { SERVICE_NAMES, SERVICES, startService, stopService, serviceStatus }
