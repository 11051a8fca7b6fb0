'use strict'

// The registry of running services: one JSON file per service, `<stateDir>/<name>.json`
// `{ name, pid, command, uri, port, dataDir, logFile, startedAt, owner }`. `owner` is the pid of the process
// whose lifetime the service shares (an app's embedded database), or null for a detached service. A file
// whose service or owner has died is stale and removed when read, so readers only ever see live services.
// `command` guards against pid reuse: after a reboot the registered pid may belong to another program,
// which must be neither reused nor killed.

const fs = require('node:fs')
const path = require('node:path')
const { isAlive, commandOf } = require('./processes')

function stateFile (name, stateDir) {
  return path.join(stateDir, `${name}.json`)
}

function isStale (state) {
  if (!isAlive(state.pid)) return true
  const command = commandOf(state.pid)
  if (typeof state.command === 'string' && command !== null && command !== state.command) return true
  return Number.isInteger(state.owner) && !isAlive(state.owner)
}

/** The live registration of `name`, or null. */
function readState (name, { stateDir }) {
  const file = stateFile(name, stateDir)
  let state
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    if (err.code === 'ENOENT') return null
    if (err instanceof SyntaxError) return removeAndReturnNull(file) // torn or hand-edited: not a registration
    throw err
  }
  if (typeof state !== 'object' || state === null || isStale(state)) return removeAndReturnNull(file, state)
  return state
}

function removeAndReturnNull (file, state) {
  // Remove only what was read: between the read and now a new service may have registered in its place.
  if (state === undefined || sameRegistration(readRaw(file), state)) fs.rmSync(file, { force: true })
  return null
}

function readRaw (file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

function sameRegistration (a, b) {
  return a !== null && b !== null && typeof a === 'object' && typeof b === 'object' &&
    a.pid === b.pid && a.startedAt === b.startedAt
}

/** Writes the registration atomically (temporary file + rename), so a reader never sees half a file. */
function writeState (state, { stateDir }) {
  fs.mkdirSync(stateDir, { recursive: true })
  const file = stateFile(state.name, stateDir)
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, JSON.stringify(state, null, 2) + '\n')
  fs.renameSync(temporary, file)
  return file
}

/** Removes the registration of `name`; with `pid`, only when it still registers that process. */
function removeState (name, { stateDir, pid } = {}) {
  const file = stateFile(name, stateDir)
  if (pid !== undefined) {
    const current = readRaw(file)
    if (current === null || current.pid !== pid) return false
  }
  fs.rmSync(file, { force: true })
  return true
}

module.exports = { readState, writeState, removeState, stateFile, isAlive }
