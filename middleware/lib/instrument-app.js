'use strict'

const { layerInfo, paramInfo, containerInfo } = require('./function-names')
const { FunctionLookup } = require('./function-lookup')
const { isNestRouteHandler, prepareNest } = require('./nest')
const { reportInternalError } = require('./internal-errors')
const { unwrapFunction, expressInstrumentationOf } = require('./foreign-wrappers')
const {
  layerMethodNames,
  wrapSegmentLayer,
  wrapHandlerLayer,
  wrapPipelineLayer,
  wrapContainerLayer,
  wrapRouteLayer,
  markUntimedLayer,
  isWrapped,
  wrapParamCallback,
  copyFunctionIdentity,
  kWrapped
} = require('./wrap-layer')
const { RouteTemplate, routePath } = require('./operation')

// Finds every layer of an Express app's router tree and makes it timed: app.use middleware, nested
// routers, mounted sub-apps, each handler of each route, param callbacks and error handlers. Works from
// the live objects (req.app), so it needs no preload and does not care about require order. Stacks that
// grow later are re-walked when a request next enters them. It runs on an app's first request, so it does
// no naming: each layer gets a LayerInfo that function-names.js resolves when a name is first needed. The
// one inspector look-up left here is a mounted sub-app's (Express keeps it only in a closure).

const kAppState = Symbol('nodebench.app')
const kRouterState = Symbol('nodebench.router')
const kRouteState = Symbol('nodebench.route')

function isExpressApp (value) {
  return typeof value === 'function' && typeof value.handle === 'function' &&
    typeof value.set === 'function' && typeof value.use === 'function'
}

function isRouter (value) {
  return typeof value === 'function' && Array.isArray(value.stack) && typeof value.handle === 'function'
}

/** Express 4 keeps the router in `app._router`; Express 5 in `app.router` (Express 4's `app.router` throws). */
function routerOf (app) {
  if (app._router !== undefined) return app._router
  try {
    const router = app.router
    return isRouter(router) || (router && Array.isArray(router.stack)) ? router : undefined
  } catch {
    return undefined
  }
}

/**
 * The function a layer runs. express-async-errors (Express 4) replaces every Layer's handle with its `newFn`,
 * which calls the original (`fn` in its closure) and copies the original's own enumerable properties. A router's
 * `stack` and `params` and nodebench's own `breakdown` come along, which tells those apart at no cost; for the
 * other layers of an app or a router (one of them may be a mounted app's `mounted_app`) the original is read from
 * the closure (~0.5 ms a layer, once, at instrumentation; a route's handlers never need it).
 */
function runHandle (handle, lookup, selfMiddleware) {
  if (typeof handle !== 'function' || handle.name !== 'newFn' || isRouter(handle) || isRouterCopy(handle)) return handle
  if (handle.breakdown !== undefined && handle.breakdown === selfMiddleware.breakdown) return selfMiddleware
  const wrapped = lookup.closureValue(handle, 'fn', 1)
  return typeof wrapped === 'function' ? wrapped : handle
}

/** A copy of a router's own properties on another function (express-async-errors' `newFn`), which runs the router. */
function isRouterCopy (value) {
  return typeof value === 'function' && Array.isArray(value.stack) && value.params !== null && typeof value.params === 'object'
}

function rootOf (app) {
  let root = app
  const seen = new Set()
  while (root.parent && isExpressApp(root.parent) && !seen.has(root.parent)) {
    seen.add(root)
    root = root.parent
  }
  return root
}

class AppInstrumenter {
  /**
   * @param {object} hooks
   * @param {Function} hooks.selfMiddleware the nodebenchTrace() function itself (not timed)
   * @param {(app: Function) => void} hooks.onRootApp called once with the root app, to wrap app.handle
   * @param {(instrumentation: object) => void} [hooks.onExpressInstrumentation] called once with the app's
   *   instrumentation-express, when its wrappers are found around the layers (foreign-wrappers.js)
   */
  constructor ({ selfMiddleware, onRootApp, onExpressInstrumentation = null }) {
    this.selfMiddleware = selfMiddleware
    this.onRootApp = onRootApp
    this.onExpressInstrumentation = onExpressInstrumentation
    // Whether a wrapper of another instrumentation was looked into already (once: an inspector look-up).
    this.foreignWrapperSeen = false
  }

