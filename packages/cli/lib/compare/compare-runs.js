'use strict'

const { PERCENTILES } = require('../kernel/repetition')
const { valuesText } = require('../kernel/sweep')
const { ALPHA, compareValues, comparePaired } = require('./statistics')
const { inputError } = require('./read-run')
const { databaseNotes } = require('./database-notes')

// Two runs of one workload compared (the comparison compare.json holds, and its renderers show): for every cell
// both measured (scenario, format, processes, topology, and a sweep's values), the cell's figures, and for every
// operation of the cell each segment's mean time and share, each figure with its change, interval and verdict
// (statistics.js).
// A figure's values are one per repetition (per window under callgrind). Cells, operations and segments on one
// side only are listed, not dropped. Segments are matched by kind and name (the n-th of that kind and name for
// repeated ones), not by position or source line, which any edit moves.

const COMPARE_SCHEMA = 1

const LATENCY_LABELS = Object.freeze({ p50: 'latency p50', p75: 'latency p75', p90: 'latency p90', p97_5: 'latency p97.5', p99: 'latency p99' })

const cellKey = ({ scenario, format, processes, topology, values }) =>
  `${scenario}|${format}|${processes}|${topology ?? 'cluster'}|${JSON.stringify(values ?? {})}`
const operationKey = ({ method, route, format }) => `${method} ${route} [${format}]`

/**
 * `cell`'s name as the reports write it: `item read (json), 1 process` (`, nginx` for that topology; a sweep's
 * values after it: `, documents 1,000, backends 4`).
 */
function cellLabel (cell, workload) {
  const label = workload?.scenarios?.[cell.scenario]?.label ?? cell.scenario
  const topology = (cell.topology ?? 'cluster') === 'cluster' ? '' : `, ${cell.topology}`
  const values = valuesText(cell.values)
  return `${label} (${cell.format}), ${cell.processes} process${cell.processes === 1 ? '' : 'es'}${topology}${values === '' ? '' : `, ${values}`}`
}

/** The verdict on a compared figure, `better` saying which way is good ('higher', 'lower', or null: a share). */
function verdictOf (compared, better, undecided) {
  if (!compared.decidable) return undecided
  const estimate = compared.change.scale === 'ratio' ? compared.change.percent : compared.change.difference.estimate
  if (!compared.significant || estimate === 0) return 'no significant change'
  const up = estimate > 0
  if (better === 'higher') return up ? 'faster' : 'slower'
  if (better === 'lower') return up ? 'slower' : 'faster'
  return up ? 'larger' : 'smaller'
}

/**
 * A figure compared: `{ id, label, unit, better, a, b, change, p, verdict }`. `paired`: value i of each side
 * belong together (--measure instructions' windows: the same requests at the same point of the warm-up).
 */
function figure ({ id, label, unit, better }, aValues, bValues, undecided, paired = false) {
  const compared = paired ? comparePaired(aValues, bValues) : compareValues(aValues, bValues)
  const { a, b, change, p } = compared
  return { id, label, unit, better, a, b, change, p, verdict: verdictOf(compared, better, undecided) }
}

/** Segments keyed by kind, name and occurrence (the second `validate` middleware is `middleware validate #2`). */
function keyedSegments (segments) {
  const seen = new Map()
  const keyed = new Map()
  for (const segment of [...segments].sort((x, y) => x.order - y.order)) {
    const base = `${segment.kind} ${segment.name}`
    const occurrence = (seen.get(base) ?? 0) + 1
    seen.set(base, occurrence)
    keyed.set(occurrence === 1 ? base : `${base} #${occurrence}`, { ...segment, occurrence })
  }
  return keyed
}

/**
 * A side's operations in a cell, each with its figures per repetition: `Map(key -> { operation, responseMs:
 * [], segments: Map(key -> { segment, meanMs: [], share: [] }) })`. Schema 2 has them per repetition; schema 1
 * has only the cell's breakdown, one value for all its repetitions (`perRepetition` false).
 */
