'use strict'

const { startCall, endCall, observeRequests, observing } = require('./calls')
const { describeDependency } = require('./describe')
const { reportInternalError } = require('../internal-errors')

// MongoDB commands, from the driver the app loaded (`mongodb`, and so mongoose, which runs on it), whatever the
// client's options (command monitoring would need `monitorCommands: true` from the app):
// - drivers 6 and later (mongoose 8 and later): every command goes through its Connection's async
//   `command(ns, command, options)`, awaited in the context of the operation that sends it;
// - drivers 3.6 to 5 (mongoose 5 to 7): the Connection's methods take callbacks and run after the pool hands a
//   connection out, in whatever async context gave it back, so the call is timed one step earlier, at the
//   Server's methods (`command`, and in 3.x `query`, `getMore`, `insert`, `update`, `remove`), in the
//   operation's own context: its time includes waiting for a pooled connection, which is the database's too.
//   (3.x's legacy topology, without `useUnifiedTopology`, has neither and is not timed.)
// The driver is found where Node.js keeps the modules the app required (require.cache, which has the CommonJS
// packages an ES module imported too), when nodebench is made and when it finds the app at its first request:
// no require hook, no preload. Each copy of the driver (mongoose may bring its own) gets its prototype's
// methods wrapped once; a wrapper starts and ends a call and hands everything on unchanged.

const CONNECTION_MODULE = /[\\/]mongodb[\\/]lib[\\/]cmap[\\/]connection\.js$/
const SERVER_MODULE = /[\\/]mongodb[\\/]lib[\\/](?:core[\\/])?sdam[\\/]server\.js$/
// A callback-taking Server's methods, and what each sends: `command`'s name is its command's first key, the others
// are the wire protocol's operations of 3.x (the callback is always the last argument given).
const SERVER_METHODS = Object.freeze(['command', 'query', 'getMore', 'insert', 'update', 'remove'])
const SERVER_OPERATIONS = Object.freeze({ getMore: 'getMore', insert: 'insert', update: 'update', remove: 'delete' })
const kOriginal = Symbol('nodebench.originalCommand')
// The driver's own exchanges (handshake, authentication) are not the app's calls.
const NOT_CALLS = new Set(['hello', 'isMaster', 'ismaster', 'saslStart', 'saslContinue', 'authenticate', 'getnonce'])

const wrapped = new Set()

/** Wraps the command method of every MongoDB driver loaded so far; true when one is (now or before). */
function observeMongoDrivers (cache = require.cache) {
  try {
    for (const filename of Object.keys(cache)) {
      if (CONNECTION_MODULE.test(filename)) {
        const connection = cache[filename]?.exports?.Connection
        if (typeof connection === 'function' && isAsync(connection.prototype.command)) wrapConnection(connection.prototype)
      } else if (SERVER_MODULE.test(filename)) {
        const server = cache[filename]?.exports?.Server
        if (typeof server === 'function' && isCallbackMethod(server.prototype.command)) wrapServer(server.prototype)
      }
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
    const call = observing() ? startCommand(this.address, ns, cmd) : null
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

/** A callback-taking Server's methods (drivers 3.6 to 5): each call ends when the driver calls back. */
function wrapServer (prototype) {
  if (wrapped.has(prototype)) return
  for (const method of SERVER_METHODS) {
    const original = prototype[method]
    if (!isCallbackMethod(original) || original[kOriginal] !== undefined) continue
    const wrapper = function (ns, cmd) {
      const last = arguments.length - 1
      const callback = last >= 0 ? arguments[last] : undefined
      const call = typeof callback === 'function' && observing() ? startServerCall(this, method, ns, cmd) : null
      if (call === null) return original.apply(this, arguments)
      arguments[last] = function (err) {
        endCall(call, err === null || err === undefined ? null : errorType(err))
        return callback.apply(this, arguments)
      }
      return original.apply(this, arguments)
    }
    Object.defineProperty(wrapper, 'name', { value: method })
    wrapper[kOriginal] = original
    prototype[method] = wrapper
  }
  wrapped.add(prototype)
}

/** Puts the driver's methods back (tests). */
function unobserveMongoDrivers () {
  for (const prototype of wrapped) {
    for (const method of SERVER_METHODS) {
      if (typeof prototype[method] === 'function' && prototype[method][kOriginal] !== undefined) prototype[method] = prototype[method][kOriginal]
    }
  }
  wrapped.clear()
}

function isAsync (fn) {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncFunction'
}

function isCallbackMethod (fn) {
  return typeof fn === 'function' && !isAsync(fn)
}

/** A Server's call: `command` names its command; 3.x's other methods are operations on `ns` ('db.collection'). */
function startServerCall (server, method, ns, cmd) {
  try {
    const namespace = typeof ns === 'string' ? namespaceOf(ns) : ns
    const address = server.description?.address
    if (method === 'command') return startCommand(address, namespace, cmd)
    if (method === 'query') {
      // 3.x's find: `{ find: 'db.collection', query, ... }`, or a command sent as a query on 'db.$cmd'.
      return startCommand(address, namespace, cmd, 'find')
    }
    return startCommand(address, namespace, { [SERVER_OPERATIONS[method]]: namespace?.collection ?? null })
  } catch (err) {
    reportInternalError('time a MongoDB command', err)
    return null
  }
}

/** 'db.collection.name' -> { db, collection } ('db.$cmd': a command, no collection). */
function namespaceOf (ns) {
  const dot = ns.indexOf('.')
  if (dot === -1) return { db: ns, collection: null }
  const collection = ns.slice(dot + 1)
  return { db: ns.slice(0, dot), collection: collection === '$cmd' ? null : collection }
}

/** `address`: the server's 'host:port'; `name`: the operation, when it is not the command's first key. */
function startCommand (serverAddress, ns, cmd, name = commandName(cmd)) {
  try {
    if (cmd === null || typeof cmd !== 'object') return null
    if (name === null || NOT_CALLS.has(name)) return null
    const database = ns !== null && typeof ns === 'object' && typeof ns.db === 'string' ? ns.db : null
    const collection = collectionOf(cmd, name, ns, database)
    const target = collection ?? database ?? ''
    const address = typeof serverAddress === 'string' ? serverAddress : ''
    const dependency = describeDependency('mongodb', address, name, target, () => {
      const { host, port } = serverOf(address)
      const attributes = { 'db.system.name': 'mongodb', 'db.operation.name': name }
      if (collection !== null) attributes['db.collection.name'] = collection
      if (database !== null) attributes['db.namespace'] = database
      if (host !== null) attributes['server.address'] = host
      if (port !== null) attributes['server.port'] = port
      return { system: 'mongodb', operation: name, target, spanName: `${name} ${target}`.trim(), attributes }
    }, database ?? '')
    return startCall(dependency)
  } catch (err) {
    reportInternalError('time a MongoDB command', err)
    return null
  }
}

/** A command's name: its first key (`{ find: 'users', filter }`), read without making an array of its keys. */
function commandName (cmd) {
  if (cmd === null || typeof cmd !== 'object') return null
  // eslint-disable-next-line no-unreachable-loop
  for (const key in cmd) return key
  return null
}

/**
 * The collection a command names (never a value of its query): `{ find: 'users' }`, `{ getMore: id, collection }`,
 * 3.x's `{ find: 'db.users' }` (without its database).
 */
function collectionOf (cmd, name, ns, database = null) {
  const value = cmd[name]
  if (typeof value === 'string') return database !== null && value.startsWith(database + '.') ? value.slice(database.length + 1) : value
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
