'use strict'

// Finding Nest and patching its core: the classes Nest's route handlers call at run time, loaded from the
// copy of @nestjs/core the process has loaded, get a timing shadow on six methods of their prototypes (each
// kind's shadow is in its own module: handler.js, guards.js, interceptors.js, pipes.js, reply.js, filters.js).

const path = require('path')
const { reportInternalError } = require('../internal-errors')
const { shadowCreateNullArray } = require('./handler')
const { shadowTryActivate } = require('./guards')
const { shadowIntercept } = require('./interceptors')
const { shadowPipes } = require('./pipes')
const { shadowResponse } = require('./reply')
const { shadowExceptions } = require('./filters')

const NEST_CORE = ['node_modules', '@nestjs', 'core']
const kPatched = Symbol('nodebench.nestPatched')

let prepared = null

/** Whether `fn` is a route handler Nest registered (the controller method's metadata copied onto it). */
function isNestRouteHandler (fn) {
  const getMetadata = Reflect.getMetadata
  if (typeof getMetadata !== 'function') return false
  try {
    return getMetadata('path', fn) !== undefined && getMetadata('method', fn) !== undefined
  } catch {
    return false
  }
}

/**
 * Finds Nest in the process and shadows its pipeline once; true when its units can be timed. `handler`: a
 * route handler Nest made, and `lookup` (function-names.js) to find its file when nothing else tells where
 * Nest is.
 */
function prepareNest (handler, lookup) {
  if (prepared === null) {
    prepared = false
    try {
      let dirs = nestCoreDirs()
      if (dirs.size === 0) dirs = nestCoreDirOf(handler, lookup)
      for (const dir of dirs) {
        if (shadowNest(dir)) prepared = true
      }
    } catch (err) {
      reportInternalError('find NestJS', err)
    }
  }
  return prepared
}

/** The folder of the @nestjs/core a function of Nest's comes from, found through the inspector (a few ms). */
function nestCoreDirOf (handler, lookup) {
  const dirs = new Set()
  const file = lookup.fileOf(handler)
  if (file !== null) {
    const dir = coreDirOf(file)
    if (dir !== null) dirs.add(dir)
  }
  return dirs
}

function coreDirOf (file) {
  const parts = file.split(path.sep)
  for (let i = parts.length - NEST_CORE.length; i >= 0; i--) {
    if (NEST_CORE.every((part, j) => parts[i + j] === part)) return parts.slice(0, i + NEST_CORE.length).join(path.sep)
  }
  return null
}

/** The folders of the @nestjs/core copies loaded: CommonJS's module cache, else resolved as the app would. */
function nestCoreDirs () {
  const dirs = new Set()
  for (const file of Object.keys(require.cache)) {
    const dir = file.includes('@nestjs') ? coreDirOf(file) : null
    if (dir !== null) dirs.add(dir)
  }
  if (dirs.size > 0) return dirs
  // ES modules (Nest 12 imported by an ES module app) are not in require.cache: resolved from where the app is.
  const from = [process.argv[1] && path.dirname(path.resolve(process.argv[1])), process.cwd()].filter(Boolean)
  for (const dir of from) {
    try {
      dirs.add(path.dirname(require.resolve('@nestjs/core/package.json', { paths: [dir] })))
      break
    } catch {}
  }
  return dirs
}

/** Loads the classes of one @nestjs/core (the instances the app uses: modules are cached by file) and shadows them. */
function shadowNest (dir) {
  const load = (file, name) => {
    const exported = require(path.join(dir, file))[name]
    if (typeof exported !== 'function') throw new Error(`${name} not found in @nestjs/core/${file}`)
    return exported.prototype
  }
  const prototypes = {
    contextUtils: load('helpers/context-utils.js', 'ContextUtils'),
    guards: load('guards/guards-consumer.js', 'GuardsConsumer'),
    interceptors: load('interceptors/interceptors-consumer.js', 'InterceptorsConsumer'),
    pipes: load('pipes/pipes-consumer.js', 'PipesConsumer'),
    response: load('router/router-response-controller.js', 'RouterResponseController'),
    exceptions: load('exceptions/exceptions-handler.js', 'ExceptionsHandler')
  }
  if (Object.hasOwn(prototypes.guards, kPatched)) return true
  for (const [name, prototype] of [['createNullArray', prototypes.contextUtils], ['tryActivate', prototypes.guards],
    ['intercept', prototypes.interceptors], ['apply', prototypes.pipes], ['apply', prototypes.response],
    ['next', prototypes.exceptions]]) {
    if (typeof prototype[name] !== 'function') throw new Error(`@nestjs/core in ${dir} has no ${name}()`)
  }
  shadow(prototypes.contextUtils, 'createNullArray', shadowCreateNullArray)
  shadow(prototypes.guards, 'tryActivate', shadowTryActivate)
  shadow(prototypes.interceptors, 'intercept', shadowIntercept)
  shadow(prototypes.pipes, 'apply', shadowPipes)
  for (const method of ['apply', 'render', 'redirect', 'stream']) {
    if (typeof prototypes.response[method] === 'function') shadow(prototypes.response, method, shadowResponse)
  }
  shadow(prototypes.exceptions, 'next', shadowExceptions)
  Object.defineProperty(prototypes.guards, kPatched, { value: true })
  return true
}

/** Replaces `prototype[name]` with `make(original, name)`, keeping its name and length. */
function shadow (prototype, name, make) {
  const original = prototype[name]
  const replacement = make(original, name)
  Object.defineProperty(replacement, 'name', { value: original.name, configurable: true })
  Object.defineProperty(replacement, 'length', { value: original.length, configurable: true })
  Object.defineProperty(prototype, name, {
    value: replacement,
    writable: true,
    configurable: true,
    enumerable: Object.getOwnPropertyDescriptor(prototype, name).enumerable
  })
}

module.exports = { isNestRouteHandler, prepareNest }