function operationsOf (cell) {
  const reps = Array.isArray(cell.reps) ? cell.reps : []
  const perRepetition = reps.length > 0 && reps.every((rep) => Array.isArray(rep.operations))
  const sets = perRepetition ? reps.map((rep) => rep.operations) : [cell.breakdown?.operations ?? []]
  const operations = new Map()
  for (const set of sets) {
    for (const operation of set) {
      if (!(operation.count > 0)) continue
      const key = operationKey(operation)
      if (!operations.has(key)) {
        const { method, route, format } = operation
        operations.set(key, { operation: { method, route, format }, responseMs: [], count: 0, segments: new Map() })
      }
      const entry = operations.get(key)
      entry.count += operation.count
      entry.responseMs.push(operation.responseTimeMs.mean)
      for (const [segmentKey, segment] of keyedSegments(operation.segments ?? [])) {
        if (!entry.segments.has(segmentKey)) {
          const { name, kind, occurrence } = segment
          entry.segments.set(segmentKey, { segment: { name, kind, occurrence }, meanMs: [], share: [] })
        }
        const values = entry.segments.get(segmentKey)
        values.meanMs.push(segment.meanMs)
        values.share.push(segment.share)
      }
    }
  }
  return { perRepetition, operations }
}

/** What one side alone had, for the lists of operations and segments on one side only. */
function oneSide (values) {
  const mean = (list) => (list.length === 0 ? null : list.reduce((sum, v) => sum + v, 0) / list.length)
  return { meanMs: mean(values.meanMs), share: mean(values.share) }
}

/** Each operation of a cell compared (response time, then every segment's mean time and share). */
function compareOperations (aCell, bCell, undecided, paired) {
  const a = operationsOf(aCell)
  const b = operationsOf(bCell)
  const reason = !a.perRepetition || !b.perRepetition ? 'no per-repetition figures (schema 1)' : undecided
  const keys = [...new Set([...a.operations.keys(), ...b.operations.keys()])]
  return keys.map((key) => {
    const aEntry = a.operations.get(key)
    const bEntry = b.operations.get(key)
    const { operation } = aEntry ?? bEntry
    if (aEntry === undefined || bEntry === undefined) {
      const entry = aEntry ?? bEntry
      return {
        ...operation,
        key,
        on: aEntry ? 'a' : 'b',
        requests: entry.count,
        responseTime: null,
        segments: [...entry.segments.values()].map((values) => ({ ...values.segment, on: aEntry ? 'a' : 'b', only: oneSide(values), meanMs: null, share: null }))
      }
    }
    const segmentKeys = [...new Set([...aEntry.segments.keys(), ...bEntry.segments.keys()])]
    const segments = segmentKeys.map((segmentKey) => {
      const aValues = aEntry.segments.get(segmentKey)
      const bValues = bEntry.segments.get(segmentKey)
      if (aValues === undefined || bValues === undefined) {
        const values = aValues ?? bValues
        return { ...values.segment, on: aValues ? 'a' : 'b', only: oneSide(values), meanMs: null, share: null }
      }
      return {
        ...aValues.segment,
        on: 'both',
        meanMs: figure({ id: 'meanMs', label: 'mean time', unit: 'ms', better: 'lower' }, aValues.meanMs, bValues.meanMs, reason, paired),
        share: figure({ id: 'share', label: 'share', unit: 'share', better: null }, aValues.share, bValues.share, reason, paired)
      }
    })
    return {
      ...operation,
      key,
      on: 'both',
      requests: { a: aEntry.count, b: bEntry.count },
      responseTime: figure({ id: 'responseMs', label: 'response time', unit: 'ms', better: 'lower' }, aEntry.responseMs, bEntry.responseMs, reason, paired),
      segments
    }
  })
}