  isInstrumented (app) {
    return app !== undefined && app[kAppState] !== undefined
  }

  /** Instruments the whole tree that `app` belongs to (from its root down). */
  instrumentTree (app) {
    const root = rootOf(app)
    if (root[kAppState] !== undefined && app[kAppState] !== undefined) return
    this.withLookup((lookup) => {
      if (root[kAppState] === undefined) {
        this.instrumentApp(root, lookup)
        this.onRootApp(root)
      }
      // An app reached only through a sub-app we could not see into (see discoverFrom).
      if (app[kAppState] === undefined) this.instrumentApp(app, lookup)
    })
  }

  /** Runs `work(lookup)`; the lookup opens an inspector session only if a sub-app must be found. */
  withLookup (work) {
    const lookup = new FunctionLookup()
    try {
      work(lookup)
    } catch (err) {
      reportInternalError('instrument app', err)
    } finally {
      lookup.close()
    }
  }

  instrumentApp (app, lookup) {
    const state = { router: undefined }
    Object.defineProperty(app, kAppState, { value: state, configurable: true })
    // Runs on every request for the root app: one length comparison once the router is known.
    state.refresh = () => {
      let router = state.router
      if (router === undefined) {
        router = routerOf(app)
        if (router === undefined) return
        state.router = router
      }
      const known = router[kRouterState]
      if (known === undefined || router.stack.length !== known.knownLength) {
        this.withLookup((l) => this.instrumentRouter(router, l))
      }
    }
    const router = routerOf(app)
    if (router !== undefined) {
      state.router = router
      this.instrumentRouter(router, lookup)
    }
    return state
  }

  /** Re-walks the app's router if its stack grew since the last walk (one length check per request). */
  refreshApp (app) {
    const state = app[kAppState]
    if (state !== undefined) state.refresh()
  }

  instrumentRouter (router, lookup) {
    let state = router[kRouterState]
    if (state === undefined) {
      state = { knownLength: -1, handlesPromises: false }
      Object.defineProperty(router, kRouterState, { value: state, configurable: true })
      this.watchParams(router)
    }
    const stack = router.stack
    for (let i = 0; i < stack.length; i++) {
      const layer = stack[i]
      if (isWrapped(layer)) continue
      try {
        this.instrumentLayer(layer, lookup)
      } catch (err) {
        reportInternalError('instrument layer', err)
      }
      const names = layerMethodNames(layer)
      if (names !== null && names[0] === 'handleRequest') state.handlesPromises = true
    }
    state.knownLength = stack.length
    this.wrapParams(router, state.handlesPromises)
  }

