'use strict'

const { recordOf } = require('./request-record')
const { reportInternalError } = require('./internal-errors')

// How a layer is timed without replacing the user's function: Express calls
// `layer.handle_request(req, res, next)` / `layer.handle_error(err, req, res, next)` (Express 4), or
// `layer.handleRequest` / `layer.handleError` (router 2, Express 5). nodebench puts an own property of the
// same name on the layer instance that opens a segment and calls the prototype's method with a `next` that
// closes it. Express's own try/catch and promise handling stay in charge, so sync throws and rejected
// promises reach our `next` exactly as they reach Express's; `layer.handle` stays the user's function,
// so its arity, name and properties are untouched.

const kInfo = Symbol('nodebench.layerInfo')
const kContainer = Symbol('nodebench.container')
// The layer's function when it was last looked at, and its arity: `fn.length` is read through a C++ accessor,
// ~20-40 ns a read on the request path, so it is read again only when the layer's `handle` has changed.
const kHandle = Symbol('nodebench.handle')
const kArity = Symbol('nodebench.arity')
const kWrapped = Symbol('nodebench.wrapped')
const kOriginal = Symbol('nodebench.original')

const METHOD_NAMES = [
  ['handle_request', 'handle_error'],
  ['handleRequest', 'handleError']
]

/** The method names this layer's class uses, or null for a layer shape nodebench does not know. */
function layerMethodNames (layer) {
  for (const names of METHOD_NAMES) {
    if (typeof layer[names[0]] === 'function') return names
  }
  return null
}

// `req.next` by name, not by a computed key as the other per-request reads (request-record.js): `next` is a
// name V8 checks its protectors for, and a keyed store of it went through the runtime every time
// (Runtime_SetKeyedProperty and a protector check under callgrind: ~35,000 instructions per request of 11
// layers on Node.js 24, 9% of the bare app's; benchmarks/README.md, "Instructions by Node.js version").
// A named store keeps a handler in generated code.

// One `next` per segment: it must know which segment it closes, since a layer may call it late, twice,
// or after the response has finished. It is the one allocation per layer per request nodebench makes.
//
// Express keeps `req.next` equal to the `next` a layer receives (its router sets both), and code relies on
// it: `res.format` calls the chosen handler with `req.next`, apps store or compare it. So while a timed
// layer runs, `req.next` is this function too; when the segment ends it is Express's own again, as the
// layers after it (untimed ones included) would find it without nodebench. Where the two differ in Express
// (a param callback's `next`), nodebench does not touch `req.next`.
function segmentNext (record, index, next, req) {
  return function nodebenchNext (err) {
    if (!record.done) record.closeEntry(index, err)
    if (req.next === nodebenchNext) req.next = next
    return next(err)
  }
}

/** Opens a segment for `layer` and returns the `next` that closes it, installed as `req.next` where Express's is. */
function openSegment (record, layer, req, next) {
  const segmentEnd = segmentNext(record, record.openEntry(layer[kInfo]), next, req)
  if (req.next === next) req.next = segmentEnd
  return segmentEnd
}

function containerNext (record, index, next) {
  return function nodebenchContainerExit (err) {
    if (!record.done) record.exitContainer(index)
    return next(err)
  }
}

const wrapperCache = new Map()

function cachedWrapper (kind, original, make) {
  let byKind = wrapperCache.get(original)
  if (byKind === undefined) {
    byKind = new Map()
    wrapperCache.set(original, byKind)
  }
  let wrapper = byKind.get(kind)
  if (wrapper === undefined) {
    wrapper = make(original)
    byKind.set(kind, wrapper)
  }
  return wrapper
}

/** The arity of the layer's function (what Express decides by: 4 arguments is an error handler). */
function arityOf (layer) {
  const handle = layer.handle
  if (handle !== layer[kHandle]) {
    layer[kHandle] = handle
    layer[kArity] = typeof handle === 'function' ? handle.length : 0
  }
  return layer[kArity]
}

function requestWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    // A handler with four arguments is skipped by Express on the request path: no segment.
    if (record === undefined || record.done || arityOf(this) > 3) return original.call(this, req, res, next)
    return original.call(this, req, res, openSegment(record, this, req, next))
  }
}

/**
 * A route handler that runs a framework's pipeline (a NestJS route): its entry is a container (kind `route`)
 * whose units (nest-adapter.js) are the segments; while it is open, units go under it.
 */
function pipelineWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || record.done || arityOf(this) > 3) return original.call(this, req, res, next)
    const segmentEnd = openSegment(record, this, req, next)
    record.routeEntry = record.segmentCount - 1
    return original.call(this, req, res, segmentEnd)
  }
}

function errorWrapper (original) {
  return function handleError (error, req, res, next) {
    const record = recordOf(res)
    // Only four-argument handlers see errors; Express passes others by.
    if (record === undefined || record.done || arityOf(this) !== 4) return original.call(this, error, req, res, next)
    return original.call(this, error, req, res, openSegment(record, this, req, next))
  }
}

function containerWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || record.done) return original.call(this, req, res, next)
    const container = this[kContainer]
    container.refresh()
    const index = record.enterContainer(this[kInfo], req, this)
    const result = original.call(this, req, res, containerNext(record, index, next))
    if (container.discover !== null) container.discover(req)
    return result
  }
}

/**
 * A route's handlers get the route's own `next`, while `req.next` stays the router's: Express itself calls
 * `req.next` on a handler's behalf (res.format's 406, res.render's error), and so may the handler. Leaving the
 * route that way leaves the handler too: the route's layer gets a `next` that ends the segments still open in
 * the route before it calls the router's, and it is `req.next` while the route runs (as the router's `next` is
 * `req.next` for every layer of the router), Express's own again once the route is left.
 */
function routeWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || record.done) return original.call(this, req, res, next)
    const container = this[kContainer]
    container.refresh()
    record.route = record.prefix + container.path
    if (req.next !== next) return original.call(this, req, res, next)
    const routeEnd = routeExit(record, record.segmentCount, next, req)
    req.next = routeEnd
    return original.call(this, req, res, routeEnd)
  }
}

function routeExit (record, firstEntry, next, req) {
  return function nodebenchRouteExit (err) {
    if (!record.done) record.closeOpenEntries(firstEntry)
    if (req.next === nodebenchRouteExit) req.next = next
    return next(err)
  }
}

function routePath (path) {
  if (typeof path === 'string') return path
  if (Array.isArray(path)) return path.map(routePath).join('|')
  return String(path)
}

/**
 * Every instrumented layer gets the same own properties, in the same order: [kInfo], [kContainer],
 * [kHandle], [kArity], then the request and error methods. Express's router reads properties of every layer
 * it passes; layers of one shape keep those reads monomorphic (different shapes per kind of layer measured
 * ~4 µs per request slower in the router's own `next`).
 */
function setLayerState (layer, names, info, container, requestMethod, errorMethod) {
  layer[kInfo] = info
  layer[kContainer] = container
  const handle = layer.handle
  layer[kHandle] = handle
  layer[kArity] = typeof handle === 'function' ? handle.length : 0
  layer[names[0]] = requestMethod
  layer[names[1]] = errorMethod
}

/** Times a plain layer (middleware, route handler, error handler). */
function wrapSegmentLayer (layer, info) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, null,
    cachedWrapper('request', layer[names[0]], requestWrapper),
    cachedWrapper('error', layer[names[1]], errorWrapper))
  return true
}

/** A route handler running a framework's pipeline, whose units are the segments (pipelineWrapper). */
function wrapPipelineLayer (layer, info) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, null,
    cachedWrapper('pipeline', layer[names[0]], pipelineWrapper),
    cachedWrapper('error', layer[names[1]], errorWrapper))
  return true
}

/** A router or mounted app: entered and left, its children are the segments. */
function wrapContainerLayer (layer, info, container) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, container, cachedWrapper('container', layer[names[0]], containerWrapper), layer[names[1]])
  return true
}

/** A route's layer: records the matched route template; the route's own handlers are the segments. */
function wrapRouteLayer (layer, container) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, null, container, cachedWrapper('route', layer[names[0]], routeWrapper), layer[names[1]])
  return true
}

/** A layer nodebench does not time (nodebenchTrace itself): same shape, Express's own methods. */
function markUntimedLayer (layer) {
  const names = layerMethodNames(layer)
  if (names === null) {
    layer[kInfo] = null
    return
  }
  setLayerState(layer, names, null, null, layer[names[0]], layer[names[1]])
}

function isWrapped (layer) {
  return layer[kInfo] !== undefined
}

/**
 * A param callback is called by Express directly (`fn(req, res, next, value, name)`), so it is wrapped.
 * The wrapper keeps the original's arity, name and own properties and is never wrapped again.
 * `handlesPromises`: router 2 (Express 5) turns a rejected promise into next(err) with its own callback,
 * so the segment is closed from the promise; Express 4 leaves a rejection unhandled, and so must we.
 */
function wrapParamCallback (fn, info, handlesPromises) {
  if (fn[kWrapped] === true) return fn
  const wrapped = function (req, res, next, value, name) {
    const record = recordOf(res)
    if (record === undefined || record.done) return fn.apply(this, arguments)
    // Express runs param callbacks after it matched the route (req.route is set) but before the route's
    // own layer: a request that ends in a param callback (404, 400, a database error) belongs to that route.
    const route = req.route
    if (route !== undefined && route !== null) record.route = record.prefix + routePath(route.path)
    const index = record.openEntry(info)
    let result
    try {
      // Express hands a param callback a `next` of its own, not req.next: left as it is.
      result = fn.call(this, req, res, segmentNext(record, index, next, req), value, name)
    } catch (err) {
      record.closeEntry(index, err)
      throw err
    }
    if (handlesPromises && result !== null && typeof result === 'object' && typeof result.then === 'function') {
      result.then(null, function closeRejectedParam (err) {
        record.closeEntry(index, err || new Error('Rejected promise'))
      })
    }
    return result
  }
  copyFunctionIdentity(fn, wrapped)
  return wrapped
}

function copyFunctionIdentity (original, wrapper) {
  try {
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'prototype' || key === 'arguments' || key === 'caller') continue
      const descriptor = Object.getOwnPropertyDescriptor(original, key)
      if (descriptor.configurable === false && key !== 'length' && key !== 'name') continue
      Object.defineProperty(wrapper, key, descriptor)
    }
    Object.setPrototypeOf(wrapper, Object.getPrototypeOf(original))
  } catch (err) {
    reportInternalError('copy function properties', err)
  }
  Object.defineProperty(wrapper, kWrapped, { value: true })
  Object.defineProperty(wrapper, kOriginal, { value: original })
}

module.exports = {
  kInfo,
  kContainer,
  kWrapped,
  kOriginal,
  layerMethodNames,
  wrapSegmentLayer,
  wrapPipelineLayer,
  wrapContainerLayer,
  wrapRouteLayer,
  markUntimedLayer,
  isWrapped,
  wrapParamCallback,
  copyFunctionIdentity,
  routePath
}
