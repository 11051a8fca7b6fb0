'use strict'

const { isNumber, formatMs, formatRate, formatCount, formatShare, listText } = require('../render/format')

// What the compare report's renderers (report.js) show, as text, from a comparison (compare-runs.js): each
// figure's values, change and interval as the reader reads them, the headline, the verdict lines and the tables.

/** A figure's value in its unit. */
function formatValue (value, unit) {
  if (!isNumber(value)) return '-'
  if (unit === 'ms') return formatMs(value)
  if (unit === 'req/s') return formatRate(value)
  if (unit === 'share') return formatShare(value)
  return formatCount(value)
}

/** +12.3%, -0.4%; '-' for none. */
function formatPercentChange (percent) {
  if (!isNumber(percent)) return '-'
  const digits = Math.abs(percent) < 10 ? 1 : 0
  const text = percent.toFixed(digits)
  return `${percent >= 0 && !text.startsWith('-') ? '+' : ''}${text === '-0.0' ? '0.0' : text}%`
}

/** The interval of a change, `-15.1% to -9.8%`; '-' where there is none. */
function formatInterval (change) {
  if (change === null || !isNumber(change.low) || !isNumber(change.high)) return '-'
  return `${formatPercentChange(change.low)} to ${formatPercentChange(change.high)}`
}

function formatP (p) {
  if (!isNumber(p)) return '-'
  return p < 0.001 ? '<0.001' : p.toFixed(3)
}

/** A figure in one phrase: `requests/s -12.3% (95% CI -15.1% to -9.8%, p 0.008): slower`. */
function figurePhrase (label, f) {
  const interval = formatInterval(f.change)
  const detail = [interval === '-' ? null : `95% CI ${interval}`, isNumber(f.p) ? `p ${formatP(f.p)}` : null].filter(Boolean).join(', ')
  return `${label} ${formatPercentChange(f.change?.percent)}${detail ? ` (${detail})` : ''}: ${f.verdict}`
}

/** The row of a figure in a table: its a and b medians, change, interval, p, verdict. */
function figureCells (f) {
  const change = formatPercentChange(f.change?.percent)
  const values = [formatValue(f.a.median, f.unit), formatValue(f.b.median, f.unit)]
  return [...values, change, formatInterval(f.change), formatP(f.p), f.verdict]
}

function sideName (comparison, side) {
  return comparison.sides[side].name
}

/** The headline: what moved, in one sentence. */
function headline (comparison) {
  const counts = comparison.summary.verdicts
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0)
  const moved = ['slower', 'faster', 'larger', 'smaller'].filter((v) => counts[v]).map((v) => `${counts[v]} ${v}`)
  const what = moved.length === 0 ? 'no significant change' : listText(moved)
  return `${sideName(comparison, 'b')} against ${sideName(comparison, 'a')}: ${what} among ${total} figures of ${comparison.cells.length} cell${comparison.cells.length === 1 ? '' : 's'}` +
    (comparison.measure === 'instructions' ? ' (instructions under callgrind)' : '')
}

/** One line per regression beyond --fail-on (what the command prints, and the report's first list). */
function regressionLines (comparison) {
  return comparison.regressions.map((r) =>
    `${r.cell}: ${r.what} ${formatPercentChange(r.percent)} (95% CI ${formatInterval(r)}, p ${formatP(r.p)}), worse than --fail-on ${comparison.failOn}%`)
}

/** The verdicts, first: per cell its own figure and the segments whose mean time moved. */
function verdictLines (comparison) {
  const lines = []
  for (const cell of comparison.cells) {
    const [main, ...rest] = cell.figures
    const latency = rest.filter((f) => f.id === 'latency.p50' || f.id === 'latency.p99').map((f) => figurePhrase(f.label, f))
    // Instructions: the change in the earlier and in the later windows, the same when the count has settled.
    const halves = cell.halves && cell.halves.earlier && cell.halves.later
      ? [`earlier windows (requests ${cell.halves.earlier.requests.join('-')}) ${formatPercentChange(cell.halves.earlier.percent)}, ` +
          `later windows (${cell.halves.later.requests.join('-')}) ${formatPercentChange(cell.halves.later.percent)}`]
      : []
    lines.push(`${cell.label}: ${[figurePhrase(main.label, main), ...latency, ...halves].join('; ')}`)
  }
  return lines
}

/** The segments whose mean time changed significantly, one line each. */
function movedSegmentLines (comparison) {
  const lines = []
  for (const cell of comparison.cells) {
    for (const operation of cell.operations) {
      for (const segment of operation.segments) {
        const time = segment.meanMs
        if (time === null || (time.verdict !== 'slower' && time.verdict !== 'faster')) continue
        lines.push(`${segment.name} (${segment.kind}) in ${operation.key}, ${cell.label}: ` +
          `${formatValue(time.a.median, 'ms')} -> ${formatValue(time.b.median, 'ms')} ms, ${figurePhrase('mean time', time)}`)
      }
    }
  }
  return lines
}

