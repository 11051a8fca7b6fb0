'use strict'

const { isNumber } = require('../../render/format')

// The sweeps in words: what this machine's cores can show of each comparison, and what they cannot.

/** What this machine can show of each comparison: `cores` it needs against `results.machine.cores`. */
function sweepLimits (comparisons, resources, cores) {
  const shows = []
  const needs = []
  for (const comparison of comparisons) {
    const name = `${comparison.figure ?? 'a comparison'} (${comparison.claim})`
    const tooFew = isNumber(comparison.cores) && isNumber(cores) && comparison.cores > cores
    if (tooFew) needs.push({ name, cores: comparison.cores })
    else shows.push(name)
  }
  for (const claim of resources) shows.push(`${claim.figure ?? 'the per-process table'} (${claim.claim ?? ''}; CPU and memory by process)`)
  const lines = []
  if (isNumber(cores)) {
    lines.push(`This machine has ${cores} core${cores === 1 ? '' : 's'}: every process of a cell (front-end, back-ends, the database, ` +
      'the load generator) shares them.')
  }
  if (shows.length) lines.push(`What it can show: ${shows.join('; ')}.`)
  if (needs.length) {
    const needed = needs.map((n) => `${n.name}, which needs ${n.cores} cores (a core for each back-end and the front-end)`)
    lines.push(`What needs more cores than it has, and is shown here without being claimed: ${needed.join('; ')}. On ${cores} ` +
      'cores more back-ends share the same cores: they can cost time, not save it.')
  }
  return lines
}

module.exports = { sweepLimits }
