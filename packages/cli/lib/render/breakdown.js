'use strict'

const { formatCount, formatMs, formatShare } = require('./format')
const { numericColumns } = require('./tables')

// A breakdown's operation as the reports show it (the bench report's cells, the report page of a service): its
// segments in path order with their counts, percentiles and shares, each followed by the dependencies it waited
// on, then what no segment holds.

/** `1.6 calls`: calls per invocation of the segment, as the terminal's table writes them. */
function callsText (count) {
  return `${count} ${count === 1 ? 'call' : 'calls'}`
}

/**
 * The rows under a segment: each dependency it waited on (`└ mongodb find users`, whatever its system: a
 * database, an outgoing call, rendering), its calls per invocation of the segment, the time waited per
 * invocation and its share of the operation's response time (part of the segment's, never added to it).
 */
function dependencyRows (segment) {
  return (Array.isArray(segment.dependencies) ? segment.dependencies : []).map((dependency) => ({
    share: dependency.share,
    cells: [
      '', `└ ${[dependency.system, dependency.operation, dependency.target].filter(Boolean).join(' ')}`, 'dependency',
      typeof dependency.count === 'number' ? callsText(dependency.count) : '-', formatMs(dependency.meanMs), '', '', '',
      formatShare(dependency.share)
    ]
  }))
}

/**
 * One operation's segments in path order, each with its dependencies under it, then `unattributed`, as a table
 * (render/tables.js lays it out).
 */
function segmentTable (operation) {
  const head = ['#', 'segment', 'kind', 'count', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'share']
  const segments = operation.segments || []
  const rows = segments.map((s) => ({
    share: s.share,
    cells: [
      String(s.order + 1), s.name, s.kind, formatCount(s.count),
      formatMs(s.meanMs), formatMs(s.p50Ms), formatMs(s.p95Ms),
      formatMs(s.p99Ms), formatShare(s.share)
    ]
  }))
  rows.push({ share: operation.unattributedShare, cells: ['', 'unattributed', '', '', '', '', '', '', formatShare(operation.unattributedShare)] })
  // The columns align as the segments' figures read: a dependency's `1.6 calls` stays under the counts.
  const numeric = numericColumns({ head, rows })
  const withDependencies = segments.flatMap((segment, i) => [rows[i], ...dependencyRows(segment)])
  return { head, numeric, rows: [...withDependencies, rows[rows.length - 1]] }
}

/** `GET /route [json]: 300 requests, 0 errors; response time mean ... ms, p50 ..., max ...`. */
function operationText (operation) {
  const rt = operation.responseTimeMs || {}
  return `${operation.method} ${operation.route} [${operation.format}]: ${formatCount(operation.count)} requests, ` +
    `${formatCount(operation.errors)} errors; response time mean ${formatMs(rt.mean)} ms, p50 ${formatMs(rt.p50)}, ` +
    `p95 ${formatMs(rt.p95)}, p99 ${formatMs(rt.p99)}, max ${formatMs(rt.max)}`
}

module.exports = { segmentTable, dependencyRows, operationText }
