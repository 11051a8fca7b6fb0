'use strict'

const {
  isNumber, formatCount, formatRate, formatMs, formatShare, formatRatio, processesText, failuresText, listText
} = require('../render/format')
const { chartSpec } = require('../render/charts')
const { TARGET_KINDS, LADDER } = require('../kernel/targets')
const { AB_PERCENTILES } = require('../kernel/load-observer')

// The report's section on the servers a run measured side by side (kernel/targets.js): each target's figures
// per scenario, format and process count, as Apache Bench prints them (requests/s, time per request, failed
// requests, the percentage of requests served within a time); the ladder from bare node:http to the traced
// app ("this machine serves N req/s bare, Express M, your app untraced U, traced T") with the share of the gap
// each step costs; and the workload's reference figures beside the run's (Paliwal's Table 2 for
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

const STEP_NAMES = Object.freeze({ node: 'bare node:http', express: 'Express', 'app-untraced': 'your app untraced', app: 'traced' })
const SERVER_NAMES = Object.freeze({ node: 'bare node:http', express: 'bare Express', 'app-untraced': 'the untraced app', app: 'the traced app' })
const STEP_COSTS = Object.freeze({ express: 'Express', 'app-untraced': 'the app\'s own code', app: 'nodebench' })

/** The ladder in one sentence. */
function ladderSentence (group, ladder) {
  const where = `${group.label} (${group.format})${group.processes === null ? '' : `, ${processesText(group.processes)}`}`
  const rates = ladder.steps.map((s) => `${STEP_NAMES[s.kind]} ${formatRate(s.requestsPerSec)}`)
  const serves = `This machine serves ${rates[0]} req/s${rates.length > 1 ? `, ${rates.slice(1).join(', ')}` : ''}`
  if (ladder.gapUs <= 0) return `${where}: ${serves}: the traced app is as fast as the bare server here (no gap to share).`
  const shares = ladder.steps.slice(1).map((s) => `${s.cost} ${formatShare(s.share)} (${formatUs(s.addedUs)})`)
  const missing = ladder.missing.length ? ` Not measured: ${listText(ladder.missing.map((kind) => STEP_NAMES[kind]))}.` : ''
  const noisy = ladder.steps.filter((s) => s.withinNoise).map((s) => {
    const before = ladder.steps[ladder.steps.indexOf(s) - 1]
    return `the repetitions of ${SERVER_NAMES[before.kind]} (${rangeText(before.range)} req/s) and ${SERVER_NAMES[s.kind]} ` +
      `(${rangeText(s.range)}) overlap, so ${s.cost}'s share is within this run's noise`
  })
  const noise = noisy.length ? ` ${capitalized(listText(noisy))}.` : ''
  return `${where}: ${serves}. Of the ${formatUs(ladder.gapUs)} a request costs above bare node:http, ${listText(shares)}.${noise}${missing}`
}

function rangeText (range) {
  return `${formatRate(range.min)} to ${formatRate(range.max)}`
}

