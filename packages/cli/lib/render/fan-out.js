'use strict'

const { formatCount, formatMs, formatShare } = require('./format')

// A request that fans out to other processes (collector's fanOutFromSpans), as the reports show it: per
// operation of the calling service, each process it called (calls per request, mean time, that time over the
// request's, where inside it the time went), and the critical path, the call that ended last in each request:
// which process it was how often, its mean time and share of the request's time, and its segments.

const TOP_SEGMENTS = 3

/** `streamDocuments 97.1%, parseRange 0.4%`: a call's largest segments by share. */
function segmentsText (segments, limit = TOP_SEGMENTS) {
  const ranked = [...segments].sort((a, b) => b.share - a.share)
  const shown = ranked.slice(0, limit).map((s) => `${s.name} ${formatShare(s.share)}`)
  return shown.length === 0 ? '-' : shown.join(', ') + (ranked.length > limit ? `, ${ranked.length - limit} more` : '')
}

/** The title of an operation's fan-out: `GET /route [json]: N requests that called other processes`. */
function fanOutTitle (operation) {
  return `${operation.method} ${operation.route} [${operation.format}]: ${formatCount(operation.requests)} request` +
    `${operation.requests === 1 ? '' : 's'} that called other processes, mean ${formatMs(operation.responseTimeMs.mean)} ms`
}

/** Each called process: calls per request, mean ms, share of the request's time, its largest segments. */
function calleeTable (operation) {
  const head = ['process called', 'calls / request', 'mean ms', 'share of the request\'s time', 'where its time went']
  const rows = operation.callees.map((callee) => ({
    share: Math.min(1, callee.share),
    cells: [callee.process, callee.callsPerRequest.toFixed(callee.callsPerRequest % 1 === 0 ? 0 : 2),
      formatMs(callee.meanMs), formatShare(callee.share), segmentsText(callee.segments)]
  }))
  return { head, rows }
}

/** The critical path in one sentence: its mean time, share, and the processes that were it. */
function criticalPathText (operation) {
  const critical = operation.criticalPath
  const processes = critical.processes.map((p) => `${p.process} (${formatCount(p.requests)} of ${formatCount(operation.requests)})`)
  return `Critical path (the call that ended last in each request): mean ${formatMs(critical.meanMs)} ms, ` +
    `${formatShare(critical.share)} of the request's time; it was ${processes.join(', ')}; inside it: ${segmentsText(critical.segments, Infinity)}.`
}

/** The critical path's segments: mean ms and share of its time. */
function criticalSegmentTable (operation) {
  return {
    head: ['segment on the critical path', 'kind', 'mean ms', 'share'],
    rows: operation.criticalPath.segments.map((s) => ({
      share: s.share, cells: [s.name, s.kind, formatMs(s.meanMs), formatShare(s.share)]
    }))
  }
}

/** What a share of the calls' time means, said once under the tables. */
const FAN_OUT_ABOUT = 'Share of the request\'s time = the calls\' time over the time of the requests that made them; calls made at ' +
  'once each come near 100%. The critical path is the call each request waited for last.'

module.exports = { fanOutTitle, calleeTable, criticalPathText, criticalSegmentTable, segmentsText, FAN_OUT_ABOUT }
