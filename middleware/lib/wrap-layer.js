'use strict'

const { recordOf } = require('./request-record')
const { reportInternalError } = require('./internal-errors')
const { routePath } = require('./operation')

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

// `req.next` is stored by name: `next` is a name V8 checks its protectors for, and a keyed store of it goes through
// the runtime every time (Runtime_SetKeyedProperty and a protector check: ~35,000 instructions per request of 11
// layers on Node.js 24, where a named store keeps a handler in generated code; on 20 and 22 no cheaper than the
// named store's miss). It is read by name where requests share their maps (Node.js 24: V8 13), and by a computed
// key where every request has a map of its own (Node.js 20 and 22: Express's Object.setPrototypeOf gives each
// request a new map there): a named read then misses V8's inline and stub caches and calls into the runtime
// (Runtime_LoadIC_Miss: ~760 instructions a read on Node.js 20 and 22), where a keyed read looks the property up
// in generated code (~210); on Node.js 24 the keyed read is the dearer (benchmarks/LOG.md, "req.next read by key").
// The choice is written out where `req.next` is read, not in a function of its own: each read keeps its own
// inline cache (a shared function's would see every site's maps).
const NEXT = 'next'
const NEXT_BY_KEY = Number(process.versions.v8.split('.')[0]) < 13

// One `next` per segment: it must know which segment it closes, since a layer may call it late, twice,
// or after the response has finished. It is the one allocation per layer per request nodebench makes: an arrow
// function, which has no prototype slot (112 bytes with its context on Node.js 24, 120 as a `function`).
function segmentNext (record, index, next) {
  const nodebenchNext = (err) => {
    if (!record.done) record.closeEntry(index, err)
    return next(err)
  }
  return nodebenchNext
}

// Express keeps `req.next` equal to the `next` a router-level layer receives (its router sets `req.next` once,
// to the `next` it hands every layer), and code relies on it: `res.format` calls the chosen handler with
// `req.next`, apps store or compare it. So while a timed router-level layer runs, `req.next` is the `next`
// nodebench hands it. It is written where Express's would be found: when `req.next` is Express's `next` for
// the layer, or the one nodebench wrote last (`record.ownNext`), which stands for it and calls it. It is not
// put back when the segment ends (the next layer writes its own: one store of `req.next` per layer instead of
// two, each of which misses V8's caches on Node.js 20 and 22, where every request has a map of its own); the
// record puts Express's back when the response finishes. Where the two differ in Express (a route's handlers,
// a param callback), nodebench does not touch `req.next`; where an app wrote a `req.next` of its own, neither.

/** Opens a segment for a router-level `layer`: its `next`, which is `req.next` where Express's would be. */
function openSegment (record, layer, req, next) {
  const segmentEnd = segmentNext(record, record.openEntry(layer[kInfo]), next)
  const current = NEXT_BY_KEY ? req[NEXT] : req.next
  if (current === next || (current === record.ownNext && current !== null)) {
    req.next = segmentEnd
    record.ownNext = segmentEnd
    record.ownNextFor = next
  }
  return segmentEnd
}

/** Puts Express's `req.next` back when the request ends, where nodebench's is still there. */
function restoreNext (record, req) {
  if (record.ownNext !== null && req !== null) {
    const current = NEXT_BY_KEY ? req[NEXT] : req.next
    if (current === record.ownNext) req.next = record.ownNextFor
  }
  record.ownNext = null
  record.ownNextFor = null
}

/** Opens a segment for a layer of a route's own stack, which Express hands the route's `next` (not `req.next`). */
function openHandlerSegment (record, layer, next) {
  return segmentNext(record, record.openEntry(layer[kInfo]), next)
}

/**
 * A router or mounted app is left through its `done`, once Express has put `req.next` back as it was when the
 * router was entered: nodebench's `req.next` of that moment is its own again.
 */