function capitalized (text) {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function formatUs (value) {
  return isNumber(value) ? `${microseconds(value)} µs` : '-'
}

function microseconds (value) {
  return isNumber(value) ? (Math.abs(value) >= 100 ? formatCount(value) : value.toFixed(1)) : '-'
}

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

/** A sentence when other work kept the machine's cores busy during the run (its load average above its cores). */
function busyMachine (machine) {
  const load = machine && machine.loadAverage
  if (!load || !Array.isArray(load.start) || !isNumber(machine.cores)) return null
  const highest = Math.max(load.start[0], ...(Array.isArray(load.end) ? [load.end[0]] : []))
  if (!(highest > machine.cores)) return null
  return `The machine was busy with other work: its load average was ${load.start[0]} when the run started` +
    `${Array.isArray(load.end) ? ` and ${load.end[0]} when it ended` : ''}, on ${machine.cores} cores. Every server had less of the CPU ` +
    'than on an idle machine: compare the servers with each other, not with figures taken elsewhere, and see the CPU by process.'
}

/** What the section shows, or null when the run measured the app alone. */
function targetsSummary (results) {
  const targets = targetsOf(results)
  if (targets.length < 2 && !(results.targetCells ?? []).length) return null
  const entries = targetCells(results, targets)
  const labels = results.workload && results.workload.scenarios ? results.workload.scenarios : {}
  const groups = groupsOf(entries).map((group) => {
    const withLabel = { ...group, label: (labels[group.scenario] && labels[group.scenario].label) || group.scenario }
    return { ...withLabel, ladder: ladderOf(withLabel) }
  })
  const notes = [...(results.targetNotes ?? [])]
  const untraced = targets.filter((t) => !t.traced).map((t) => `${t.name} (${t.label})`)
  if (untraced.length) {
    notes.push(`${listText(untraced)} ${untraced.length === 1 ? 'runs' : 'run'} without nodebench: no breakdown, only the load's figures and the processes' CPU and memory.`)
  }
  for (const entry of entries.filter(({ cell, target }) => target.kind === 'app-untraced' && cell.tracedAnyway)) {
    notes.push(`The app without nodebench still answered /__nodebench (${entry.cell.scenario}, ${entry.cell.format}): it ignores NODEBENCH=off, so its "untraced" cells ran traced.`)
  }
  if (results.openFiles && results.openFiles.enough === false) notes.push(results.openFiles.note)
  const busy = busyMachine(results.machine)
  if (busy !== null) notes.push(busy)
  const overflowed = entries.filter(({ cell }) => cell.listenQueue && cell.listenQueue.overflows > 0)
  if (overflowed.length) {
    const each = overflowed.map(({ cell, target }) => `${target.name} ${formatCount(cell.listenQueue.overflows)}`)
    notes.push(`Connection attempts turned away by a full listen queue while the load ran (the kernel's ListenOverflows): ${listText(each)}. ` +
      'Each waits for its SYN to be sent again (1 s, then 3 s): the seconds of the longest requests. A backlog is 511 by default for ' +
      'Node.js and Apache httpd, fewer than 1,000 clients connecting at once.')
  }
  return { targets, groups, reference: referenceOf(results), notes }
}

function serverText (target) {
  const server = target.server
  if (!server) return '-'
  const parts = []
  if (server.apache) parts.push(`Apache ${server.apache}, PHP ${server.php ?? '?'}, prefork MaxRequestWorkers ${server.prefork?.maxRequestWorkers ?? '?'}, KeepAlive ${server.prefork?.keepAlive === false ? 'off' : 'on'}`)
  if (server.node) parts.push(`Node.js ${server.node}`)
  if (server.express) parts.push(`Express ${server.express.version} (${server.express.from})`)
  if (server.reply) parts.push(`serves ${server.reply.from === 'app' ? 'the app\'s answer' : '"Hello World"'} (${server.reply.status}, ${formatCount(server.reply.bytes)} B)`)
  return parts.join('; ') || '-'
}

/** The targets: what each is and how it ran. */
function targetTable (summary) {
  const head = ['target', 'kind', 'what it is', 'breakdown', 'server']
  const rows = summary.targets.map((target) => ({
    cells: [target.name, target.kind, target.label + (target.script ? ` (${target.script})` : '') + (target.root ? ` (${target.root})` : ''),
      target.traced ? 'yes' : 'none: runs without nodebench', serverText(target)]
  }))
  return { head, rows }
}

/** A group's targets side by side, as Apache Bench reports a run. */
function groupTable (group) {
  const head = ['target', 'req/s', 'time per request ms (ab)', 'mean latency ms', 'failed', 'non-2xx',
    ...AB_PERCENTILES.map((p) => `${p}% ms`), 'requests', 'breakdown']
  const rows = group.rows.map((row) => {
    const start = [row.target.name]
    if (!row.ok) return { cells: [...start, 'failed'], failed: true, message: row.failureCode ? `${row.failureCode}: ${row.failure}` : row.failure }
    return {
      warn: row.failed > 0 || row.tracedAnyway,
      cells: [...start, formatRate(row.requestsPerSec), formatMs(row.timePerRequestMs), formatMs(row.latencyMeanMs),
        row.failed === 0 ? '0' : `${formatCount(row.failed)} (${failuresText(row.failures)})`, formatCount(row.non2xx),
        ...AB_PERCENTILES.map((p) => formatMs(row.percentiles ? row.percentiles[p] : null)),
        formatCount(row.requests), row.breakdown]
    }
  })
  return { head, rows }
}

/** The ladder: each step's requests/s, cost per request, what it adds and its share of the gap. */
function ladderTable (ladder) {
  const head = ['step', 'req/s', 'repetitions\' req/s', 'µs per request (1 / req/s)', 'added µs', 'what it adds', 'share of the gap']
  const rows = ladder.steps.map((step) => ({
    warn: step.withinNoise,
    cells: [STEP_NAMES[step.kind], formatRate(step.requestsPerSec), step.range === null ? '-' : rangeText(step.range), microseconds(step.costUs),
      microseconds(step.addedUs), step.cost ? `${step.cost}${step.withinNoise ? ' (within the noise)' : ''}` : '-', formatShare(step.share)]
  }))
  return { head, rows, numeric: [false, true, false, true, true, false, true] }
}

// The reference's figures, each with how this run's counterpart is read.
const REFERENCE_ROWS = Object.freeze([
  { key: 'requests', label: 'requests', here: (row) => row.requests, format: formatCount },
  { key: 'concurrency', label: 'concurrent connections', here: (row) => row.connections, format: formatCount },
  { key: 'requestsPerSec', label: 'requests per second', here: (row) => row.requestsPerSec, format: formatRate },
  // Every request that failed, by bench's classes: no answer (timeouts, resets, refused) or not the expected status.
  { key: 'failed', label: 'failed requests', here: (row) => row.failed, format: formatCount },
  { key: 'timePerRequestMs', label: 'time per request, mean (ms)', here: (row) => row.timePerRequestMs, format: formatMs },
  ...AB_PERCENTILES.map((p) => ({ key: `p${p}`, label: `${p}% within (ms)`, here: (row) => (row.percentiles ? row.percentiles[p] : null), format: formatMs }))
])

/** The reference's figures beside this run's, per target it has figures for (the first group that ran them). */
function referenceTable (summary) {
  const reference = summary.reference
  const names = Object.keys(reference.figures)
  const group = summary.groups.find((g) => names.some((name) => g.rows.some((row) => row.target.name === name)))
  if (!group) return null
  const here = (name) => group.rows.find((row) => row.target.name === name && row.ok) ?? null
  const head = ['figure', ...names.flatMap((name) => [`${name}: study`, `${name}: here`])]
  const value = (figures, key) => (key.startsWith('p') && figures.percentilesMs ? figures.percentilesMs[key.slice(1)] : figures[key])
  const rows = REFERENCE_ROWS.filter(({ key }) => names.some((name) => isNumber(value(reference.figures[name], key))) || key === 'requestsPerSec')
    .map(({ key, label, here: read, format }) => ({
      cells: [label, ...names.flatMap((name) => {
        const row = here(name)
        return [format(value(reference.figures[name], key)), row === null ? 'failed' : format(read(row))]
      })]
    }))
  const ratio = (name) => {
    const row = here(name)
    const study = reference.figures[name].requestsPerSec
    return row && isNumber(study) ? row.requestsPerSec / study : null
  }
  rows.push({ study: true, cells: ['here ÷ study, req/s', ...names.flatMap((name) => ['', formatRatio(ratio(name))])] })
  return { head, rows, group }
}

/** Requests/s by target, one chart per scenario and format (a bar per target and process count). */
function targetCharts (summary) {
  const charts = new Map()
  for (const group of summary.groups) {
    const key = `${group.scenario} ${group.format}`
    if (!charts.has(key)) charts.set(key, { group, values: [] })
    for (const row of group.rows.filter((r) => r.ok)) {
      charts.get(key).values.push({ target: row.target.name, processes: group.processes === null ? 'its own' : processesText(group.processes), requestsPerSec: row.requestsPerSec })
    }
  }
  return [...charts.values()].filter(({ values }) => values.length > 0).map(({ group, values }) => ({
    kind: 'targets',
    scenario: group.scenario,
    format: group.format,
    title: `${group.label} (${group.format}): requests/s by server`,
    leftOut: [],
    spec: chartSpec({
      title: { text: `${group.label} (${group.format}): requests/s by server`, subtitle: 'one bar per target and process count' },
      width: 360,
      height: 200,
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'target', type: 'nominal', title: null, sort: summary.targets.map((t) => t.name) },
        yOffset: { field: 'processes', type: 'nominal' },
        x: { field: 'requestsPerSec', type: 'quantitative', title: 'requests/s' },
        color: { field: 'processes', type: 'nominal', title: 'processes', scale: { scheme: 'tableau10' } }
      }
    })
  }))
}

