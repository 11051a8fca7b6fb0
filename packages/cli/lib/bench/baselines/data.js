'use strict'

const { isNumber, listText } = require('../../render/format')
const { TARGET_KINDS, LADDER } = require('../../kernel/targets')
const { targetsNotes } = require('./findings')
const { pairedCostOf } = require('./pairs')

// The figures of the report's section on the servers a run measured side by side (kernel/targets.js): each
// target's figures per scenario, format and process count, as Apache Bench prints them (requests/s, time per
// request, failed requests, the percentage of requests served within a time); the ladder from bare node:http to
// the traced app ("this machine serves N req/s bare, Express M, your app untraced U, traced T") with the share of
// the gap each step costs; and the workload's reference figures beside the run's (Paliwal's Table 2 for
// examples/baseline). From results.json's `targets`, `cells` (the app's) and `targetCells` (the others').

/** A target's description from results.json, else from its kind. */
function targetsOf (results) {
  const described = Array.isArray(results.targets) ? results.targets : []
  return described.filter((target) => target && typeof target.name === 'string')
}

/** Every measured or failed cell of every target, each with its target's description. */
function targetCells (results, targets) {
  const byName = new Map(targets.map((target) => [target.name, target]))
  const app = targets.find((target) => target.kind === 'app') ?? { name: 'app', kind: 'app', label: TARGET_KINDS.app.label, traced: true }
  const cells = [...(results.cells ?? []), ...(results.targetCells ?? [])]
  return cells.map((cell) => ({ cell, target: byName.get(cell.target) ?? app }))
}

function failedCount (cell) {
  const failures = {}
  for (const rep of Array.isArray(cell.reps) ? cell.reps : []) {
    for (const [kind, count] of Object.entries(rep.failures ?? {})) failures[kind] = (failures[kind] ?? 0) + count
  }
  return { failures, failed: Object.values(failures).reduce((sum, n) => sum + n, 0) }
}

/** One target's figures in a group. */
function rowOf ({ cell, target }) {
  const ok = cell.status === 'ok' && cell.requestsPerSec && isNumber(cell.requestsPerSec.mean)
  const rate = ok ? cell.requestsPerSec.mean : null
  const { failures, failed } = failedCount(cell)
  return {
    target,
    ok,
    failure: ok ? null : String(cell.failure ?? 'no figures'),
    failureCode: cell.failureCode ?? null,
    requestsPerSec: rate,
    // The spread over repetitions, to tell a step from the noise (none with one repetition).
    range: ok && Array.isArray(cell.reps) && cell.reps.length > 1
      ? { min: cell.requestsPerSec.min, max: cell.requestsPerSec.max }
      : null,
    reps: ok && Array.isArray(cell.reps) ? cell.reps.length : 0,
    // When each repetition started (ms since the epoch), where results say it: null for older runs.
    startsMs: ok && Array.isArray(cell.reps) && cell.reps.every((rep) => isNumber(rep.startedAtMs))
      ? cell.reps.map((rep) => rep.startedAtMs)
      : null,
    // The repetitions as results hold them, for pairing the app's with the untraced app's (pairs.js).
    repetitions: ok && Array.isArray(cell.reps) ? cell.reps : null,
    // How the traced app keeps its requests' async context (its snapshot's requestContext), when it does.
    requestContext: cell.breakdown?.requestContext ?? null,
    // Apache Bench's "Time per request (mean)": the concurrency's time over the requests done.
    timePerRequestMs: ok && rate > 0 && isNumber(cell.connections) ? cell.connections * 1000 / rate : null,
    costUs: ok && rate > 0 ? 1e6 / rate : null,
    latencyMeanMs: ok && cell.latencyMs ? cell.latencyMs.mean : null,
    percentiles: ok ? cell.latencyPercentilesMs ?? null : null,
    requests: isNumber(cell.requests) ? cell.requests : null,
    failed,
    failures,
    non2xx: isNumber(cell.non2xx) ? cell.non2xx : 0,
    bytes: isNumber(cell.bytesPerResponse) ? cell.bytesPerResponse : null,
    breakdown: cell.breakdown ? 'yes' : target.traced ? 'none recorded' : 'none: runs without nodebench',
    tracedAnyway: cell.tracedAnyway === true,
    connections: isNumber(cell.connections) ? cell.connections : null,
    processes: cell.processes
  }
}

