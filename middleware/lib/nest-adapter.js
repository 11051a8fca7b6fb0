'use strict'

const path = require('path')
const { recordOf } = require('./request-record')
const { layerInfo, classInfo, fixedInfo } = require('./function-names')
const { reportInternalError } = require('./internal-errors')

// NestJS on its Express adapter runs a pipeline of its own inside one Express route handler: guards,
// interceptors (their code before the handler and after it), pipes (one per parameter), the controller method,
// then Nest writes the reply; an exception filter answers what any of them throws. This adapter makes each of
// them a segment of its own (kinds guard, interceptor, pipe, handler, response, filter), siblings in the order
// they run, under the route's entry (kind `route`, a container like a router: Nest's glue between the units is
// unattributed).
//
// It is found from the app, on its first request (no preload, no require hook): a route handler Nest made
// carries the controller method's reflect-metadata (Nest copies it onto the handler, `path` and `method` among
// it). nodebench then loads the classes Nest's route handlers call at run time, from the copy of @nestjs/core
// the process has loaded (the same module instances: require(), for CommonJS and for Nest 12's ES modules), and
// puts a timing shadow on six methods of their prototypes. Each looks up the request's record from the
// Express response among its arguments and calls Nest's own method; without a record (another context: a
// microservice, a gateway, a request nodebench does not time) it only calls through. Nothing the user wrote is
// replaced but the controller method's `apply`, an own property that calls the method as
// Function.prototype.apply does (Nest calls `callback.apply(instance, args)`; the method itself is unchanged).
//
// What carries the request to the units that have no response among their arguments:
// - the controller method: `args`, the array its arguments are collected in. ContextUtils#createNullArray
//   makes it at the start of the route's handler, which then calls GuardsConsumer#tryActivate or
//   InterceptorsConsumer#intercept synchronously, with the response: the first of them pairs the two.
// - pipes: the handler runs them synchronously from its start (before its first await), which the timed
//   `next` that intercept() receives marks.

const NEST_CORE = ['node_modules', '@nestjs', 'core']
const kPatched = Symbol('nodebench.nestPatched')

// The pipeline's units: what ran (its class and method), kept once per class (and parameter, for pipes).
const guardInfos = new WeakMap()
const interceptorInfos = new WeakMap()
const pipeInfos = new WeakMap()
const handlerInfos = new WeakMap()
const filterInfos = new WeakMap()
// The look-ups below run on every request of a Nest route, whose requests mostly come in runs: each keeps the
// last thing it was asked about and its answer (compared by identity) in front of its maps.
const timedGuardLists = newListCache()
const timedInterceptorLists = newListCache()
const hookedMethods = new WeakSet()
let lastHooked = null
const lastHandler = { method: null, instance: null, info: null }
// A pipe's info by the pipe and the parameter it transforms: Nest gives every call a metadata object of its own,
// and a parameter's pipes run one after another (`@Query('limit', DefaultValuePipe, ParseIntPipe)`): the last
// few answers are kept, compared by the pipe and the metadata's type and data.
const PIPE_MEMO_SIZE = 4
const pipeMemo = Array.from({ length: PIPE_MEMO_SIZE }, () => ({
  pipe: null, type: undefined, data: undefined, info: null
}))
let pipeMemoNext = 0
const RESPONSE_INFOS = {
  apply: fixedInfo('response', 'reply'),
  redirect: fixedInfo('response', 'redirect'),
  stream: fixedInfo('response', 'stream')
}
const renderInfos = new Map()
const BUILT_IN_FILTER = fixedInfo('filter', 'BaseExceptionFilter')

// The record of a controller call's args array, under a symbol of nodebench's own: a property store on an
// array Nest made for this call and holds privately, cheaper than a WeakMap's set (request-record.js).
const kArgsRecord = Symbol('nodebench.argsRecord')
// The args array ContextUtils#createNullArray made last, until the consumer call after it takes it.
let pendingArgs = null
// The record of the route whose handler (pipes, then the controller method) runs synchronously right now.
let pipeRecord = null

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

/** The record of the request whose `[req, res, next]` these are, while it is open; else undefined. */
function recordOfArgs (args) {
  if (args === null || typeof args !== 'object') return undefined
  const res = args[1]
  if (res === null || typeof res !== 'object') return undefined
  const record = recordOf(res)
  return record === undefined || record.done ? undefined : record
}

