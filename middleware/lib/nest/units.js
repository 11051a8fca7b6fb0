'use strict'

// What every kind of Nest unit shares: the request's record found from Nest's arguments, a unit opened and
// closed on it (a failure of nodebench's reported, never the app's), a unit's result settled, and the infos and
// timed copies of Nest's lists kept once.

const { recordOf } = require('../request-record')
const { layerInfo } = require('../function-names')
const { reportInternalError } = require('../internal-errors')
const { tapped, isObservable, kSignal, END_UNIT } = require('./observable')

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

  [kSignal] (what, err) {
    endUnit(this.record, this.index, err)
  }
}

function isThenable (value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function'
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

module.exports = {
  recordOfArgs,
  openUnit,
  closeUnit,
  settled,
  isThenable,
  recordOfUnit,
  recordOfContext,
  classOf,
  unitInfo,
  timedList,
  newListCache
}