/**
 * Groups of cells that can be set side by side: the same scenario and format, at a process count (Apache,
 * whose prefork pool is its own, beside every process count), only where the run has several targets.
 */
function groupsOf (entries) {
  const groups = new Map()
  const counts = [...new Set(entries.map(({ cell }) => cell.processes).filter(isNumber))].sort((a, b) => a - b)
  for (const entry of entries) {
    const { cell } = entry
    if (cell.topology === 'nginx') continue
    const at = cell.processes === null ? counts : [cell.processes]
    for (const processes of at.length ? at : [null]) {
      const key = `${cell.scenario} ${cell.format} ${processes}`
      if (!groups.has(key)) groups.set(key, { scenario: cell.scenario, format: cell.format, processes, entries: [] })
      groups.get(key).entries.push(entry)
    }
  }
  return [...groups.values()].map((group) => ({ ...group, rows: group.entries.map(rowOf) }))
}

/**
 * The ladder of a group: bare node:http, Express, the app without nodebench, the app; each step's added cost
 * per request (1 / requests/s: what a request costs the server at saturation, which adds up from step to step)
 * and its share of the whole gap. Null without the bare ceiling and the traced app.
 */
function ladderOf (group) {
  // An "untraced" app that still served a breakdown ran traced: it is no step of the ladder.
  const step = (kind) => group.rows.find((row) => row.target.kind === kind && row.ok && !row.tracedAnyway) ?? null
  const steps = LADDER.map((kind) => ({ kind, row: step(kind) })).filter(({ row }) => row !== null)
  if (steps.length < 2 || steps[0].kind !== 'node' || steps[steps.length - 1].kind !== 'app') return null
  const gapUs = steps[steps.length - 1].row.costUs - steps[0].row.costUs
  return {
    steps: steps.map(({ kind, row }, index) => {
      const addedUs = index === 0 ? null : row.costUs - steps[index - 1].row.costUs
      // What the step adds: its own cost, and that of the steps between it and the one before that did not run.
      const from = index === 0 ? 0 : LADDER.indexOf(steps[index - 1].kind) + 1
      const covers = index === 0 ? [] : LADDER.slice(from, LADDER.indexOf(kind) + 1)
      const before = index === 0 ? null : steps[index - 1].row
      return {
        kind,
        requestsPerSec: row.requestsPerSec,
        costUs: row.costUs,
        addedUs,
        share: addedUs === null || gapUs <= 0 ? null : addedUs / gapUs,
        cost: listText(covers.map((covered) => STEP_COSTS[covered])),
        // The two steps' repetitions overlap: the step is within the run's noise.
        withinNoise: before !== null && row.range !== null && before.range !== null &&
          row.range.min <= before.range.max && before.range.min <= row.range.max,
        range: row.range
      }
    }),
    gapUs,
    missing: LADDER.filter((kind) => !steps.some((s) => s.kind === kind))
  }
}

/**
 * What nodebench costs the app in a group where the app ran traced and untraced (NODEBENCH=off) and no bare server
 * made a ladder: the traced request's added cost at saturation (1 / requests/s, as the ladder's steps), against
 * the untraced app's. Null without both. Repetitions run in interleaved pairs (pairs.js) are judged pair by pair:
 * the cost is the pairs' median, and noise the sign-flip chance of their differences. Others (runs before
 * `startedAtMs`, one server's repetitions after the other's, a repetition missing) as two samples: the servers'
 * ranges of repetitions, and how often noise alone would part them.
 */