/** The cell's own figures: throughput and latency percentiles, or instructions per request under callgrind. */
function cellFigures (aCell, bCell, measure, undecided) {
  const reps = (cell) => cell.reps ?? []
  if (measure === 'instructions') {
    const values = (cell, key) => reps(cell).map((rep) => rep[key])
    const instructions = { id: 'instructions', label: 'instructions per request', unit: 'instructions', better: 'lower' }
    const all = { id: 'instructions.all', label: 'with GC and compiling', unit: 'instructions', better: 'lower' }
    return [
      figure(instructions, values(aCell, 'instructionsPerRequest'), values(bCell, 'instructionsPerRequest'), undecided, true),
      figure(all, values(aCell, 'allInstructionsPerRequest'), values(bCell, 'allInstructionsPerRequest'), undecided, true)
    ]
  }
  const figures = [figure({ id: 'throughput', label: 'requests/s', unit: 'req/s', better: 'higher' },
    reps(aCell).map((rep) => rep.requestsPerSec), reps(bCell).map((rep) => rep.requestsPerSec), undecided)]
  for (const percentile of PERCENTILES) {
    const latency = (cell) => reps(cell).map((rep) => rep.latencyMs?.[percentile])
    const id = `latency.${percentile}`
    figures.push(figure({ id, label: LATENCY_LABELS[percentile], unit: 'ms', better: 'lower' }, latency(aCell), latency(bCell), undecided))
  }
  return figures
}

/** The cells of a run by key, and those that did not measure. */
function cellsOf (results) {
  const measured = new Map()
  const failed = []
  for (const cell of results.cells) {
    if (cell.status === 'ok') measured.set(cellKey(cell), cell)
    else failed.push(cell)
  }
  return { measured, failed }
}

/** What each side sent a common cell: the same connections and requests (or seconds) per repetition. */
function checkSameLoad (aCell, bCell, label) {
  const load = (cell) => `${cell.connections} connections, ${cell.amount !== null && cell.amount !== undefined ? `${cell.amount} requests` : `${cell.duration} s`} per repetition`
  if (load(aCell) !== load(bCell)) {
    throw inputError(`${label}: a sent ${load(aCell)}, b ${load(bCell)}; compare runs of the same workload and load`)
  }
}

/**
 * Compares run `a` with run `b` (bench's results, schema 1 to 3; `a` the base, `b` the change): the comparison
 * compare.json holds. `sides`: `{ a: { name, source }, b }` (what to call each side, where it came from).
 * `measure`: 'time' (requests/s, latency, segments' times per repetition) or 'instructions' (instructions per
 * request per window under callgrind, segments' times per window). Throws NB_ERR_COMPARE_INPUT when they are not
 * comparable: different workloads, a different load on a common cell, no cell in common.
 */
