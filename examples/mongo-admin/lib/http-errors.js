'use strict'

/** An error that becomes an HTTP response: its status and a message meant for the person who sent the request. */
class HttpError extends Error {
  constructor (status, message) {
    super(message)
    this.name = 'HttpError'
    this.status = status
  }
}

// The driver's names for "could not reach the server": no server selected in time, a dropped
// connection, a pool cleared after a network error, a closed client.
const UNREACHABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError'
])

/**
 * What an error means for the response: an HttpError keeps its status, an unreachable database is 503,
 * a malformed request body (body-parser) is 400, anything else 500.
 */
function toHttpError (err) {
  if (err instanceof HttpError) return err
  if (err && UNREACHABLE_ERRORS.has(err.name)) {
    return new HttpError(503, `The database is unreachable (${err.message}). Try again when it is back.`)
  }
  if (err && err.type === 'entity.parse.failed') {
    return new HttpError(400, `The request body is not valid ${err.body !== undefined && /^\s*[{[]/.test(err.body) ? 'JSON' : 'input'}: ${err.message}`)
  }
  if (err && Number.isInteger(err.status) && err.status >= 400 && err.status < 500) {
    return new HttpError(err.status, err.message)
  }
  const internal = new HttpError(500, 'Internal server error')
  internal.cause = err
  return internal
}

module.exports = { HttpError, toHttpError }
