'use strict'

const { isNumber, formatMs, formatRatio, formatGain } = require('../render/format')
const { chartSpec } = require('../render/charts')
const { valuesText } = require('../kernel/sweep')

// The report's sweeps (kernel/sweep.js): each cell's response time against the value its scenario varies first
// (the KIT study's Figs. 4 and 5 against documents, Fig. 6 against concurrent requests), one line per scenario and
// its other values (a back-end count), as a chart and a table; the workload's reference comparisons
// (`reference.sweeps`: this cell's response time over that one's at each value) beside the study's figures; and
// what this machine's cores can show of them, from `results.machine.cores`, rather than claiming what they cannot.

const COMPARISON_MEASURES = Object.freeze(['ratio', 'gain'])

function isPlainObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The run's lists of each scenario's values: results.config.vary, else the values its cells carry. */
function runLists (results) {
  const lists = {}
  const fromConfig = isPlainObject(results.config?.vary) ? results.config.vary : {}
  for (const cell of results.cells ?? []) {
    if (!isPlainObject(cell.values)) continue
    const scenario = String(cell.scenario)
    lists[scenario] ??= isPlainObject(fromConfig[scenario]) ? { ...fromConfig[scenario] } : {}
    for (const [name, value] of Object.entries(cell.values)) {
      lists[scenario][name] ??= []
      if (!lists[scenario][name].includes(value)) lists[scenario][name].push(value)
    }
  }
  return lists
}

/** Whether every `[name, value]` of `wanted` is the cell's. */
function hasValues (cell, wanted = {}) {
  return Object.entries(wanted).every(([name, value]) => cell.values[name] === value)
}

/** A measured cell's mean response time (ms), or null. */
function responseMs (cell) {
  return cell !== undefined && cell.measured && isNumber(cell.latencyMs.mean) ? cell.latencyMs.mean : null
}

/** The swept cells: each with the name it is drawn against (`over`) and its series (scenario and other values). */
function sweptCells (summary, lists) {
  const swept = []
  for (const cell of summary.allCells) {
    const scenarioLists = lists[cell.scenario] ?? {}
    const varying = Object.keys(scenarioLists)
      .filter((name) => scenarioLists[name].length > 1 && Object.hasOwn(cell.values, name))
    if (varying.length === 0) continue
    const [over, ...others] = varying
    if (!isNumber(cell.values[over])) continue
    const otherValues = Object.fromEntries(others.map((name) => [name, cell.values[name]]))
    const topology = cell.topology === 'nginx' ? ', behind nginx' : ''
    const series = `${cell.label}${others.length ? `, ${valuesText(otherValues)}` : ''}${topology}`
    swept.push({ cell, over, x: cell.values[over], series, ms: responseMs(cell) })
  }
  return swept
}

/** Per varied name: its values, its series, and each series' response time at each value. */
function groupsOf (swept) {
  const groups = new Map()
  for (const point of swept) {
    if (!groups.has(point.over)) groups.set(point.over, { over: point.over, xs: new Set(), series: new Map() })
    const group = groups.get(point.over)
    group.xs.add(point.x)
    if (!group.series.has(point.series)) group.series.set(point.series, new Map())
    group.series.get(point.series).set(point.x, point)
  }
  return [...groups.values()].map((group) => ({
    over: group.over,
    xs: [...group.xs].sort((a, b) => a - b),
    series: [...group.series].map(([name, points]) => ({ name, points }))
  }))
}

/** `reference.sweeps` checked loosely: comparisons the report can compute, others left out. */
function comparisonsOf (reference) {
  const list = Array.isArray(reference?.sweeps) ? reference.sweeps : []
  return list.filter((c) => isPlainObject(c) && isPlainObject(c.of) && isPlainObject(c.against) &&
    typeof c.over === 'string' && COMPARISON_MEASURES.includes(c.measure))
}

/** One comparison at each value of its `over` both sides were measured at. */
function comparisonRows (summary, comparison) {
  const { over } = comparison
  const side = (wanted, x) => summary.allCells.find((cell) => cell.scenario === wanted.scenario &&
    cell.values[over] === x && hasValues(cell, isPlainObject(wanted.values) ? wanted.values : {}))
  const ofCells = summary.allCells
    .filter((cell) => cell.scenario === comparison.of.scenario && isNumber(cell.values[over]))
  const xs = [...new Set(ofCells.map((cell) => cell.values[over]))].sort((a, b) => a - b)
  const at = isPlainObject(comparison.study?.at) ? comparison.study.at : {}
  return xs.map((x) => {
    const ofMs = responseMs(side(comparison.of, x))
    const againstMs = responseMs(side(comparison.against, x))
    const here = ofMs === null || againstMs === null ? null : comparison.measure === 'ratio' ? ofMs / againstMs : againstMs / ofMs - 1
    const study = isNumber(at[x]) ? at[x] : null
    return { x, ofMs, againstMs, here, study }
  })
}

