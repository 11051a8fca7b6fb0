'use strict'

// Guards: GuardsConsumer#tryActivate is given the route's guards, each timed (canActivate).

const { reportInternalError } = require('../internal-errors')
const { recordOfArgs, openUnit, closeUnit, settled, recordOfUnit, unitInfo, timedList, newListCache } = require('./units')
const { takeArgs, hookControllerMethod } = require('./handler')

// The pipeline's units: what ran (its class and method), kept once per class (and parameter, for pipes).
const guardInfos = new WeakMap()
// The look-ups below run on every request of a Nest route, whose requests mostly come in runs: each keeps the
// last thing it was asked about and its answer (compared by identity) in front of its maps.
const timedGuardLists = newListCache()

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

module.exports = { shadowTryActivate }
