'use strict'

const { formatShare, listText } = require('../../render/format')

// Who owns the time, in a sentence, for a workload without a study to check.

function largestShares (summary) {
  const rows = summary.dominance
  if (rows.length === 0) return 'No measured cell has a breakdown of its operation: which function owns the time is not shown.'
  return `The function with the largest share of response time: ${listText(rows.map((row) => `${row.hereFunction} in ${row.title} (${formatShare(row.hereShare)})`))}.`
}

module.exports = { largestShares }
