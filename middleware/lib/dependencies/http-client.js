'use strict'

const diagnosticsChannel = require('diagnostics_channel')
const { startCall, endCall, guarded, observeRequests, observing } = require('./calls')
const { describeDependency } = require('./describe')
const { reportInternalError } = require('../internal-errors')

// Outgoing HTTP calls, heard on the channels Node.js publishes them on: `http.client.*` for node:http (and
// so every library built on it: axios, got, node-fetch), `undici:request:*` for fetch and undici. No wrapper,
// no patch: a channel with a subscriber costs something only when a request is published on it.
//
// A call is known as a request's only once requests are followed (calls.js): the first call heard turns that
// on when nothing else did, and is itself attributed to no request.

const kCall = Symbol('nodebench.dependencyCall')

const SUBSCRIPTIONS = [
  ['http.client.request.start', onHttpRequestStart],
  ['http.client.response.finish', onHttpResponseFinish],
  ['http.client.request.error', onHttpRequestError],
  ['undici:request:create', onUndiciCreate],
  ['undici:request:headers', onUndiciHeaders],
  ['undici:request:trailers', onUndiciEnd],
  ['undici:request:error', onUndiciError]
].map(([name, fn]) => [name, guarded(`time an outgoing call (${name})`, fn)])

let subscribed = false

/** Listens to the outgoing-call channels (from the first nodebenchTrace() on). */
function observeHttpClients () {
  if (subscribed) return
  subscribed = true
  for (const [name, subscriber] of SUBSCRIPTIONS) diagnosticsChannel.subscribe(name, subscriber)
}

function unobserveHttpClients () {
  if (!subscribed) return
  subscribed = false
  for (const [name, subscriber] of SUBSCRIPTIONS) diagnosticsChannel.unsubscribe(name, subscriber)
}

/**
 * Starts the call of `target` (the request object both channels hand over) to `server` (the Host header or
 * origin, as the call has it), with the path and query it asks for (kept as they are: url.full is made of them,
 * without the query's values, only when a span is written).
 */
function begin (target, protocol, server, method, pathAndQuery) {
  if (!observing()) {
    observeRequests()
    return
  }
  const dependency = describeDependency(protocol, server, method, '', () => {
    const scheme = protocol === 'https:' ? 'https' : 'http'
    const { host, port } = hostAndPort(server, scheme)
    return {
      system: 'http',
      operation: method,
      target: `${host}:${port}`,
      spanName: method,
      urlBase: urlBase(scheme, host, port),
      attributes: { 'http.request.method': method, 'server.address': host, 'server.port': port }
    }
  })
  const call = startCall(dependency)
  if (call === null) return
  call.url = typeof pathAndQuery === 'string' ? pathAndQuery : '/'
  target[kCall] = call
}

// node:http: `request` is the ClientRequest.

function onHttpRequestStart ({ request }) {
  const protocol = request.protocol === 'https:' ? 'https:' : 'http:'
  const server = headerOf(request, 'host') ?? request.host ?? 'localhost'
  begin(request, protocol, server, request.method, request.path)
}

// Node.js publishes `http.client.response.finish` when the response's head has arrived: the call ends when its
// body has been read (or the response is closed first, or never read: then it ends with its segment).
function onHttpResponseFinish ({ request, response }) {
  const call = request[kCall]
  if (call === undefined) return
  call.statusCode = response.statusCode
  response[kCall] = call
  response.once('end', onHttpResponseEnd)
  response.once('close', onHttpResponseEnd)
}

function onHttpResponseEnd () {
  try {
    const call = this[kCall]
    if (call !== undefined) endCall(call, call.statusCode >= 400 ? String(call.statusCode) : null)
  } catch (err) {
    reportInternalError('time an outgoing call', err)
  }
}

function onHttpRequestError ({ request, error }) {
  const call = request[kCall]
  if (call !== undefined) endCall(call, errorType(error))
}

// undici (and fetch): `request` is undici's Request, `origin` a string or URL, `path` with its query.

function onUndiciCreate ({ request }) {
  const origin = String(request.origin)
  begin(request, origin.startsWith('https:') ? 'https:' : 'http:', origin, request.method, request.path)
}

function onUndiciHeaders ({ request, response }) {
  const call = request[kCall]
  if (call !== undefined) call.statusCode = response.statusCode
}

function onUndiciEnd ({ request }) {
  const call = request[kCall]
  if (call !== undefined) endCall(call, call.statusCode >= 400 ? String(call.statusCode) : null)
}

function onUndiciError ({ request, error }) {
  const call = request[kCall]
  if (call !== undefined) endCall(call, errorType(error))
}

function headerOf (request, name) {
  try {
    const value = request.getHeader(name)
    return typeof value === 'string' ? value : null
  } catch {
    return null
  }
}

/**
 * The server's host and port from a Host header (`api.example:8080`, `[::1]:3000`, `api.example`: the scheme's
 * default port) or an origin (`https://api.example`).
 */
function hostAndPort (server, scheme) {
  const defaultPort = scheme === 'https' ? 443 : 80
  const authority = server.includes('//') ? server.slice(server.indexOf('//') + 2).replace(/\/.*$/, '') : server
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(authority)
  if (match === null) return { host: authority, port: defaultPort }
  const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1]
  return { host, port: match[2] === undefined ? defaultPort : Number(match[2]) }
}

function urlBase (scheme, host, port) {
  const defaultPort = scheme === 'https' ? 443 : 80
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}${port === defaultPort ? '' : `:${port}`}`
}

/** url.full without credentials (never taken) and without the query's values (the names stay). */
function fullUrl (base, pathAndQuery) {
  const query = pathAndQuery.indexOf('?')
  if (query === -1) return base + pathAndQuery
  const hash = pathAndQuery.indexOf('#', query)
  const search = pathAndQuery.slice(query + 1, hash === -1 ? undefined : hash)
  const names = search.split('&').map((pair) => {
    const equals = pair.indexOf('=')
    return equals === -1 ? pair : `${pair.slice(0, equals)}=REDACTED`
  })
  return `${base}${pathAndQuery.slice(0, query)}?${names.join('&')}`
}

function errorType (error) {
  if (error !== null && typeof error === 'object') {
    if (typeof error.code === 'string') return error.code
    if (typeof error.name === 'string') return error.name
  }
  return '_OTHER'
}

module.exports = { observeHttpClients, unobserveHttpClients, fullUrl, urlBase, hostAndPort }