function claimOf (comparison) {
  return comparison.claim ?? `${comparison.of.scenario} against ${comparison.against.scenario}`
}

/** What this machine can show of each comparison: `cores` it needs against `results.machine.cores`. */
function limitsOf (comparisons, resources, cores) {
  const shows = []
  const needs = []
  for (const comparison of comparisons) {
    const name = `${comparison.figure ?? 'a comparison'} (${claimOf(comparison)})`
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

function sameValues (a, b) {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** A cell's values summed: which of a scenario's cells read the most (its largest documents and back-ends). */
function sizeOf (cell) {
  return Object.values(cell.values).reduce((sum, value) => sum + (isNumber(value) ? value : 0), 0)
}

/** The study's per-process claims beside this run's CPU by process in the claim's scenario (its largest read). */
function resourceRows (summary, results, claims) {
  return claims.map((claim) => {
    const raws = (results.cells ?? []).filter((raw) => raw.scenario === claim.scenario && raw.status === 'ok' &&
      Array.isArray(raw.resources?.processes))
    const cells = summary.allCells.filter((cell) => cell.scenario === claim.scenario && cell.measured)
      .map((cell) => ({ cell, raw: raws.find((raw) => sameValues(raw.values ?? {}, cell.values)) }))
      .filter(({ raw }) => raw !== undefined)
      .sort((a, b) => sizeOf(b.cell) - sizeOf(a.cell))
    if (cells.length === 0) return { figure: claim.figure ?? '-', claim: claim.claim ?? '-', cell: '-', here: 'not measured' }
    const [{ cell, raw }] = cells
    const here = raw.resources.processes.filter((p) => /^app/.test(p.role) && isNumber(p.cpuPercent?.mean))
      .map((p) => `${p.name} ${p.cpuPercent.mean.toFixed(0)}%`).join(', ')
    return { figure: claim.figure ?? '-', claim: claim.claim ?? '-', cell: cell.title, here }
  })
}

/**
 * Everything the sweep section shows, or null for a run without sweeps: `groups` (response time against each
 * varied name), `comparisons` (the reference's, with rows), `resources` (the per-process claims) and `limits`.
 */
function sweepSummary (summary, results) {
  const lists = runLists(results)
  const swept = sweptCells(summary, lists)
  if (swept.length === 0) return null
  const reference = isPlainObject(results.workload?.reference) ? results.workload.reference : null
  const comparisons = comparisonsOf(reference)
    .map((comparison) => ({ ...comparison, rows: comparisonRows(summary, comparison) }))
  const claims = (Array.isArray(reference?.resources) ? reference.resources : []).filter(isPlainObject)
  const cores = isNumber(results.machine?.cores) ? results.machine.cores : null
  return {
    source: typeof reference?.source === 'string' ? reference.source : null,
    groups: groupsOf(swept),
    comparisons,
    resources: resourceRows(summary, results, claims),
    cores,
    limits: limitsOf(comparisons, claims, cores)
  }
}

/** Response time (ms) of each series at each value of the group's name. */
function groupTable (group) {
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
function comparisonTable (sweep) {
  const head = ['figure', 'comparison', 'at', 'this run (ms)', 'this run', 'the study']
  const rows = []
  for (const comparison of sweep.comparisons) {
    const what = claimOf(comparison)
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

function resourceTable (sweep) {
  return {
    head: ['figure', 'the study', 'cell (its largest values)', 'here: mean CPU % of one core'],
    rows: sweep.resources.map((row) => ({ cells: [row.figure, row.claim, row.cell, row.here] }))
  }
}

/** Response time against each varied name: a line per series (log scales over wide ranges). */
function sweepCharts (sweep) {
  return sweep.groups.map((group) => {
    const values = group.series.flatMap((series) => [...series.points.values()].filter((point) => point.ms !== null)
      .map((point) => ({ series: series.name, x: point.x, ms: point.ms })))
    if (values.length === 0) return null
    const wide = group.xs[0] > 0 && group.xs[group.xs.length - 1] / group.xs[0] >= 20
    const title = `Response time against ${group.over}`
    return {
      kind: 'sweep',
      title,
      leftOut: [],
      spec: chartSpec({
        title: { text: title, subtitle: 'mean ms per request, one line per scenario and its other values' },
        width: 420,
        height: 240,
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: {
            field: 'x', type: 'quantitative', title: group.over, scale: wide ? { type: 'log' } : { zero: false }, axis: { values: group.xs }
          },
          y: { field: 'ms', type: 'quantitative', title: 'response time (ms)', scale: wide ? { type: 'log' } : {} },
          color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2, labelLimit: 300 } }
        }
      })
    }
  }).filter(Boolean)
}

module.exports = { sweepSummary, groupTable, comparisonTable, resourceTable, sweepCharts }