/** Opens a unit of `record`; -1 when that fails (a failure of nodebench's never reaches the app). */
function openUnit (record, info, err = null) {
  try {
    return record.openUnit(info, err)
  } catch (error) {
    reportInternalError('time a Nest unit', error)
    return -1
  }
}

function closeUnit (record, index, err) {
  if (index === -1) return
  try {
    record.closeEntry(index, err)
  } catch (error) {
    reportInternalError('time a Nest unit', error)
  }
}

/** Pairs the controller's args array made just before with `record` (undefined: another context's). */
function takeArgs (record) {
  const args = pendingArgs
  pendingArgs = null
  if (args !== null && record !== undefined) args[kArgsRecord] = record
}

function shadowCreateNullArray (original) {
  return function (length) {
    const args = original.apply(this, arguments)
    pendingArgs = args
    return args
  }
}

// Each shadow calls Nest's own method once, whatever nodebench's part of it does: that part is in a
// function of its own that reports its failures (internal-errors.js) and answers null, so the app never sees
// them. (No closure is made per call: these run several times on every request.)

function shadowTryActivate (original) {
  return function (guards, args, instance, callback, type) {
    const timedGuards = timedGuardsOf(guards, args, callback, type)
    if (timedGuards === null) return original.apply(this, arguments)
    return original.call(this, timedGuards, args, instance, callback, type)
  }
}

/** The route's guards, each timed, when they run for a request nodebench times; else null. */
function timedGuardsOf (guards, args, callback, type) {
  try {
    const record = type === 'http' ? recordOfArgs(args) : undefined
    takeArgs(record)
    if (record === undefined || !Array.isArray(guards) || guards.length === 0) return null
    hookControllerMethod(callback)
    return timedList(timedGuardLists, guards, timedGuard)
  } catch (err) {
    reportInternalError('time Nest guards', err)
    return null
  }
}

function shadowIntercept (original) {
  return function (interceptors, args, instance, callback, next, type) {
    const record = recordToIntercept(args, callback, next, type)
    if (record === undefined) return original.apply(this, arguments)
    const timedInterceptors = timedInterceptorsOf(interceptors)
    if (timedInterceptors === null) return original.apply(this, arguments)
    return original.call(this, timedInterceptors, args, instance, callback, handlerRunner(record, next), type)
  }
}

/** The record of the request whose route's interceptors and handler are about to run, or undefined. */
function recordToIntercept (args, callback, next, type) {
  try {
    const record = type === 'http' ? recordOfArgs(args) : undefined
    takeArgs(record)
    if (record === undefined || typeof next !== 'function') return undefined
    hookControllerMethod(callback)
    return record
  } catch (err) {
    reportInternalError('time Nest interceptors', err)
    return undefined
  }
}

function timedInterceptorsOf (interceptors) {
  try {
    return Array.isArray(interceptors) && interceptors.length > 0
      ? timedList(timedInterceptorLists, interceptors, timedInterceptor)
      : interceptors
  } catch (err) {
    reportInternalError('time Nest interceptors', err)
    return null
  }
}

/** The route's handler (pipes, then the controller method), marked as running for `record` while it runs. */
function handlerRunner (record, next) {
  return function () {
    const previous = pipeRecord
    pipeRecord = record
    try {
      return next.apply(this, arguments)
    } finally {
      pipeRecord = previous
    }
  }
}

function shadowPipes (original) {
  return function (value, metadata, pipes) {
    const record = pipeRecord
    const timedPipes = record === null || record.done || !Array.isArray(pipes) || pipes.length === 0
      ? null
      : timedPipesOf(record, pipes)
    if (timedPipes === null) return original.apply(this, arguments)
    return original.call(this, value, metadata, timedPipes)
  }
}

function timedPipesOf (record, pipes) {
  try {
    const timed = new Array(pipes.length)
    for (let i = 0; i < pipes.length; i++) timed[i] = timedPipe(record, pipes[i])
    return timed
  } catch (err) {
    reportInternalError('time Nest pipes', err)
    return null
  }
}

function shadowResponse (original, method) {
  return function (result, response) {
    openReply(response, method, arguments[2])
    return original.apply(this, arguments)
  }
}

