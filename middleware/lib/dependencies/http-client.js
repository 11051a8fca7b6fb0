'use strict'

const diagnosticsChannel = require('node:diagnostics_channel')
const { startCall, endCall, guarded, observeRequests, observing } = require('./calls')
const { describeDependency } = require('./describe')

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

function begin (target, method, protocol, host, port, pathAndQuery) {
  if (!observing()) {
    observeRequests()
    return null
  }
  const dependency = describeDependency('http', method, `${host}:${port}`, method, host, port, () => ({
    'http.request.method': method,
    'server.address': host,
    'server.port': port
  }))
  const call = startCall(dependency)
  if (call === null) return null
  call.url = fullUrl(protocol, host, port, pathAndQuery)
  target[kCall] = call
  return call
}

// node:http: `request` is the ClientRequest.

function onHttpRequestStart ({ request }) {
  const protocol = request.protocol === 'https:' ? 'https' : 'http'
  const { host, port } = hostAndPort(request.host, headerOf(request, 'host'), protocol)
  begin(request, request.method, protocol, host, port, request.path)
}

function onHttpResponseFinish ({ request, response }) {
  const call = request[kCall]
  if (call === undefined) return
  call.statusCode = response.statusCode
  endCall(call, response.statusCode >= 400 ? String(response.statusCode) : null)
}

function onHttpRequestError ({ request, error }) {
  const call = request[kCall]
  if (call !== undefined) endCall(call, errorType(error))
}

// undici (and fetch): `request` is undici's Request, `origin` a string or URL, `path` with its query.

function onUndiciCreate ({ request }) {
  const origin = new URL(String(request.origin))
  const protocol = origin.protocol === 'https:' ? 'https' : 'http'
  const port = origin.port === '' ? (protocol === 'https' ? 443 : 80) : Number(origin.port)
  begin(request, request.method, protocol, origin.hostname, port, request.path)
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

/** The server's host and port, from the Host header (which says a port other than the default) or the option. */
function hostAndPort (optionHost, hostHeader, protocol) {
  const defaultPort = protocol === 'https' ? 443 : 80
  const from = hostHeader ?? optionHost ?? 'localhost'
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(from)
  if (match === null) return { host: from, port: defaultPort }
  const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1]
  return { host, port: match[2] === undefined ? defaultPort : Number(match[2]) }
}

/** url.full without credentials (never taken) and without the query's values (the names stay). */
function fullUrl (protocol, host, port, pathAndQuery) {
  const defaultPort = protocol === 'https' ? 443 : 80
  const authority = (host.includes(':') ? `[${host}]` : host) + (port === defaultPort ? '' : `:${port}`)
  const path = typeof pathAndQuery === 'string' ? pathAndQuery : '/'
  const query = path.indexOf('?')
  if (query === -1) return `${protocol}://${authority}${path}`
  const hash = path.indexOf('#', query)
  const search = path.slice(query + 1, hash === -1 ? undefined : hash)
  const names = search.split('&').map((pair) => {
    const equals = pair.indexOf('=')
    return equals === -1 ? pair : `${pair.slice(0, equals)}=REDACTED`
  })
  return `${protocol}://${authority}${path.slice(0, query)}?${names.join('&')}`
}

function errorType (error) {
  if (error !== null && typeof error === 'object') {
    if (typeof error.code === 'string') return error.code
    if (typeof error.name === 'string') return error.name
  }
  return '_OTHER'
}

module.exports = { observeHttpClients, unobserveHttpClients, fullUrl, hostAndPort }
