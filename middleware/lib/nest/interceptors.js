'use strict'

// Interceptors: InterceptorsConsumer#intercept is given the route's interceptors, each timed in two units: its
// code before the handler (the call of `intercept`) and after it (InterceptorRun).

const { reportInternalError } = require('../internal-errors')
const { layerInfo } = require('../function-names')
const { recordOfArgs, openUnit, closeUnit, isThenable, recordOfUnit, unitInfo, timedList, newListCache } = require('./units')
const { tapped, kSignal, OPEN_AFTER, CLOSE_AFTER } = require('./observable')
const { takeArgs, hookControllerMethod } = require('./handler')
const { handlerRunner } = require('./pipes')

const interceptorInfos = new WeakMap()
const timedInterceptorLists = newListCache()

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
  [kSignal] (what, err) {
    if (what === OPEN_AFTER) {
      if (!this.#record.done) this.#afterIndex = openUnit(this.#record, this.#after)
    } else if (this.#afterIndex !== -1) {
      closeUnit(this.#record, this.#afterIndex, err)
    }
  }
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

module.exports = { shadowIntercept }