function nodebenchCostOf (group) {
  const row = (kind) => group.rows.find((r) => r.target.kind === kind && r.ok && !r.tracedAnyway) ?? null
  const traced = row('app')
  const untraced = row('app-untraced')
  if (traced === null || untraced === null) return null
  const figures = {
    traced: { requestsPerSec: traced.requestsPerSec, range: traced.range },
    untraced: { requestsPerSec: untraced.requestsPerSec, range: untraced.range, costUs: untraced.costUs },
    reps: { traced: traced.reps, untraced: untraced.reps },
    interleaved: interleavedRuns(traced.startsMs, untraced.startsMs),
    requestContext: traced.requestContext
  }
  const paired = pairedCostOf(traced.repetitions, untraced.repetitions)
  if (paired !== null) {
    return {
      ...figures,
      addedUs: paired.median,
      share: paired.median / untraced.costUs,
      // The pairs' differences no further from zero than noise makes them one run in 20, unless they are as far
      // as n pairs can be (all on one side): a figure, with more repetitions asked for.
      withinNoise: paired.chance > 0.05 && paired.chance > paired.leastChance,
      chance: paired.chance,
      paired
    }
  }
  const addedUs = traced.costUs - untraced.costUs
  const withinNoise = traced.range !== null && untraced.range !== null &&
    traced.range.min <= untraced.range.max && untraced.range.min <= traced.range.max
  return {
    ...figures,
    addedUs,
    share: addedUs / untraced.costUs,
    // One repetition each gives no spread; overlapping repetitions put the difference within the run's noise.
    withinNoise,
    // Repetitions that do not overlap: how often noise alone would part them so.
    chance: withinNoise || traced.range === null || untraced.range === null
      ? null
      : separationChance(traced.reps, untraced.reps),
    paired: null
  }
}

/**
 * Whether two servers' repetitions ran interleaved (bench/matrix.js: each started while the other's ran), so that
 * the order of the repetitions carries nothing of a drift of the machine's; false when one server's all ran before
 * the other's; null when the results do not say when they started (a run before startedAtMs).
 */
function interleavedRuns (a, b) {
  if (a === null || b === null) return null
  return Math.min(...a) < Math.max(...b) && Math.min(...b) < Math.max(...a)
}

/**
 * How often two servers' repetitions fall apart (every one of a server's above every one of the other's, either
 * way) by noise alone: if all n + m repetitions came from one distribution, each of the C(n + m, n) ways of
 * choosing which were the first server's is as likely, and two of them part the servers. 1 in 3 with two
 * repetitions each, 1 in 10 with three, 1 in 35 with four. A rank test's exact tail, made for this: no library
 * needed for one binomial coefficient.
 */
function separationChance (n, m) {
  let ways = 1
  for (let i = 1; i <= n; i++) ways = ways * (m + i) / i
  return Math.min(1, 2 / ways)
}

const STEP_COSTS = Object.freeze({ express: 'Express', 'app-untraced': 'the app\'s own code', app: 'nodebench' })

/** The workload's reference figures per target (`reference.targets`), e.g. Paliwal's Table 2. */
function referenceOf (results) {
  const reference = results.workload && results.workload.reference
  const targets = reference && reference.targets
  if (!targets || typeof targets !== 'object' || !targets.figures || typeof targets.figures !== 'object') return null
  return {
    source: typeof targets.source === 'string' ? targets.source : (typeof reference.source === 'string' ? reference.source : 'the reference'),
    table: typeof targets.table === 'string' ? targets.table : null,
    setup: typeof targets.setup === 'string' ? targets.setup : null,
    figures: targets.figures,
    findings: Array.isArray(reference.findings) ? reference.findings.map(String) : []
  }
}

/** What the section shows, or null when the run measured the app alone. */
function targetsSummary (results) {
  const targets = targetsOf(results)
  if (targets.length < 2 && !(results.targetCells ?? []).length) return null
  const entries = targetCells(results, targets)
  const labels = results.workload && results.workload.scenarios ? results.workload.scenarios : {}
  const groups = groupsOf(entries).map((group) => {
    const withLabel = { ...group, label: (labels[group.scenario] && labels[group.scenario].label) || group.scenario }
    const ladder = ladderOf(withLabel)
    // The ladder says nodebench's cost already, as one of its steps.
    return { ...withLabel, ladder, nodebenchCost: ladder === null ? nodebenchCostOf(withLabel) : null }
  })
  return { targets, groups, reference: referenceOf(results), notes: targetsNotes(results, targets, entries) }
}

module.exports = { targetsSummary }
