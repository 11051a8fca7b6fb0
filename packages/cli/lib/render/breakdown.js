'use strict'

const { formatCount, formatMs, formatShare } = require('./format')

// A breakdown's operation as the reports show it (the bench report's cells, the report page of a service): its
// segments in path order with their counts, percentiles and shares, then what no segment holds.

/** One operation's segments in path order, then `unattributed`, as a table (render/tables.js lays it out). */
function segmentTable (operation) {
  const head = ['#', 'segment', 'kind', 'count', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'share']
  const rows = (operation.segments || []).map((s) => ({
    share: s.share,
    cells: [
      String(s.order + 1), s.name, s.kind, formatCount(s.count),
      formatMs(s.meanMs), formatMs(s.p50Ms), formatMs(s.p95Ms),
      formatMs(s.p99Ms), formatShare(s.share)
    ]
  }))
  rows.push({ share: operation.unattributedShare, cells: ['', 'unattributed', '', '', '', '', '', '', formatShare(operation.unattributedShare)] })
  return { head, rows }
}

/** `GET /route [json]: 300 requests, 0 errors; response time mean ... ms, p50 ..., max ...`. */
function operationText (operation) {
  const rt = operation.responseTimeMs || {}
  return `${operation.method} ${operation.route} [${operation.format}]: ${formatCount(operation.count)} requests, ` +
    `${formatCount(operation.errors)} errors; response time mean ${formatMs(rt.mean)} ms, p50 ${formatMs(rt.p50)}, ` +
    `p95 ${formatMs(rt.p95)}, p99 ${formatMs(rt.p99)}, max ${formatMs(rt.max)}`
}

module.exports = { segmentTable, operationText }
