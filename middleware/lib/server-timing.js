'use strict'

const { performance } = require('perf_hooks')
const onHeaders = require('on-headers')
const { isContainer } = require('@nodebench/breakdown')
const { recordOf } = require('./request-record')
const { hasPendingNames, resolveNames } = require('./function-names')
const { reportInternalError } = require('./internal-errors')

// `Server-Timing: database;dur=0.412;desc="database", ...` so a browser's devtools shows the breakdown of
// one request. Written just before the headers go out (on-headers), so a segment still running then (the
// handler that is sending the response) is measured up to that moment. The header needs the layers' names
// in the response itself: with serverTiming on, the first response that carries it resolves them.
//
// What it reveals: the name of every middleware and handler the request passed and how long each took, to
// whoever receives the response (page scripts included). Durations of, say, an authentication middleware are
// a timing side channel; the W3C spec's privacy section says to send it only where intended. `serverTiming`
// may therefore be a predicate of the request. Names come from the app's code, never from the request (route
// parameters never appear), and are written in the header's grammar: a metric name is a token, a description
// a quoted-string of printable ASCII.

/** A token (RFC 9110): what a metric name may hold. */
function metricName (name) {
  return name.replace(/[^!#$%&'*+\-.^_`|~0-9A-Za-z]+/g, '_').replace(/^_+|_+$/g, '') || 'segment'
}

/** A quoted-string of printable ASCII: quotes and backslashes escaped, anything else outside it as '?'. */
function quoted (text) {
  return '"' + text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&') + '"'
}

function serverTimingHeader (record, nowMs) {
  const parts = []
  for (let i = 0; i < record.segmentCount; i++) {
    const info = record.segmentInfo(i)
    if (isContainer(info)) continue
    const end = record.entryEnd(i) === -1 ? nowMs : record.entryEnd(i)
    parts.push(`${metricName(info.name)};dur=${(end - record.entryStart(i)).toFixed(3)};desc=${quoted(info.name)}`)
  }
  parts.push(`total;dur=${(nowMs - record.startMs).toFixed(3)};desc="nodebench: until headers"`)
  return parts.join(', ')
}

function setServerTiming (res) {
  const record = recordOf(res)
  if (record === undefined || res.headersSent) return
  if (hasPendingNames()) resolveNames()
  const existing = res.getHeader('server-timing')
  const ours = serverTimingHeader(record, performance.now())
  res.setHeader('Server-Timing', existing ? [].concat(existing, ours) : ours)
}

/**
 * The response decorator for `serverTiming`: `true` adds the header to every response; a predicate is asked,
 * when the headers go out (Express has made `req` its own by then), whether this request's response gets it.
 * A predicate that throws counts as no.
 */
function addServerTiming (rule) {
  const always = rule === true
  function onHeadersOut () {
    try {
      if (!always && rule(this.req) !== true) return
      setServerTiming(this)
    } catch (err) {
      reportInternalError(always ? 'server-timing header' : 'serverTiming rule', err)
    }
  }
  return function decorateResponse (res) {
    onHeaders(res, onHeadersOut)
  }
}

module.exports = { addServerTiming, serverTimingHeader, metricName }