function compareRuns (a, b, { sides, measure = 'time', mode = 'runs', failOn = null, now = new Date() }) {
  const workload = a.workload
  if (a.workload.name !== b.workload.name) {
    throw inputError(`a ran workload '${a.workload.name}' and b '${b.workload.name}': compare needs the same workload on both sides`)
  }
  const aCells = cellsOf(a)
  const bCells = cellsOf(b)
  const common = [...aCells.measured.keys()].filter((key) => bCells.measured.has(key))
  const listed = (cells) => [...cells.values()].map((cell) => cellLabel(cell, workload))
  if (common.length === 0) {
    const aList = listed(aCells.measured).join('; ') || 'none measured'
    const bList = listed(bCells.measured).join('; ') || 'none measured'
    throw inputError(`no cell measured in both runs (a: ${aList}; b: ${bList}); compare needs the same scenario, format, processes, topology and varied values on both sides`)
  }
  const unit = measure === 'instructions' ? 'window' : 'repetition'
  const undecided = `too few ${unit}s`
  const notes = []
  for (const [side, results] of [['a', a], ['b', b]]) {
    if (results.schema === 1) {
      notes.push(`${side} is a results.json of schema 1: its repetitions carry no segment figures, so segments' and operations' changes have ` +
        'no interval and no verdict (bench again with this version for them); requests/s and latency are compared in full')
    }
  }
  notes.push(...databaseNotes(a, b))
  const cells = common.map((key) => {
    const aCell = aCells.measured.get(key)
    const bCell = bCells.measured.get(key)
    const label = cellLabel(aCell, workload)
    checkSameLoad(aCell, bCell, label)
    return {
      scenario: aCell.scenario,
      format: aCell.format,
      processes: aCell.processes,
      topology: aCell.topology ?? 'cluster',
      values: aCell.values ?? {},
      label,
      reps: { a: aCell.reps?.length ?? 0, b: bCell.reps?.length ?? 0 },
      figures: cellFigures(aCell, bCell, measure, undecided),
      operations: compareOperations(aCell, bCell, undecided, measure === 'instructions'),
      ...(measure === 'instructions' ? instructionWindows(aCell, bCell) : {})
    }
  })
  const smallest = Math.min(...cells.flatMap((cell) => [cell.reps.a, cell.reps.b]))
  if (cells.some((cell) => cell.figures[0].verdict === undecided)) {
    notes.push(`fewer than 4 ${unit}s on a side (or 3 against 5) cannot show a significant change at alpha ${ALPHA}: ` +
      `those figures say "${undecided}" (this comparison has ${smallest} at least)`)
  }
  const missingFrom = (from, other) =>
    [...from.measured].filter(([key]) => !other.measured.has(key)).map(([, cell]) => cellLabel(cell, workload))
  const onlyIn = { a: missingFrom(aCells, bCells), b: missingFrom(bCells, aCells) }
  for (const cell of cells) {
    // Instructions: a change that differs between the earlier and the later windows has not settled.
    const { earlier, later } = cell.halves ?? {}
    if (!earlier || !later || earlier.percent === null || later.percent === null) continue
    const apart = Math.abs(later.percent - earlier.percent)
    if (apart > Math.max(2, Math.abs(later.percent) / 4)) {
      notes.push(`${cell.label}: instructions per request changed by ${earlier.percent.toFixed(1)}% in the earlier windows and ` +
        `${later.percent.toFixed(1)}% in the later ones: the warm-up had not settled; give a larger --warmup`)
    }
  }
  const failedCells = [...aCells.failed.map((cell) => ({ on: 'a', cell: cellLabel(cell, workload), failure: cell.failure ?? 'failed' })),
    ...bCells.failed.map((cell) => ({ on: 'b', cell: cellLabel(cell, workload), failure: cell.failure ?? 'failed' }))]
  const comparison = {
    schema: COMPARE_SCHEMA,
    createdAt: now.toISOString(),
    mode,
    measure,
    method: methodOf(measure),
    workload: workload.name,
    sides: {
      a: sideOf(a, sides.a),
      b: sideOf(b, sides.b)
    },
    failOn,
    cells,
    onlyIn,
    failedCells,
    notes
  }
  comparison.summary = summaryOf(comparison)
  comparison.regressions = regressionsOf(comparison)
  return comparison
}

function methodOf (measure) {
  if (measure === 'instructions') {
    return {
      test: 'Wilcoxon signed-rank',
      alpha: ALPHA,
      unit: 'window',
      interval: 'Hodges-Lehmann (Walsh averages), 95%',
      text: `Wilcoxon signed-rank test (two-sided, exact, alpha ${ALPHA}) over the windows, a's and b's window i paired (the ` +
        'same requests at the same point of the warm-up); the change is the Hodges-Lehmann estimate of the windows\' b/a ' +
        'ratio with its 95% interval from the same test. Instructions per request: counted by callgrind in the app\'s ' +
        'process, less what garbage collection and V8\'s compilers ran (they land in whichever window is running; with ' +
        'them: "with GC and compiling"). Segments: the breakdown\'s times under callgrind in the same windows (valgrind runs ' +
        'the app on one thread, so a segment\'s time there follows the instructions it runs, plus what it waits for)'
    }
  }
  return {
    test: 'Mann-Whitney U',
    alpha: ALPHA,
    unit: 'repetition',
    interval: 'Hodges-Lehmann, 95%',
    text: `Mann-Whitney U test (two-sided, exact, alpha ${ALPHA}) over the repetitions of each side; the change is the ` +
      'Hodges-Lehmann estimate (the median of every b/a ratio) with its 95% interval from the same test'
  }
}

