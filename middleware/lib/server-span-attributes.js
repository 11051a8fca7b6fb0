'use strict'

const { hostAndPort } = require('./dependencies/http-client')

// The HTTP server span's attributes that differ from request to request, beside those of its operation
// (span-attributes.js's requestEndAttributes): the semantic conventions' required and recommended ones. Read
// from the request when its spans are written, so only for sampled requests.

/**
 * url.scheme, server.address, server.port, network.protocol.version, client.address, user_agent.original and,
 * on a failure, error.type.
 */
function serverSpanAttributes (req, record) {
  const attributes = {}
  const socket = req.socket ?? null
  const scheme = typeof req.protocol === 'string' ? req.protocol : socket !== null && socket.encrypted ? 'https' : 'http'
  attributes['url.scheme'] = scheme
  const headers = req.headers ?? {}
  const host = typeof headers.host === 'string' ? headers.host : null
  if (host !== null) {
    const server = hostAndPort(host, scheme)
    attributes['server.address'] = server.host
    attributes['server.port'] = server.port
  } else if (socket !== null && typeof socket.localAddress === 'string') {
    attributes['server.address'] = socket.localAddress
    attributes['server.port'] = socket.localPort
  }
  if (typeof req.httpVersion === 'string') attributes['network.protocol.version'] = req.httpVersion
  const client = typeof req.ip === 'string' ? req.ip : socket !== null ? socket.remoteAddress : undefined
  if (typeof client === 'string') attributes['client.address'] = client
  if (typeof headers['user-agent'] === 'string') attributes['user_agent.original'] = headers['user-agent']
  const errorType = requestErrorType(record)
  if (errorType !== null) attributes['error.type'] = errorType
  return attributes
}

/** A failed request's error.type: its 5xx status code, else the type of the error a layer passed on, else null. */
function requestErrorType (record) {
  if (record.statusCode >= 500) return String(record.statusCode)
  return null
}

module.exports = { serverSpanAttributes }