/** Latency percentiles (Apache Bench's) by target, one chart per group. */
function percentileCharts (summary) {
  return summary.groups.map((group) => {
    const values = group.rows.filter((row) => row.ok && row.percentiles)
      .flatMap((row) => AB_PERCENTILES.map((p) => ({ target: row.target.name, percentile: `${p}%`, ms: row.percentiles[p] })))
    if (values.length === 0) return null
    const where = group.processes === null ? '' : `, ${processesText(group.processes)}`
    return {
      kind: 'target-percentiles',
      scenario: group.scenario,
      format: group.format,
      title: `${group.label} (${group.format})${where}: requests served within`,
      leftOut: [],
      spec: chartSpec({
        title: { text: `${group.label} (${group.format})${where}: requests served within`, subtitle: 'ms at each percentile (Apache Bench\'s), a line per target' },
        width: 360,
        height: 210,
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'percentile', type: 'ordinal', sort: AB_PERCENTILES.map((p) => `${p}%`), title: 'requests served within', axis: { labelAngle: 0 } },
          y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { type: 'symlog' } },
          color: { field: 'target', type: 'nominal', title: 'target', sort: summary.targets.map((t) => t.name) }
        }
      })
    }
  }).filter(Boolean)
}

function groupTitle (group) {
  return `${group.label} (${group.format})${group.processes === null ? '' : `, ${processesText(group.processes)}`}`
}

module.exports = {
  targetsSummary,
  targetTable,
  groupTable,
  ladderTable,
  ladderSentence,
  referenceTable,
  targetCharts,
  percentileCharts,
  groupTitle
}