/** Nest writes the reply: a unit open until the response finishes (or a later unit, a filter, begins). */
function openReply (response, method, template) {
  try {
    const record = response !== null && typeof response === 'object' ? recordOf(response) : undefined
    if (record !== undefined && !record.done) openUnit(record, method === 'render' ? renderInfo(template) : RESPONSE_INFOS[method])
  } catch (err) {
    reportInternalError('time a Nest reply', err)
  }
}

function shadowExceptions (original) {
  return function (exception, host) {
    openFilter(this, exception, host)
    return original.apply(this, arguments)
  }
}

/** An exception filter answers the request: a unit open until the response finishes, the exception its error. */
function openFilter (exceptionsHandler, exception, host) {
  try {
    const record = recordOfContext(host)
    if (record !== undefined) openUnit(record, filterInfo(exceptionsHandler, exception), exception)
  } catch (err) {
    reportInternalError('time a Nest exception filter', err)
  }
}

/** `list` with each element timed by `timed(element)`, made once per list (Nest keeps one per route). */
function timedList (cache, list, timed) {
  let timedElements = cache.list === list ? cache.timed : cache.byList.get(list)
  if (timedElements === undefined || timedElements.length !== list.length) {
    timedElements = list.map(timed)
    cache.byList.set(list, timedElements)
  }
  cache.list = list
  cache.timed = timedElements
  return timedElements
}

/** Nest's lists (one per route) -> their timed copies, the last one asked for in front. */
function newListCache () {
  return { byList: new WeakMap(), list: null, timed: null }
}

function timedGuard (guard) {
  if (guard === null || typeof guard !== 'object' || typeof guard.canActivate !== 'function') return guard
  const info = unitInfo(guardInfos, 'guard', guard, guard.canActivate)
  return {
    canActivate (context) {
      const record = recordOfUnit(context)
      const index = record === undefined ? -1 : openUnit(record, info)
      if (index === -1) return guard.canActivate(context)
      let result
      try {
        result = guard.canActivate(context)
      } catch (err) {
        closeUnit(record, index, err)
        throw err
      }
      // A guard's Observable is read to its end (lastValueFrom).
      return settled(record, index, result, false)
    }
  }
}

/**
 * An interceptor's code before the handler is the call of its `intercept`; its code after the handler runs when
 * the handler's result reaches it (the Observable `next.handle()` gave it emits) and ends when its own
 * Observable emits. That end is marked for the outermost interceptor only (`index` 0): an inner one's value
 * goes on to the interceptor around it at once, whose code after the handler then begins and ends it.
 */
function timedInterceptor (interceptor, index) {
  if (interceptor === null || typeof interceptor !== 'object' || typeof interceptor.intercept !== 'function') return interceptor
  const before = unitInfo(interceptorInfos, 'interceptor', interceptor, interceptor.intercept)
  const after = afterInfo(before, interceptor)
  const outermost = index === 0
  return {
    intercept (context, handler) {
      const record = recordOfUnit(context)
      const index = record === undefined || handler === null || typeof handler !== 'object' ? -1 : openUnit(record, before)
      if (index === -1) return interceptor.intercept(context, handler)
      const run = new InterceptorRun(record, handler, after)
      let result
      try {
        result = interceptor.intercept(context, run)
      } catch (err) {
        closeUnit(record, index, err)
        throw err
      }
      if (isThenable(result)) {
        return result.then((observable) => {
          closeUnit(record, index, null)
          return outermost ? tapped(observable, run, CLOSE_AFTER) : observable
        }, (err) => {
          closeUnit(record, index, err)
          throw err
        })
      }
      closeUnit(record, index, null)
      return outermost ? tapped(result, run, CLOSE_AFTER) : result
    }
  }
}

/**
 * The CallHandler an interceptor is given for one request: Nest's, whose Observable's first value begins the
 * interceptor's code after the handler. The same object ends that code for the outermost interceptor, when its
 * own Observable emits. One object a call, not closures: this runs on every request. Its state is private: the
 * app sees a CallHandler, `handle()` alone.
 */
class InterceptorRun {
  #record
  #handler
  #after
  #afterIndex = -1

