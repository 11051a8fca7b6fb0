'use strict'

const { startCall, endCall, observeRequests, observing } = require('./calls')
const { describeDependency } = require('./describe')
const { reportInternalError } = require('../internal-errors')

// MongoDB commands, from the driver the app loaded (`mongodb`, and so mongoose, which runs on it): every
// command a client sends goes through its Connection's `command(ns, command, options)`, whatever the client's
// options (command monitoring would need `monitorCommands: true` from the app). The driver is found where
// Node.js keeps the modules the app required (require.cache, which has the CommonJS packages an ES module
// imported too), when nodebench is made and when it finds the app at its first request: no require hook, no
// preload. Each copy of the driver (mongoose may bring its own) gets its prototype's method wrapped once; the
// wrapper starts and ends a call and hands everything on unchanged.

const CONNECTION_MODULE = /[\\/]mongodb[\\/]lib[\\/]cmap[\\/]connection\.js$/
const kOriginal = Symbol('nodebench.originalCommand')
// The driver's own exchanges (handshake, authentication) are not the app's calls.
const NOT_CALLS = new Set(['hello', 'isMaster', 'ismaster', 'saslStart', 'saslContinue', 'authenticate', 'getnonce'])

const wrapped = new Set()

/** Wraps the command method of every MongoDB driver loaded so far; true when one is (now or before). */
function observeMongoDrivers (cache = require.cache) {
  try {
    for (const filename of Object.keys(cache)) {
      if (!CONNECTION_MODULE.test(filename)) continue
      const connection = cache[filename]?.exports?.Connection
      if (typeof connection === 'function') wrapConnection(connection.prototype)
    }
  } catch (err) {
    reportInternalError('find the MongoDB driver', err)
  }
  if (wrapped.size > 0) observeRequests()
  return wrapped.size > 0
}

function wrapConnection (prototype) {
  const original = prototype.command
  if (typeof original !== 'function' || original[kOriginal] !== undefined || wrapped.has(prototype)) return
  const command = function command (ns, cmd) {
    const call = observing() ? startCommand(this, ns, cmd) : null
    const result = original.apply(this, arguments)
    if (call !== null && result !== null && typeof result === 'object' && typeof result.then === 'function') {
      result.then(() => endCall(call, null), (err) => endCall(call, errorType(err)))
    }
    return result
  }
  command[kOriginal] = original
  prototype.command = command
  wrapped.add(prototype)
}

/** Puts the driver's methods back (tests). */
function unobserveMongoDrivers () {
  for (const prototype of wrapped) prototype.command = prototype.command[kOriginal] ?? prototype.command
  wrapped.clear()
}

function startCommand (connection, ns, cmd) {
  try {
    if (cmd === null || typeof cmd !== 'object') return null
    const name = commandName(cmd)
    if (name === null || NOT_CALLS.has(name)) return null
    const collection = collectionOf(cmd, name, ns)
    const database = ns !== null && typeof ns === 'object' && typeof ns.db === 'string' ? ns.db : null
    const target = collection ?? database ?? ''
    const address = typeof connection.address === 'string' ? connection.address : ''
    const dependency = describeDependency('mongodb', address, name, target, () => {
      const { host, port } = serverOf(address)
      const attributes = { 'db.system.name': 'mongodb', 'db.operation.name': name }
      if (collection !== null) attributes['db.collection.name'] = collection
      if (database !== null) attributes['db.namespace'] = database
      if (host !== null) attributes['server.address'] = host
      if (port !== null) attributes['server.port'] = port
      return { system: 'mongodb', operation: name, target, spanName: `${name} ${target}`.trim(), attributes }
    })
    return startCall(dependency)
  } catch (err) {
    reportInternalError('time a MongoDB command', err)
    return null
  }
}

/** A command's name: its first key (`{ find: 'users', filter }`), read without making an array of its keys. */
function commandName (cmd) {
  // eslint-disable-next-line no-unreachable-loop
  for (const key in cmd) return key
  return null
}

/** The collection a command names (never a value of its query): `{ find: 'users' }`, `{ getMore: id, collection }`. */
function collectionOf (cmd, name, ns) {
  const value = cmd[name]
  if (typeof value === 'string') return value
  if (typeof cmd.collection === 'string') return cmd.collection
  if (ns !== null && typeof ns === 'object' && typeof ns.collection === 'string' && ns.collection !== '$cmd') return ns.collection
  return null
}

/** `127.0.0.1:27017`, `[::1]:27017` -> host and port (null when the connection does not say). */
function serverOf (address) {
  if (typeof address !== 'string') return { host: null, port: null }
  const match = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(address)
  if (match === null) return { host: null, port: null }
  return { host: match[1].startsWith('[') ? match[1].slice(1, -1) : match[1], port: Number(match[2]) }
}

function errorType (err) {
  if (err !== null && typeof err === 'object') {
    if (typeof err.codeName === 'string') return err.codeName
    if (typeof err.name === 'string') return err.name
  }
  return '_OTHER'
}

module.exports = { observeMongoDrivers, unobserveMongoDrivers, collectionOf, serverOf, NOT_CALLS }