  instrumentLayer (layer, lookup) {
    // The app's function under whatever another instrumentation put around it (instrumentation-express's
    // `patched`, express-async-errors' `newFn`): what the layer is, and how it is named, are the app's function's.
    const unwrapped = unwrapFunction(layer.handle)
    if (unwrapped !== layer.handle) this.foundForeignWrapper(layer.handle, lookup)
    const handle = runHandle(unwrapped, lookup, this.selfMiddleware)
    if (handle === this.selfMiddleware || typeof handle !== 'function') {
      markUntimedLayer(layer)
      return
    }
    if (layer.route) {
      const route = layer.route
      this.instrumentRoute(route, lookup)
      // The route's own template is fixed; joined to the mount prefix, it is the same string from one request to
      // the next (prefixes are cached per mount), so the operation's look-up compares it by identity.
      wrapRouteLayer(layer, new RouteTemplate(routePath(route.path), () => this.refreshRoute(route)))
      return
    }
    if (isRouter(handle) || isRouterCopy(handle)) {
      this.instrumentRouter(handle, lookup)
      wrapContainerLayer(layer, containerInfo('router'), {
        refresh: () => {
          if (handle.stack.length !== handle[kRouterState].knownLength) {
            this.withLookup((l) => this.instrumentRouter(handle, l))
          }
        },
        discover: null
      })
      return
    }
    if (handle.name === 'mounted_app') {
      // Express mounts a sub-app through a closure `function mounted_app () { fn.handle(...) }`.
      const subApp = lookup.closureValue(handle, 'fn')
      const known = isExpressApp(subApp)
      if (known && subApp[kAppState] === undefined) this.instrumentApp(subApp, lookup)
      wrapContainerLayer(layer, containerInfo('app'), {
        refresh: known ? () => this.refreshApp(subApp) : () => {},
        // Without the inspector the sub-app shows itself as req.app once inside: instrument it then.
        discover: known ? null : (req) => this.discoverFrom(req)
      })
      return
    }
    // Express tells an error handler by the arity of the function it calls (a wrapper's, if there is one).
    const kind = layer.handle.length === 4 ? 'error-handler' : 'middleware'
    wrapSegmentLayer(layer, layerInfo(kind, handle))
  }

  /** The first wrapper of another instrumentation: tells whose it is, when it is instrumentation-express's. */
  foundForeignWrapper (wrapper, lookup) {
    if (this.foreignWrapperSeen || this.onExpressInstrumentation === null) return
    this.foreignWrapperSeen = true
    const instrumentation = expressInstrumentationOf(wrapper, lookup)
    if (instrumentation !== null) this.onExpressInstrumentation(instrumentation)
  }

  discoverFrom (req) {
    const app = req.app
    if (isExpressApp(app) && app[kAppState] === undefined) this.instrumentTree(app)
  }

  instrumentRoute (route, lookup) {
    let state = route[kRouteState]
    if (state === undefined) {
      state = { knownLength: -1 }
      Object.defineProperty(route, kRouteState, { value: state, configurable: true })
    }
    for (const layer of route.stack) {
      if (isWrapped(layer) || typeof layer.handle !== 'function') continue
      const handle = unwrapFunction(layer.handle)
      // A NestJS route: its pipeline's units are the segments (nest/), once Nest's classes are found.
      if (handle.length !== 4 && isNestRouteHandler(handle) && prepareNest(handle, lookup)) {
        wrapPipelineLayer(layer, layerInfo('route', handle))
        continue
      }
      wrapHandlerLayer(layer, layerInfo(layer.handle.length === 4 ? 'error-handler' : 'handler', handle))
    }
    state.knownLength = route.stack.length
  }

  refreshRoute (route) {
    if (route.stack.length === route[kRouteState].knownLength) return
    this.withLookup((lookup) => this.instrumentRoute(route, lookup))
  }

  /** `router.param(name, fn)` / `app.param(...)` after instrumentation: wrap the new callbacks at once. */
  watchParams (router) {
    const original = router.param
    if (typeof original !== 'function') return
    const instrumenter = this
    const param = function param (name, fn) {
      const result = original.apply(this, arguments)
      instrumenter.safely(() => instrumenter.wrapParams(router, router[kRouterState].handlesPromises))
      return result
    }
    copyFunctionIdentity(original, param)
    router.param = param
  }

  wrapParams (router, handlesPromises) {
    const params = router.params
    if (params === null || typeof params !== 'object') return
    for (const name of Object.keys(params)) {
      const callbacks = params[name]
      if (!Array.isArray(callbacks)) continue
      for (let i = 0; i < callbacks.length; i++) {
        const fn = callbacks[i]
        if (typeof fn !== 'function' || fn[kWrapped] === true) continue
        callbacks[i] = wrapParamCallback(fn, paramInfo(fn, name), handlesPromises)
      }
    }
  }

  safely (work) {
    try {
      work()
    } catch (err) {
      reportInternalError('instrument app', err)
    }
  }
}

module.exports = { AppInstrumenter, routerOf, rootOf, isExpressApp, isRouter }
