'use strict'

const { isNumber, formatMs, formatRatio, formatGain } = require('../../render/format')

// The sweep section's tables as rows of text (render/tables.js lays them out).

/** Response time (ms) of each series at each value of the group's name. */
function sweepGroupTable (group) {
  const head = ['series', ...group.xs.map((x) => `${group.over} ${x.toLocaleString('en-US')}`)]
  const rows = group.series.map((series) => ({
    cells: [series.name, ...group.xs.map((x) => {
      const point = series.points.get(x)
      if (point === undefined) return '-'
      return point.cell.failed ? 'failed' : point.ms === null ? '-' : formatMs(point.ms)
    })]
  }))
  return { head, numeric: [false, ...group.xs.map(() => true)], rows }
}

function comparisonValue (measure, value) {
  if (!isNumber(value)) return '-'
  return measure === 'ratio' ? `${(value * 100).toFixed(0)}% (${formatRatio(value)})` : formatGain(value + 1)
}

/** The reference's comparisons beside this run's, a row per value measured (and the study's "up to"). */
function sweepComparisonTable (sweep) {
  const head = ['figure', 'comparison', 'at', 'this run (ms)', 'this run', 'the study']
  const rows = []
  for (const comparison of sweep.comparisons) {
    const what = comparison.claim
    const needsMore = isNumber(comparison.cores) && sweep.cores !== null && comparison.cores > sweep.cores
    for (const row of comparison.rows) {
      rows.push({
        warn: needsMore,
        cells: [comparison.figure ?? '-', what, `${comparison.over} ${row.x.toLocaleString('en-US')}`,
          row.ofMs === null || row.againstMs === null ? '-' : `${formatMs(row.ofMs)} / ${formatMs(row.againstMs)}`,
          comparisonValue(comparison.measure, row.here), comparisonValue(comparison.measure, row.study)]
      })
    }
    if (isNumber(comparison.study?.upTo)) {
      const measured = comparison.rows.filter((row) => isNumber(row.here)).map((row) => row.here)
      const best = measured.length ? Math.max(...measured) : null
      rows.push({
        warn: needsMore,
        cells: [comparison.figure ?? '-', what, 'largest', '-', comparisonValue(comparison.measure, best),
          `up to ${comparisonValue(comparison.measure, comparison.study.upTo)}`]
      })
    }
    if (comparison.rows.length === 0) rows.push({ cells: [comparison.figure ?? '-', what, '-', 'not measured', '-', '-'] })
  }
  return { head, rows }
}

/** The study's per-process claims beside this run's CPU by process. */
function sweepResourceTable (sweep) {
  return {
    head: ['figure', 'the study', 'cell (its largest values)', 'here: mean CPU % of one core'],
    rows: sweep.resources.map((row) => ({ cells: [row.figure, row.claim, row.cell, row.here] }))
  }
}

module.exports = { sweepGroupTable, sweepComparisonTable, sweepResourceTable }
