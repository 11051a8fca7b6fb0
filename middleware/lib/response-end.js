'use strict'

const diagnosticsChannel = require('diagnostics_channel')
// SOCKET: `res.socket` by a computed key, a response's map being its own on Node.js 20 and 22 (request-record.js).
const { recordOf, kOpenRecord, SOCKET } = require('./request-record')
const { reportInternalError } = require('./internal-errors')

// How a request's end is seen. A response ends when it finishes, or when it closes first (the client went
// away). For a response Node.js's HTTP server made, the server says both without a listener on the response:
// it publishes the response's finish on a diagnostics channel, and its socket's 'close' ends whatever it was
// still answering, so one 'close' listener a connection does instead of a 'finish' and a 'close' listener a
// response. The two listeners cost ~4,600-6,100 instructions a request on Node.js 24, most of them in V8's
// handlers for `addListener`'s loads and stores (benchmarks/README.md, "A request's end from the server's
// channel"). A response waiting behind another on a pipelined connection gets a 'close' listener of its own;
// any other response (a test harness's, a serverless adapter's) gets the two listeners as before.
//
// Which responses the server made is known exactly: it publishes the start of each request on another channel
// just before handing it to the app, so the response nodebench begins a record for is the one published last.

const REQUEST_START = 'http.server.request.start'
const RESPONSE_FINISH = 'http.server.response.finish'
const ON = 'on'

let subscribed = false
let startedResponse = null
let startedSocket = null

/** From the first nodebenchTrace() on: the server's channels are listened to. */
function subscribe () {
  if (subscribed) return
  subscribed = true
  diagnosticsChannel.subscribe(REQUEST_START, onRequestStart)
  diagnosticsChannel.subscribe(RESPONSE_FINISH, onResponseFinish)
}

function onRequestStart (message) {
  startedResponse = message.response
  startedSocket = message.socket
}

// The channels' subscribers and the connection's listener report their own failures: one thrown from them
// would reach the app (a channel rethrows it as an uncaught exception).

function onResponseFinish (message) {
  try {
    const response = message.response
    const record = recordOf(response)
    if (record !== undefined && record.onEnd !== null) record.onEnd(record, false)
  } catch (err) {
    reportInternalError('finish request', err)
  }
}

function onSocketClose () {
  try {
    // Its record's end lets the connection go (request-record.js, detachRecord).
    const record = this[kOpenRecord]
    if (record === null || record === undefined) return
    if (record.onEnd !== null) record.onEnd(record, true)
    if (this[kOpenRecord] === record) this[kOpenRecord] = null
  } catch (err) {
    reportInternalError('finish request', err)
  }
}

/**
 * Sees to it that `record.onEnd(record, aborted)` is called when the response ends: from the server's channel and
 * the connection's close, else from listeners on the response (`onFinish`, `onClose`: called with the response
 * as `this`).
 */
function watchEnd (record, res, onFinish, onClose) {
  if (res === startedResponse) {
    const socket = startedSocket
    startedResponse = null
    startedSocket = null
    // A pipelined response waiting behind another has no socket yet: its finish comes from the channel, and
    // its own 'close'.
    if (res[SOCKET] === socket && watchConnection(socket, record)) return
    res[ON]('close', onClose)
    return
  }
  res[ON]('finish', onFinish)
  res[ON]('close', onClose)
}

/**
 * Makes `record` the one the connection is answering, if it answers none: true when it does. The connection
 * then holds the record for the response too (request-record.js, recordOf).
 */
function watchConnection (socket, record) {
  try {
    const open = socket[kOpenRecord]
    if (open === undefined) {
      socket.on('close', onSocketClose)
    } else if (open !== null) {
      return false
    }
    socket[kOpenRecord] = record
    record.socket = socket
    return true
  } catch (err) {
    reportInternalError('watch a connection', err)
    return false
  }
}

module.exports = { subscribe, watchEnd }
