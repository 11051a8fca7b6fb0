'use strict'

// The controller method: its own `apply` times the calls Nest makes for a request. The request reaches it by
// `args`, the array its arguments are collected in (ContextUtils#createNullArray, shadowed here, makes it; the
// guards' or interceptors' consumer called next pairs it with the record: takeArgs).

const { layerInfo } = require('../function-names')
const { reportInternalError } = require('../internal-errors')
const { openUnit, closeUnit, settled, classOf } = require('./units')

const handlerInfos = new WeakMap()
const hookedMethods = new WeakSet()
let lastHooked = null
const lastHandler = { method: null, instance: null, info: null }

// The record of a controller call's args array, under a symbol of nodebench's own: a property store on an
// array Nest made for this call and holds privately, cheaper than a WeakMap's set (request-record.js).
const kArgsRecord = Symbol('nodebench.argsRecord')

// The args array ContextUtils#createNullArray made last, until the consumer call after it takes it.
let pendingArgs = null

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

module.exports = { shadowCreateNullArray, takeArgs, hookControllerMethod }
