'use strict'

const { formatShare, formatCount, formatMs, formatPercent } = require('../../render/format')
const { isNamed } = require('./dominant')

// The owners' table as rows of text (render/tables.js lays it out).

/**
 * The answer first: for each operation and format (at the lowest process count measured), the function that owns
 * its time, its share, the next one, what no segment holds, and, where the workload names one, the function it
 * expected (and the reference's share of it).
 */
function ownerTable (summary) {
  const lowest = Math.min(...summary.cells.filter((c) => c.measured && c.operation).map((c) => c.processes))
  const cells = summary.cells.filter((c) => c.measured && c.operation && c.processes === lowest)
  const expects = cells.some((c) => c.studyFunction !== null)
  const withReference = summary.hasReference
  const head = ['operation', 'format', 'owns the time', 'kind', 'share', 'next', 'unattributed', 'requests', 'mean ms',
    ...(expects ? ['expected'] : []), ...(withReference ? ['reference share'] : [])]
  const rows = cells.map((c) => {
    const ranked = [...c.operation.segments].sort((a, b) => b.share - a.share)
    const [top, next] = ranked
    const same = c.studyFunction !== null && isNamed(top, c.studyFunction)
    const expected = c.studyFunction === null ? '-' : same ? `${c.studyFunction} (the same)` : c.studyFunction
    const reference = summary.table1.find((row) => row.scenario === c.scenario && row.format === c.format)
    return {
      share: top.share,
      warn: c.studyFunction !== null && !same,
      cells: [c.label, c.format, top.name, top.kind, formatShare(top.share),
        next ? `${next.name} ${formatShare(next.share)}` : '-', formatShare(c.operation.unattributedShare),
        formatCount(c.operation.count), formatMs(c.operation.responseTimeMs?.mean),
        ...(expects ? [expected] : []), ...(withReference ? [formatPercent(reference?.study?.[lowest])] : [])]
    }
  })
  return { head, rows, processes: Number.isFinite(lowest) ? lowest : null }
}

module.exports = { ownerTable }
