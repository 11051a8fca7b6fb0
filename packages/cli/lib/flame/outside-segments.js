'use strict'

const path = require('node:path')
const { CATEGORIES, frameCategory } = require('./categories')

// What a sample on CPU that no segment holds is, where its stack says so (segment-cpu.js asks once no layer's
// frame is on the stack). On doc-read, 12% of the samples held no segment: Node.js parsing each request and
// Express routing it before its first segment opens (the work runs synchronously in the socket's read, before
// the request has a context), the database driver reading its pooled connections (a connection's socket
// belongs to no request), and the log of contexts itself. Each is a row of its own, beside garbage collection;
// what no rule names stays not attributed. None is spread over the segments: Express's routing is the
// breakdown's `unattributed` too (docs/flame.md#what-no-segment-holds).

// Node.js's HTTP server: parsing a request (parserOnHeadersComplete, parserOnIncoming), making its
// IncomingMessage and ServerResponse, writing and finishing the response (resOnFinish, clearIncoming).
const NODE_HTTP_FILE = /^node:_http_(?:server|common|incoming|outgoing)$/
// The log of contexts (the app's own copy of @nodebench/trace) and flame's agent that asks for it: in the app
// only while flame's profiler samples.
const CONTEXT_LOG_FILE = /[\\/](?:middleware|@nodebench[\\/]trace)[\\/]lib[\\/]cpu-context\.js$/
const AGENT_FILE = path.join(__dirname, 'v8-agent.js')
// Node.js calling async_hooks' before and after hooks (of callbacks, of promises): the log's are the ones an app
// has while flame profiles it (AsyncLocalStorage needs none; an app's own before hooks would count here too).
const HOOK_CALLS = new Set(['emitHook', 'promiseBeforeHook', 'promiseAfterHook'])
const isHookCall = (frame) => frame.file === 'node:internal/async_hooks' && HOOK_CALLS.has(frame.name)
const isContextLog = (frame) => CONTEXT_LOG_FILE.test(frame.file) || frame.file === AGENT_FILE || isHookCall(frame)
const isHttpOrRouting = (frame) => NODE_HTTP_FILE.test(frame.file) || frameCategory(frame) === CATEGORIES.EXPRESS
const isDatabaseDriver = (frame) => frameCategory(frame) === CATEGORIES.DATABASE

function hasFrame (frames, test) {
  return frames.some((frame) => frame.kind === 'js' && frame.file !== '' && test(frame))
}

/** Whether the stack starts in Node.js's HTTP server (its parser's callbacks): a request arriving, run at once. */
function startsInHttpServer (frames) {
  for (let i = frames.length - 1; i >= 0; i--) {
    if (frames[i].kind === 'js' && frames[i].file !== '') return /^node:_http_(?:server|common)$/.test(frames[i].file)
  }
  return false
}

/**
 * The rows, in the order they are shown. Each `test(frames, known)` with `known` as outsideSegment's:
 * where the sample's context says no segment of a request ran, the stack alone decides what it is; without
 * contexts, a stack that runs Express or the driver may be a segment's continuation (the response a handler
 * sends after an await), so only what cannot be holds: a request's parsing and routing as it arrives.
 */
const OUTSIDE_SEGMENTS = Object.freeze([
  Object.freeze({
    key: 'contextLog',
    name: 'logging the async contexts (nodebench flame\'s, only while it profiles)',
    // The log's hooks run in whatever request's context the callback they wrap has: their CPU is flame's own,
    // not that request's segment's, so this row is tried before the sample's context.
    overContext: true,
    test: (frames) => hasFrame(frames, isContextLog)
  }),
  Object.freeze({
    key: 'httpAndRouting',
    name: 'HTTP and routing (Node.js, Express; outside the segments)',
    overContext: false,
    test: (frames, { contexts }) => contexts ? hasFrame(frames, isHttpOrRouting) : startsInHttpServer(frames)
  }),
  Object.freeze({
    key: 'databaseConnections',
    name: 'database driver in no request (reading its pooled connections, monitoring)',
    overContext: false,
    test: (frames, { contexts, noRequest }) => contexts && noRequest && hasFrame(frames, isDatabaseDriver)
  })
])

/**
 * The row (an entry of OUTSIDE_SEGMENTS) of a sample no layer's frame holds, or undefined. Asked twice: before
 * the sample's context is (`overContext`: the rows that win over it), and after it gave no segment (the others;
 * undefined then: not attributed).
 * @param {{ frames: object[], context?: object|null }} sample
 * @param {{ contexts: boolean, noRequest: boolean, overContext: boolean }} known whether the samples carry
 *   contexts, whether this one's says it ran for no request (else: between a request's segments), which rows
 */
function outsideSegment (sample, known) {
  return OUTSIDE_SEGMENTS.find((row) => row.overContext === known.overContext && row.test(sample.frames, known))
}

module.exports = { OUTSIDE_SEGMENTS, outsideSegment }
