'use strict'

const { isNumber, formatCount, formatRate, formatMs, formatShare, formatRatio, processesText, failuresText } = require('../../render/format')
const { AB_PERCENTILES } = require('../../kernel/load-observer')
const { STEP_NAMES, rangeText, microseconds } = require('./findings')

// The tables of the servers side by side as rows of text (render/tables.js lays them out).

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
function targetGroupTable (group) {
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
function targetReferenceTable (summary) {
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

/** A group's heading: its scenario, format and process count. */
function targetGroupTitle (group) {
  return `${group.label} (${group.format})${group.processes === null ? '' : `, ${processesText(group.processes)}`}`
}

module.exports = { targetTable, targetGroupTable, targetGroupTitle, ladderTable, targetReferenceTable }
