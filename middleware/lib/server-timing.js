'use strict'

const { performance } = require('node:perf_hooks')
const onHeaders = require('on-headers')
const { recordOf } = require('./request-record')
const { hasPendingNames, resolveNames } = require('./function-names')
const { reportInternalError } = require('./internal-errors')

// `Server-Timing: database;dur=0.412;desc="database", ...` so a browser's devtools shows the breakdown of
// one request. Written just before the headers go out (on-headers), so a segment still running then (the
// handler that is sending the response) is measured up to that moment. The header needs the layers' names
// in the response itself: with serverTiming on, the first response that carries it resolves them.

function metricName (name) {
  return name.replace(/[^!#$%&'*+\-.^_`|~0-9A-Za-z]+/g, '_').replace(/^_+|_+$/g, '') || 'segment'
}

function quoted (text) {
  return '"' + text.replace(/["\\]/g, '\\$&') + '"'
}

function serverTimingHeader (record, nowMs) {
  const parts = []
  for (let i = 0; i < record.segmentCount; i++) {
    const info = record.segmentInfo(i)
    if (info.kind === 'router') continue
    const end = record.entryEnd(i) === -1 ? nowMs : record.entryEnd(i)
    parts.push(`${metricName(info.name)};dur=${(end - record.entryStart(i)).toFixed(3)};desc=${quoted(info.name)}`)
  }
  parts.push(`total;dur=${(nowMs - record.startMs).toFixed(3)};desc="nodebench: until headers"`)
  return parts.join(', ')
}

function setServerTiming () {
  try {
    const record = recordOf(this)
    if (record === undefined || this.headersSent) return
    if (hasPendingNames()) resolveNames()
    const existing = this.getHeader('server-timing')
    const ours = serverTimingHeader(record, performance.now())
    this.setHeader('Server-Timing', existing ? [].concat(existing, ours) : ours)
  } catch (err) {
    reportInternalError('server-timing header', err)
  }
}

function addServerTiming (res) {
  onHeaders(res, setServerTiming)
}

module.exports = { addServerTiming, serverTimingHeader, metricName }
