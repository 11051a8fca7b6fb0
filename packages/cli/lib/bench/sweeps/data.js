'use strict'

const { isNumber } = require('../../render/format')
const { valuesText } = require('../../kernel/sweep')
const { sweepLimits } = require('./findings')

// The figures of the report's sweeps (kernel/sweep.js): each cell's response time against the value its scenario
// varies first (the KIT study's Figs. 4 and 5 against documents, Fig. 6 against concurrent requests), one line per
// scenario and its other values (a back-end count); the workload's reference comparisons (`reference.sweeps`: this
// cell's response time over that one's at each value) beside the study's figures; and what this machine's cores
// can show of them, from `results.machine.cores`, rather than claiming what they cannot.

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
    // Each comparison's claim as the sentences and the table name it: the workload's, else what it sets against what.
    .map((comparison) => ({ ...comparison, claim: claimOf(comparison), rows: comparisonRows(summary, comparison) }))
  const claims = (Array.isArray(reference?.resources) ? reference.resources : []).filter(isPlainObject)
  const cores = isNumber(results.machine?.cores) ? results.machine.cores : null
  return {
    source: typeof reference?.source === 'string' ? reference.source : null,
    groups: groupsOf(swept),
    comparisons,
    resources: resourceRows(summary, results, claims),
    cores,
    limits: sweepLimits(comparisons, claims, cores)
  }
}

module.exports = { sweepSummary }