/** What was on one side only, failed, or limits the comparison. */
function listedLines (comparison) {
  const lines = []
  for (const side of ['a', 'b']) {
    for (const cell of comparison.onlyIn[side]) lines.push(`cell only in ${side} (${sideName(comparison, side)}): ${cell}`)
  }
  for (const { on, cell, failure } of comparison.failedCells) lines.push({ text: `${cell} failed in ${on}: ${failure}`, kind: 'warn' })
  for (const cell of comparison.cells) {
    for (const operation of cell.operations) {
      if (operation.on !== 'both') {
        lines.push(`operation only in ${operation.on} (${sideName(comparison, operation.on)}): ${operation.key} in ${cell.label}, ${formatCount(operation.requests)} requests`)
        continue
      }
      for (const segment of operation.segments) {
        if (segment.on === 'both') continue
        lines.push(`segment only in ${segment.on} (${sideName(comparison, segment.on)}): ${segment.name} (${segment.kind}) in ${operation.key}, ${cell.label}: ` +
          `mean ${formatValue(segment.only.meanMs, 'ms')} ms, ${formatShare(segment.only.share)} of the time`)
      }
    }
  }
  return [...lines, ...comparison.notes.map((text) => ({ text, kind: 'warn' }))]
}

/** The table of every cell's own figures. */
function cellTable (comparison) {
  const a = sideName(comparison, 'a')
  const b = sideName(comparison, 'b')
  return {
    head: ['cell', 'figure', `a: ${a}`, `b: ${b}`, 'change', '95% CI', 'p', 'verdict'],
    numeric: [false, false, true, true, true, true, true, false],
    rows: comparison.cells.flatMap((cell) => cell.figures.map((f) => ({ cells: [cell.label, f.label, ...figureCells(f)], warn: f.verdict === 'slower' })))
  }
}

/** One table per operation of a cell: its response time and each segment's mean time and share. */
function segmentTables (comparison) {
  const tables = []
  for (const cell of comparison.cells) {
    for (const operation of cell.operations) {
      if (operation.on !== 'both') continue
      const rows = [{ cells: ['response time', '', ...figureCells(operation.responseTime)], warn: operation.responseTime.verdict === 'slower' }]
      for (const segment of operation.segments) {
        if (segment.on !== 'both') {
          const only = segment.only
          rows.push({ cells: [segment.name, segment.kind, ...(segment.on === 'a' ? [formatMs(only.meanMs), '-'] : ['-', formatMs(only.meanMs)]), '-', '-', '-', `only in ${segment.on}`] })
          continue
        }
        rows.push({ cells: [segment.name, segment.kind, ...figureCells(segment.meanMs)], warn: segment.meanMs.verdict === 'slower' })
        rows.push({ cells: ['', 'share', ...figureCells(segment.share)] })
      }
      tables.push({
        cell: cell.label,
        operation: operation.key,
        table: {
          head: ['segment', 'kind', 'a (ms)', 'b (ms)', 'change', '95% CI', 'p', 'verdict'],
          numeric: [false, false, true, true, true, true, true, false],
          rows
        }
      })
    }
  }
  return tables
}

/** Instructions mode: each side's windows, to show a later window gives the same figure. */
function windowTable (comparison) {
  if (comparison.measure !== 'instructions') return null
  const rows = []
  for (const cell of comparison.cells) {
    for (const side of ['a', 'b']) {
      const windows = cell.windows?.[side]
      if (!windows) continue
      const values = windows.list.map((w) => w.instructionsPerRequest)
      const spread = values.length > 1 ? (Math.max(...values) / Math.min(...values) - 1) * 100 : null
      rows.push({
        cells: [cell.label, side, `${windows.warmup} + ${windows.list.length} x ${windows.requests}`,
          values.map((v) => formatCount(v)).join(', '), spread === null ? '-' : `${spread.toFixed(2)}%`]
      })
    }
  }
  return {
    head: ['cell', 'side', 'warm-up + windows x requests', 'instructions per request, window by window', 'spread'],
    numeric: [false, false, false, false, true],
    rows
  }
}

module.exports = {
  formatValue,
  formatPercentChange,
  formatInterval,
  formatP,
  figurePhrase,
  headline,
  regressionLines,
  verdictLines,
  movedSegmentLines,
  listedLines,
  cellTable,
  segmentTables,
  windowTable
}