/**
 * --measure instructions: each side's windows, and the change of instructions per request in the earlier half
 * of the windows and in the later half, to show that a later window gives the same.
 */
function instructionWindows (aCell, bCell) {
  const aReps = aCell.reps ?? []
  const bReps = bCell.reps ?? []
  const count = Math.min(aReps.length, bReps.length)
  const half = Math.floor(count / 2)
  const halfOf = (from, to) => {
    if (to <= from) return null
    const perRequest = (reps) => reps.slice(from, to).map((rep) => rep.instructionsPerRequest)
    const compared = comparePaired(perRequest(aReps), perRequest(bReps))
    const requests = [aReps[from].from, aReps[to - 1].to]
    return { windows: [from + 1, to], requests, percent: compared.change?.percent ?? null }
  }
  return {
    windows: { a: aCell.windows ?? null, b: bCell.windows ?? null },
    halves: half === 0 ? null : { earlier: halfOf(0, half), later: halfOf(count - half, count) }
  }
}

function sideOf (results, side) {
  return {
    name: side.name,
    source: side.source,
    schema: results.schema,
    createdAt: results.createdAt ?? null,
    node: results.machine?.node ?? null,
    cpuModel: results.machine?.cpuModel ?? null,
    reps: results.config?.reps ?? null
  }
}

/** Every verdict of every figure compared, counted; and the segments that moved. */
function summaryOf (comparison) {
  const counts = {}
  const count = (verdict) => { counts[verdict] = (counts[verdict] ?? 0) + 1 }
  const moved = []
  for (const cell of comparison.cells) {
    for (const f of cell.figures) count(f.verdict)
    for (const operation of cell.operations) {
      if (operation.responseTime) count(operation.responseTime.verdict)
      for (const segment of operation.segments) {
        if (segment.meanMs === null) continue
        count(segment.meanMs.verdict)
        count(segment.share.verdict)
        if (segment.meanMs.verdict === 'slower' || segment.meanMs.verdict === 'faster') {
          const { verdict, change, p } = segment.meanMs
          const { name, kind } = segment
          moved.push({ cell: cell.label, operation: operation.key, segment: name, kind, verdict, change, p })
        }
      }
    }
  }
  return { verdicts: counts, movedSegments: moved }
}

/**
 * How much worse b is than a at least, in percent, by `change`'s 95% interval: the interval's end nearest no
 * change (`low` for a figure that grew, `-high` for one that fell), null without an interval.
 */
function leastWorsening (change) {
  const nearest = change.percent > 0 ? change.low : change.high
  return nearest === null || nearest === undefined ? null : Math.abs(nearest)
}

/**
 * With --fail-on <percent>: every cell whose throughput (instructions per request under callgrind) and every
 * segment whose mean time got significantly worse, by more than that over its whole 95% interval:
 * `[{ cell, what, percent, low, high, p }]`. An estimate beyond the percentage whose interval reaches below it
 * (a segment of a few microseconds, +38% with an interval from +1.4% to +1,600%) is no regression: the gate
 * fails only on a change it is sure is larger than the percentage.
 */
function regressionsOf (comparison) {
  if (comparison.failOn === null) return []
  const limit = comparison.failOn
  const beyond = (figure) => figure.verdict === 'slower' && leastWorsening(figure.change) > limit
  const regressions = []
  for (const cell of comparison.cells) {
    const main = cell.figures[0]
    if (beyond(main)) {
      const { percent, low, high } = main.change
      regressions.push({ cell: cell.label, what: main.label, segment: null, percent, low, high, p: main.p })
    }
    for (const operation of cell.operations) {
      for (const segment of operation.segments) {
        const time = segment.meanMs
        if (time === null || !beyond(time)) continue
        const what = `${segment.name} (${segment.kind}) mean time in ${operation.key}`
        const { percent, low, high } = time.change
        regressions.push({ cell: cell.label, what, segment: segment.name, percent, low, high, p: time.p })
      }
    }
  }
  return regressions
}

module.exports = { compareRuns, cellLabel, COMPARE_SCHEMA }