  constructor (record, handler, after) {
    this.#record = record
    this.#handler = handler
    this.#after = after
  }

  handle () {
    const handler = this.#handler
    return tapped(handler.handle.apply(handler, arguments), this, OPEN_AFTER)
  }

  /** The interceptor's code after the handler begins (OPEN_AFTER) or ends (CLOSE_AFTER), from tapped(). */
  static signal (run, what, err) {
    if (what === OPEN_AFTER) {
      if (!run.#record.done) run.#afterIndex = openUnit(run.#record, run.#after)
    } else if (run.#afterIndex !== -1) {
      closeUnit(run.#record, run.#afterIndex, err)
    }
  }
}

function timedPipe (record, pipe) {
  if (pipe === null || typeof pipe !== 'object' || typeof pipe.transform !== 'function') return pipe
  return new TimedPipe(record, pipe)
}

/** A pipe as PipesConsumer runs it for one request (given to Nest's consumer only): its transform timed. */
class TimedPipe {
  constructor (record, pipe) {
    this.record = record
    this.pipe = pipe
  }

  transform (value, metadata) {
    const record = this.record
    const pipe = this.pipe
    const info = record.done ? null : pipeInfoOf(pipe, metadata)
    const index = info === null ? -1 : openUnit(record, info)
    if (index === -1) return pipe.transform(value, metadata)
    let result
    try {
      result = pipe.transform(value, metadata)
    } catch (err) {
      closeUnit(record, index, err)
      throw err
    }
    return settled(record, index, result, false)
  }
}

/**
 * Gives the controller method an own `apply` that times the calls Nest makes for a request (their args array
 * known), and otherwise calls the method exactly as Function.prototype.apply would.
 */
function hookControllerMethod (method) {
  if (method === lastHooked || typeof method !== 'function') return
  lastHooked = method
  if (hookedMethods.has(method)) return
  hookedMethods.add(method)
  if (Object.hasOwn(method, 'apply')) return
  const callThrough = Function.prototype.apply
  try {
    Object.defineProperty(method, 'apply', {
      configurable: true,
      writable: true,
      enumerable: false,
      value: function apply (thisArg, argsArray) {
        const record = argsArray !== null && typeof argsArray === 'object' ? argsArray[kArgsRecord] : undefined
        const info = record === undefined || record.done ? null : handlerInfoOf(method, thisArg)
        const index = info === null ? -1 : openUnit(record, info)
        if (index === -1) return callThrough.call(method, thisArg, argsArray)
        let result
        try {
          result = callThrough.call(method, thisArg, argsArray)
        } catch (err) {
          closeUnit(record, index, err)
          throw err
        }
        // An Observable does its work when Nest subscribes: the method's segment lasts until the next unit.
        return settled(record, index, result, true)
      }
    })
  } catch (err) {
    reportInternalError('time a Nest controller method', err)
  }
}

/**
 * Ends the unit `index` when `result` is there: now for a plain value, when a promise settles, when an
 * Observable completes (`observableOpen`: left open, for the next unit or the response's end to close). A
 * unit that wrote the response itself (a handler with @Res()) lasts until the response finishes, as an
 * Express handler that sends does.
 */
function settled (record, index, result, observableOpen) {
  try {
    if (isThenable(result)) {
      result.then((value) => {
        if (!isObservable(value)) endUnit(record, index, null)
      }, (err) => endUnit(record, index, err))
      return result
    }
    if (isObservable(result)) {
      return observableOpen ? result : tapped(result, new UnitEnd(record, index), END_UNIT)
    }
    endUnit(record, index, null)
  } catch (err) {
    reportInternalError('time a Nest unit', err)
  }
  return result
}

function endUnit (record, index, err) {
  const response = record.response
  if (err === null && response !== null && response.headersSent) return
  closeUnit(record, index, err)
}

/** A guard's or pipe's unit, ended when its Observable ends (tapped(), END_UNIT). */
class UnitEnd {
  constructor (record, index) {
    this.record = record
    this.index = index
  }
}

// What a tapped Observable's signal does to its target (tapped()), and whether its first value gives it (else
// only its end: complete or error).
const OPEN_AFTER = 0 // an interceptor's code after the handler begins (InterceptorRun), at the first value
const CLOSE_AFTER = 1 // the outermost interceptor's code after the handler ends (InterceptorRun), at the first value
const END_UNIT = 2 // a guard's or pipe's unit ends (UnitEnd), at the end

function signal (target, what, err) {
  if (what === END_UNIT) endUnit(target.record, target.index, err)
  else InterceptorRun.signal(target, what, err)
}

/**
 * `source` with signal(target, what, err) called once per subscription: at its first value or its end (the
 * end only, for END_UNIT). An Observable of the same rxjs copy as `source`, made by its own `lift` (as rxjs's
 * operators make theirs): an operator and an observer object a subscription, no closures. Anything that is not an
 * Observable is returned as it is.
 */
function tapped (source, target, what) {
  if (!isObservable(source)) return source
  try {
    return source.lift(new TapOperator(target, what))
  } catch (err) {
    reportInternalError('time a Nest Observable', err)
    return source
  }
}

class TapOperator {
  constructor (target, what) {
    this.target = target
    this.what = what
  }

  call (subscriber, source) {
    const observer = new TapObserver(subscriber, this.target, this.what)
    const subscription = source.subscribe(observer)
    // rxjs 7 took the observer as a subscriber of its own (below): what it holds is `subscriber`'s already.
    return subscription === observer ? undefined : subscription
  }
}

/**
 * Passes every signal on to `subscriber`, the one that subscribed to the tapped Observable, and shares its
 * subscription: `closed`, `add`, `remove` and `unsubscribe` are that subscriber's. rxjs 7 then takes it as a
 * subscriber (its isSubscriber() test) and subscribes `source` with it as it is, as if `subscriber` had
 * subscribed to `source` directly, rather than wrapping it in a SafeSubscriber of its own (an object more a
 * signal, and errors thrown downstream reported later instead of passed up as without nodebench). Other rxjs
 * versions wrap it, as any observer.
 */
class TapObserver {
  constructor (subscriber, target, what) {
    this.subscriber = subscriber
    this.target = target
    this.what = what
    this.signalled = false
  }

  get closed () {
    return this.subscriber.closed
  }

  add (teardown) {
    this.subscriber.add(teardown)
  }

  remove (teardown) {
    this.subscriber.remove(teardown)
  }

  unsubscribe () {
    this.subscriber.unsubscribe()
  }

  next (value) {
    if (this.what !== END_UNIT) this.once(null)
    this.subscriber.next(value)
  }

  error (err) {
    this.once(err)
    this.subscriber.error(err)
  }

  complete () {
    this.once(null)
    this.subscriber.complete()
  }

  once (err) {
    if (this.signalled) return
    this.signalled = true
    try {
      signal(this.target, this.what, err)
    } catch (error) {
      reportInternalError('time a Nest unit', error)
    }
  }
}

function isThenable (value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function'
}

/** As rxjs's isObservable: any copy's Observable. */
function isObservable (value) {
  return value !== null && typeof value === 'object' && typeof value.lift === 'function' && typeof value.subscribe === 'function'
}

/** The record of the request a unit runs for (from its ExecutionContext), or undefined. */
function recordOfUnit (context) {
  try {
    return recordOfContext(context)
  } catch (err) {
    reportInternalError('time a Nest unit', err)
    return undefined
  }
}

function pipeInfoOf (pipe, metadata) {
  try {
    const isObject = metadata !== null && typeof metadata === 'object'
    const type = isObject ? metadata.type : undefined
    const data = isObject ? metadata.data : undefined
    for (let i = 0; i < PIPE_MEMO_SIZE; i++) {
      const memo = pipeMemo[i]
      if (memo.pipe === pipe && memo.type === type && memo.data === data) return memo.info
    }
    const info = pipeInfo(pipe, metadata)
    const memo = pipeMemo[pipeMemoNext]
    pipeMemoNext = (pipeMemoNext + 1) % PIPE_MEMO_SIZE
    memo.pipe = pipe
    memo.type = type
    memo.data = data
    memo.info = info
    return info
  } catch (err) {
    reportInternalError('time a Nest pipe', err)
    return null
  }
}

function handlerInfoOf (method, instance) {
  if (method === lastHandler.method && instance === lastHandler.instance) return lastHandler.info
  try {
    const info = handlerInfo(method, instance)
    lastHandler.method = method
    lastHandler.instance = instance
    lastHandler.info = info
    return info
  } catch (err) {
    reportInternalError('time a Nest controller method', err)
    return null
  }
}

function recordOfContext (context) {
  return context !== null && typeof context === 'object' && typeof context.getArgs === 'function'
    ? recordOfArgs(context.getArgs())
    : undefined
}

function classOf (object) {
  const constructor = Object.getPrototypeOf(object)?.constructor
  return typeof constructor === 'function' && constructor.name ? constructor : null
}

/** The info of a guard or interceptor, by its class: `RolesGuard`. */
function unitInfo (cache, kind, unit, method) {
  const key = classOf(unit) ?? unit
  let info = cache.get(key)
  if (info === undefined) {
    info = layerInfo(kind, method, classOf(unit)?.name ?? kind)
    cache.set(key, info)
  }
  return info
}

const afterInfos = new WeakMap()

function afterInfo (before, interceptor) {
  let info = afterInfos.get(before)
  if (info === undefined) {
    info = layerInfo('interceptor', interceptor.intercept, `${before.name} (after)`)
    afterInfos.set(before, info)
  }
  return info
}

/**
 * A pipe, with the parameter it transforms: `ParseIntPipe (id)`, `ParseIntPipe (query limit)`, `MyPipe (body)`.
 * Found by the pipe's class, then the parameter's type and name as Nest passes them (strings Nest keeps, whose
 * hashes V8 has cached): no name is built per request, only once per parameter.
 */
function pipeInfo (pipe, metadata) {
  const pipeClass = classOf(pipe)
  const key = pipeClass ?? pipe
  let byType = pipeInfos.get(key)
  if (byType === undefined) pipeInfos.set(key, (byType = new Map()))
  const isObject = metadata !== null && typeof metadata === 'object'
  const rawType = isObject ? metadata.type : undefined
  const type = typeof rawType === 'string' ? rawType : String(rawType ?? '')
  const data = isObject && typeof metadata.data === 'string' ? metadata.data : ''
  let byData = byType.get(type)
  if (byData === undefined) byType.set(type, (byData = new Map()))
  let info = byData.get(data)
  if (info === undefined) {
    info = layerInfo('pipe', pipe.transform, `${pipeClass?.name ?? 'pipe'} (${parameterOf(type, data)})`)
    byData.set(data, info)
  }
  return info
}

function parameterOf (type, data) {
  if (type === 'param' && data !== '') return data
  return data === '' ? type || 'value' : `${type} ${data}`
}

/** The controller method's segment: `CatsController.findOne`, by the class of the instance it runs on. */
function handlerInfo (method, instance) {
  let byClass = handlerInfos.get(method)
  if (byClass === undefined) handlerInfos.set(method, (byClass = new Map()))
  const controller = instance !== null && typeof instance === 'object' ? classOf(instance) : null
  let info = byClass.get(controller)
  if (info === undefined) {
    info = layerInfo('handler', method, controller === null ? method.name : `${controller.name}.${method.name}`)
    byClass.set(controller, info)
  }
  return info
}

function renderInfo (template) {
  const name = typeof template === 'string' ? `render ${template}` : 'render'
  let info = renderInfos.get(name)
  if (info === undefined) {
    info = fixedInfo('response', name)
    if (renderInfos.size < 1000) renderInfos.set(name, info)
  }
  return info
}

/** The filter Nest's ExceptionsHandler picks for `exception` (as selectExceptionFilterMetadata does), or its own. */
function filterInfo (handler, exception) {
  const filters = Array.isArray(handler.filters) ? handler.filters : []
  const chosen = filters.find(({ exceptionMetatypes: types }) => !Array.isArray(types) || types.length === 0 ||
    types.some((type) => typeof type === 'function' && exception instanceof type))
  if (chosen === undefined || typeof chosen.func !== 'function') return BUILT_IN_FILTER
  let info = filterInfos.get(chosen.func)
  if (info === undefined) {
    info = classInfo('filter', chosen.func)
    filterInfos.set(chosen.func, info)
  }
  return info
}

// settled: also for its tests (a unit's Observable, tapped, against the same Observable bare).
module.exports = { isNestRouteHandler, prepareNest, settled }