function containerNext (record, index, next, ownNext, ownNextFor) {
  return function nodebenchContainerExit (err) {
    if (!record.done) {
      record.exitContainer(index)
      record.ownNext = ownNext
      record.ownNextFor = ownNextFor
    }
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

// recordOf() never answers a finished record (trace.js detaches it first): the wrappers need not ask.

function requestWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    // A handler with four arguments is skipped by Express on the request path: no segment.
    if (record === undefined || arityOf(this) > 3) return original.call(this, req, res, next)
    return original.call(this, req, res, openSegment(record, this, req, next))
  }
}

/** A function of a route's own stack (`app.get(path, a, b, c)`: three of them). */
function handlerWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || arityOf(this) > 3) return original.call(this, req, res, next)
    return original.call(this, req, res, openHandlerSegment(record, this, next))
  }
}

/**
 * A route handler that runs a framework's pipeline (a NestJS route): its entry is a container (kind `route`)
 * whose units (nest/) are the segments; while it is open, units go under it.
 */
function pipelineWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || arityOf(this) > 3) return original.call(this, req, res, next)
    const segmentEnd = openHandlerSegment(record, this, next)
    record.routeEntry = record.segmentCount - 1
    return original.call(this, req, res, segmentEnd)
  }
}

function errorWrapper (original) {
  return function handleError (error, req, res, next) {
    const record = recordOf(res)
    // Only four-argument handlers see errors; Express passes others by.
    if (record === undefined || arityOf(this) !== 4) return original.call(this, error, req, res, next)
    return original.call(this, error, req, res, openSegment(record, this, req, next))
  }
}

/** An error handler of a route's own stack (`app.get(path, handler, errorHandler)`). */
function handlerErrorWrapper (original) {
  return function handleError (error, req, res, next) {
    const record = recordOf(res)
    if (record === undefined || arityOf(this) !== 4) return original.call(this, error, req, res, next)
    return original.call(this, error, req, res, openHandlerSegment(record, this, next))
  }
}

function containerWrapper (original) {
  return function handleRequest (req, res, next) {
    const record = recordOf(res)
    if (record === undefined || record.done) return original.call(this, req, res, next)
    const container = this[kContainer]
    container.refresh()
    const index = record.enterContainer(this[kInfo], req, this)
    const result = original.call(this, req, res, containerNext(record, index, next, record.ownNext, record.ownNextFor))
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
    record.route = container.templateUnder(record.prefix)
    const current = NEXT_BY_KEY ? req[NEXT] : req.next
    if (current !== next && (current !== record.ownNext || current === null)) return original.call(this, req, res, next)
    const routeEnd = routeExit(record, record.segmentCount, next)
    req.next = routeEnd
    record.ownNext = routeEnd
    record.ownNextFor = next
    return original.call(this, req, res, routeEnd)
  }
}

function routeExit (record, firstEntry, next) {
  return function nodebenchRouteExit (err) {
    if (!record.done) record.closeOpenEntries(firstEntry)
    return next(err)
  }
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

/** Times a router-level layer (middleware, error handler). */
function wrapSegmentLayer (layer, info) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, null,
    cachedWrapper('request', layer[names[0]], requestWrapper),
    cachedWrapper('error', layer[names[1]], errorWrapper))
  return true
}

/** Times a layer of a route's own stack (a handler, or an error handler among them). */
function wrapHandlerLayer (layer, info) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, null,
    cachedWrapper('handler', layer[names[0]], handlerWrapper),
    cachedWrapper('handler-error', layer[names[1]], handlerErrorWrapper))
  return true
}

/** A route handler running a framework's pipeline, whose units are the segments (pipelineWrapper). */
function wrapPipelineLayer (layer, info) {
  const names = layerMethodNames(layer)
  if (names === null) return false
  setLayerState(layer, names, info, null,
    cachedWrapper('pipeline', layer[names[0]], pipelineWrapper),
    cachedWrapper('handler-error', layer[names[1]], handlerErrorWrapper))
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
      result = fn.call(this, req, res, segmentNext(record, index, next), value, name)
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
  wrapHandlerLayer,
  wrapPipelineLayer,
  wrapContainerLayer,
  wrapRouteLayer,
  markUntimedLayer,
  isWrapped,
  restoreNext,
  wrapParamCallback,
  copyFunctionIdentity
}
