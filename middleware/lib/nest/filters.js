'use strict'

// Exception filters: ExceptionsHandler#next answers what a unit threw, with the filter it picks (a unit of
// kind filter, the exception its error).

const { classInfo, fixedInfo } = require('../function-names')
const { reportInternalError } = require('../internal-errors')
const { openUnit, recordOfContext } = require('./units')

const filterInfos = new WeakMap()
const BUILT_IN_FILTER = fixedInfo('filter', 'BaseExceptionFilter')

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

module.exports = { shadowExceptions }
