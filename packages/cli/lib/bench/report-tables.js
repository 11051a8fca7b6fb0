'use strict'

const {
  isNumber, formatCount, formatRate, formatMs, formatShare, formatPercent, formatRatio, formatGain, formatBytes,
  formatMemory, processesText, statusCodesText, failuresText
} = require('../render/format')
const { segmentTable } = require('../render/breakdown')
const { AB_PERCENTILES } = require('../kernel/load-observer')
const { STEP_NAMES, rangeText, microseconds } = require('./report-findings')
const { isNamed } = require('./dominant')

// The report's tables as plain rows of text, shared by the Markdown and the HTML renderers (render/tables.js
// escapes and lays them out). Each table: { head: [...], rows: [{ cells: [...], failed?, warn?, message? }] }.

function nonOkText (cell) {
  if (cell.non2xx === 0) return '0'
  const codes = statusCodesText(Object.fromEntries(Object.entries(cell.statusCodes).filter(([code]) => !/^2/.test(code))))
  const redirects = cell.responses.redirects > 0 ? ', expected redirects' : ''
  // A scenario that expects a 4xx or 5xx: those answers are what it asked for, not failures.
  const expected = cell.expectedStatus >= 400 && cell.statusCodes[cell.expectedStatus] > 0 ? `, ${cell.expectedStatus} expected` : ''
  return `${formatCount(cell.non2xx)}${codes ? ` (${codes}${redirects}${expected})` : ''}`
}

/** Every cell: its figures, or "failed" and why. Twelve columns: it fits a 1400 px window. */
function cellTable (summary) {
  const head = ['operation', 'format', 'processes', 'status', 'req/s mean (min to max)', 'latency ms p50 / p99 / max', 'requests', 'errors',
    'timeouts', 'non-2xx', 'bytes/response']
  const numeric = [false, false, true, false, true, true, true, true, true, true, true]
  const rows = summary.allCells.map((c) => {
    const start = [c.label, c.format, c.topology === 'nginx' ? `${c.processes} behind nginx` : String(c.processes)]
    if (c.failed) return { cells: [...start, 'failed'], failed: true, message: c.failure }
    const rate = c.requestsPerSec || {}
    const spread = rate.min === rate.max ? '' : ` (${formatRate(rate.min)} to ${formatRate(rate.max)})`
    return {
      warn: c.responses.unexpected > 0 || c.errors > 0 || c.timeouts > 0,
      cells: [...start, c.measured ? 'ok' : 'ok (no figures)', `${formatRate(rate.mean)}${spread}`,
        `${formatMs(c.latencyMs.p50)} / ${formatMs(c.latencyMs.p99)} / ${formatMs(c.latencyMs.max)}`, formatCount(c.requests),
        formatCount(c.errors), formatCount(c.timeouts), nonOkText(c), formatCount(c.bytesPerResponse)]
    }
  })
  return { head, numeric, rows }
}

/**
 * The answer first: for each operation and format (at the lowest process count measured), the function that owns
 * its time, its share, the next one, what no segment holds, and, where the workload names one, the function it
 * expected (and the reference's share of it).
 */
function ownerTable (summary) {
  const lowest = Math.min(...summary.cells.filter((c) => c.measured && c.operation).map((c) => c.processes))
  const cells = summary.cells.filter((c) => c.measured && c.operation && c.processes === lowest)
  const expects = cells.some((c) => c.studyFunction !== null)
  const withReference = summary.hasReference
  const head = ['operation', 'format', 'owns the time', 'kind', 'share', 'next', 'unattributed', 'requests', 'mean ms',
    ...(expects ? ['expected'] : []), ...(withReference ? ['reference share'] : [])]
  const rows = cells.map((c) => {
    const ranked = [...c.operation.segments].sort((a, b) => b.share - a.share)
    const [top, next] = ranked
    const same = c.studyFunction !== null && isNamed(top, c.studyFunction)
    const expected = c.studyFunction === null ? '-' : same ? `${c.studyFunction} (the same)` : c.studyFunction
    const reference = summary.table1.find((row) => row.scenario === c.scenario && row.format === c.format)
    return {
      share: top.share,
      warn: c.studyFunction !== null && !same,
      cells: [c.label, c.format, top.name, top.kind, formatShare(top.share),
        next ? `${next.name} ${formatShare(next.share)}` : '-', formatShare(c.operation.unattributedShare),
        formatCount(c.operation.count), formatMs(c.operation.responseTimeMs?.mean),
        ...(expects ? [expected] : []), ...(withReference ? [formatPercent(reference?.study?.[lowest])] : [])]
    }
  })
  return { head, rows, processes: Number.isFinite(lowest) ? lowest : null }
}

/** JSON against HTML per operation and process count. */
function throughputTable (summary) {
  const head = ['operation', 'processes', 'HTML req/s', 'JSON req/s', 'JSON ÷ HTML req/s', 'HTML mean ms', 'JSON mean ms', 'HTML ÷ JSON latency']
  const rows = summary.htmlVsJson.map((row) => {
    const start = [row.label, String(row.processes)]
    if (row.jsonOverHtml === null) {
      const side = (format) => (row[format] ? formatRate(row[format].requestsPerSec) : row.missing.includes(`${format} failed`) ? 'failed' : 'not measured')
      return { cells: [...start, side('html'), side('json'), '-', '-', '-', '-'], failed: true }
    }
    return {
      warn: row.jsonOverHtml <= 1,
      cells: [
        ...start,
        formatRate(row.html.requestsPerSec), formatRate(row.json.requestsPerSec), formatRatio(row.jsonOverHtml),
        formatMs(row.html.latencyMeanMs), formatMs(row.json.latencyMeanMs), formatRatio(row.htmlOverJsonLatency)
      ]
    }
  })
  return { head, rows }
}

/** The study's Table 1 beside the same share here, a row each, for every process count of either. */
function table1Table (summary) {
  const counts = [...new Set([...summary.studyProcesses, ...summary.processes])].sort((a, b) => a - b)
  const head = ['function', 'operation', 'format', 'source', ...counts.map((n) => `${n} proc`)]
  const rows = []
  for (const row of summary.table1) {
    const start = [row.function, row.label, row.format]
    rows.push({
      cells: [...start, 'here', ...counts.map((n) => {
        if (row.failed.includes(n)) return 'failed'
        if (!(n in row.here)) return '-'
        const top = row.top[n]
        const other = top && top.name !== row.function ? ` (${top.name} leads: ${formatShare(top.share)})` : ''
        return formatPercent(row.here[n]) + other
      })]
    })
    rows.push({ study: true, cells: [...start, 'study', ...counts.map((n) => formatPercent(row.study[n]))] })
  }
  return { head, rows }
}

/** Which function owns each measured cell's time, here and in the study. */
function dominanceTable (summary) {
  const head = ['operation', 'format', 'processes', 'largest share here', 'share', "study's function", 'its share here', 'study (Table 1)', 'same function']
  const rows = summary.dominance.map((row) => ({
    warn: !row.matches,
    cells: [row.label, row.format, String(row.processes), row.hereFunction, formatShare(row.hereShare), row.studyFunction || '-',
      formatShare(row.studyFunctionShare), formatPercent(row.studyPercent), row.studyFunction === null ? '-' : row.matches ? 'yes' : 'no']
  }))
  return { head, rows }
}

function responseSizeTable (summary) {
  const head = ['operation', 'format', 'bytes/response here', 'study', 'here ÷ study']
  const rows = summary.responseSizes.map((row) => ({
    cells: [row.label, row.format, formatBytes(row.bytes) + (row.varies ? ' (varies by process count)' : ''), formatBytes(row.studyBytes),
      row.studyBytes ? formatRatio(row.bytes / row.studyBytes) : '-']
  }))
  for (const ratio of summary.sizeRatios) {
    rows.push({ cells: [ratio.label, 'HTML ÷ JSON', formatRatio(ratio.here), formatRatio(ratio.study), isNumber(ratio.study) ? formatRatio(ratio.here / ratio.study) : '-'] })
  }
  return { head, rows }
}

/** What a breakdown says about an operation, and which processes served it, in one line. */
function operationLine (cell) {
  const operation = cell.operation
  const rt = operation.responseTimeMs || {}
  const breakdown = cell.breakdown
  let served = ''
  if (Array.isArray(breakdown.processes)) {
    served = `; served by ${breakdown.processes.map((p) => `pid ${p.pid} (${formatCount(p.requests)} requests)`).join(', ')}`
  } else if (Array.isArray(breakdown.instances)) {
    // Read from Prometheus: every instance whose metrics held requests of the cell's window.
    const instances = breakdown.instances.map((i) => `${i.pid === null ? i.id : `pid ${i.pid}`} at ${i.address} (${formatCount(i.requests)} requests)`)
    served = `; from Prometheus, served by ${instances.join(', ')}`
  }
  // The answers the scenario expects (`status: 400`) are not its errors (kernel/repetition.js takeExpectedErrors).
  const expected = isNumber(operation.expectedErrors) && operation.expectedErrors > 0
    ? ` (${formatCount(operation.expectedErrors)} more answered ${cell.expectedStatus}, as the workload expects)`
    : ''
  return `${operation.method} ${operation.route} [${operation.format}]: ${formatCount(operation.count)} requests, ${formatCount(operation.errors)} errors${expected}; ` +
    `response time in the app mean ${formatMs(rt.mean)} ms, p50 ${formatMs(rt.p50)}, p95 ${formatMs(rt.p95)}, p99 ${formatMs(rt.p99)}, max ${formatMs(rt.max)}${served}`
}

/** The snapshot's other operations (requests the end of a run cut off answer with format "other"). */
function otherOperations (cell) {
  const operations = cell.breakdown && Array.isArray(cell.breakdown.operations) ? cell.breakdown.operations : []
  return operations.filter((o) => o !== cell.operation).map((o) => `${o.method} ${o.route} [${o.format}] (${formatCount(o.count)} requests)`)
}

function machineTable (summary) {
  const machine = summary.machine
  const database = machine.database || {}
  const rows = [
    ['CPU', machine.cpuModel || '-'],
    ['cores', isNumber(machine.cores) ? String(machine.cores) : '-'],
    ['memory', formatMemory(machine.memoryBytes)],
    ['system', [machine.platform, machine.release].filter(Boolean).join(' ') || '-'],
    ['Node.js', machine.node || '-'],
    ...(machine.loadAverage && Array.isArray(machine.loadAverage.start)
      ? [['load average (1, 5, 15 min)', `${machine.loadAverage.start.join(', ')} at the start` +
          (Array.isArray(machine.loadAverage.end) ? `; ${machine.loadAverage.end.join(', ')} at the end` : '')]]
      : []),
    ['database', [database.name, database.version].filter(Boolean).join(' ') || '-']
  ]
  return { head: ['what', 'value'], rows: rows.map((cells) => ({ cells })) }
}

function configTable (summary) {
  const config = summary.config
  const list = (value) => (Array.isArray(value) ? value.join(', ') : '-')
  const perScenario = (value) => (value && typeof value === 'object'
    ? Object.entries(value).map(([scenario, count]) => `${scenario} ${count === null ? '-' : formatCount(count)}`).join(', ')
    : null)
  const rows = [
    ['app', config.app || '-'],
    ...(config.cmd ? [['command', config.cmd]] : []),
    ...(config.url ? [['url', config.url]] : []),
    ['scenarios', list(config.scenarios)],
    ['formats', list(config.formats)],
    ['processes', list(config.processes)],
    ...(Array.isArray(config.topologies) ? [['topologies', list(config.topologies)]] : []),
    ...(config.balancer ? [['nginx balancer', config.balancer]] : []),
    ...(config.breakdownSource ? [['breakdowns from', config.breakdownSource === 'prometheus' ? 'Prometheus (every instance\'s metrics)' : 'the app (/__nodebench)']] : []),
    ...(config.findMax ? [['--find-max', `connections doubling up to ${formatCount(config.findMax.maxConnections)}`]] : []),
    ...(Array.isArray(config.events) && config.events.length ? [['events', config.events.map((e) => `${e.type === 'add' ? 'add' : 'kill'} an instance at ${e.atSec} s`).join(', ')]] : []),
    ['repetitions', isNumber(config.reps) ? String(config.reps) : '-'],
    ['requests per repetition', isNumber(config.amount) ? formatCount(config.amount) : perScenario(config.amount) || '-'],
    ['seconds per repetition', isNumber(config.duration) ? String(config.duration) : '-'],
    ['connections', isNumber(config.connections) ? String(config.connections) : perScenario(config.connections) || '-'],
    ['warm-up requests', isNumber(config.warmup) ? formatCount(config.warmup) : '-'],
    ['quick', config.quick === undefined ? '-' : String(Boolean(config.quick))],
    ['created', summary.createdAt || '-'],
    ['duration', isNumber(summary.durationSec) ? `${summary.durationSec.toFixed(1)} s` : '-']
  ]
  return { head: ['what', 'value'], rows: rows.map((cells) => ({ cells })) }
}

/** One line under the title: the app, the database, the machine, the matrix. */
function headline (summary) {
  const { machine, config } = summary
  const database = machine.database ? [machine.database.name, machine.database.version].filter(Boolean).join(' ') : null
  // A run without the app (a workload of other servers only) names its servers instead.
  const servers = Array.isArray(config.targets) && config.targets.length > 0 && !config.targets.includes('app') ? `servers ${config.targets.join(', ')}` : null
  const others = summary.targetCells ?? { total: 0, failed: 0 }
  const cells = summary.allCells.length + others.total
  const failed = summary.allCells.filter((c) => c.failed).length + others.failed
  const parts = [
    servers ?? (config.app ? `app ${config.app}` : config.cmd ? `command ${config.cmd}` : config.url ? `url ${config.url}` : null),
    database ? `database ${database}` : null,
    isNumber(machine.cores) ? `${machine.cores} cores` : null,
    machine.node ? `Node.js ${machine.node}` : null,
    others.total ? `${cells} cells (${summary.allCells.length} of the app's, ${failed} failed)` : `${cells} cells (${failed} failed)`,
    summary.processes.length ? `processes ${summary.processes.join(', ')}` : null,
    summary.createdAt ? `run ${summary.createdAt}` : null
  ]
  return parts.filter(Boolean).join(' · ')
}

// The scale-out section's tables (report-scale-out.js).

/** The topology table: each topology's requests/s per operation, format and process count. */
function topologyTable (scaleOut) {
  const head = ['operation', 'format', 'processes', 'node:cluster req/s', 'nginx req/s', 'nginx ÷ cluster', 'nginx failures']
  const side = (cell) => (cell === null ? 'not run' : cell.failed ? 'failed' : formatRate(cell.requestsPerSec?.mean))
  const rows = scaleOut.topologies.map((row) => ({
    warn: row.nginx !== null && Object.keys(row.nginx.failures).length > 0,
    cells: [
      row.label, row.format, String(row.processes), side(row.cluster), side(row.nginx),
      formatRatio(row.nginxOverCluster), row.nginx === null ? '-' : failuresText(row.nginx.failures)
    ]
  }))
  return { head, rows }
}

function studyTable (scaleOut) {
  const head = ['operation', 'format', 'instances', 'requests/s gain here', 'in the study (one machine)']
  const rows = scaleOut.study.map((row) => ({
    cells: [
      row.label, row.format, `${row.from} → ${row.to}`, formatGain(row.gain), row.study === null ? 'not measured' : formatGain(row.study)
    ]
  }))
  return { head, rows }
}

function findMaxTable (scaleOut) {
  const head = ['cell', 'connections tried', 'best connections', 'best req/s', 'p99 ms', 'stopped by', 'first failures']
  const rows = scaleOut.findMax.map((cell) => {
    const { best, steps, stoppedBy, firstFailure } = cell.findMax
    return {
      warn: best === null,
      cells: [cell.title, steps.map((s) => s.connections).join(', '), best === null ? '-' : String(best.connections),
        best === null ? '-' : formatRate(best.requestsPerSec), best === null ? '-' : formatMs(best.latencyMs.p99),
        stoppedBy === 'failures' ? `failures at ${firstFailure.connections}` : 'the connection limit',
        firstFailure === null ? 'none' : failuresText(firstFailure.failures)]
    }
  })
  return { head, rows }
}

function elasticityTable (scaleOut) {
  const head = ['cell', 'rep', 'event', 'at s', 'req/s before', 'req/s after', 'settled after s', 'failures in 5 s', 'the instance']
  const rows = []
  for (const { cell, rep, events } of scaleOut.elasticity) {
    for (const event of events.events) {
      const instance = event.failure ? event.failure : instanceText(event)
      rows.push({
        warn: Object.keys(event.failuresWithin5s || {}).length > 0,
        cells: [cell.title, String(rep), event.type === 'add' ? 'instance added' : 'instance killed', String(event.atSec),
          formatRate(event.beforeRequestsPerSec), formatRate(event.levelRequestsPerSec),
          event.settledAfterSec === null ? 'not settled' : String(event.settledAfterSec), failuresText(event.failuresWithin5s), instance]
      })
    }
  }
  return { head, rows }
}

function instanceText (event) {
  if (event.type === 'add') {
    const first = event.firstServedAfterReloadSec === null ? 'never' : `${event.firstServedAfterReloadSec} s`
    return `${event.address}: first request ${first} after the reload, ${formatCount(event.served)} served, ` +
      `${formatCount(event.resetsAtReload ?? 0)} reset at the reload`
  }
  const last = event.lastServedSec === null ? 'none' : `at ${event.lastServedSec} s`
  return `${event.address}: last answer ${last}, ${formatCount(event.retriedElsewhere)} retried elsewhere`
}

/** Per instance of each elasticity repetition: what it served and how many attempts on it failed (nginx's log). */
function instanceTable (scaleOut) {
  const head = ['cell', 'rep', 'instance', 'served', 'failed attempts']
  const rows = []
  for (const { cell, rep, events } of scaleOut.elasticity) {
    for (const instance of events.traffic.instances) {
      const { address, served, failedAttempts } = instance
      rows.push({ cells: [cell.title, String(rep), address, formatCount(served), formatCount(failedAttempts)] })
    }
    rows.push({ study: true, cells: [cell.title, String(rep), 'retried by nginx', formatCount(events.traffic.retried), ''] })
  }
  return { head, rows }
}

// The sweep section's tables (report-sweep.js).

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

// The tables of the servers side by side (report-targets.js).

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

// The tables of CPU and memory by process (report-processes.js).

function percent (value) {
  return isNumber(value) ? value.toFixed(1) : '-'
}

function mebibytes (bytes) {
  return isNumber(bytes) ? (bytes / 1024 ** 2).toFixed(1) : '-'
}

/** A cell's processes: CPU% and resident memory, mean and max. */
function processResourceTable (entry) {
  const head = ['process', 'pid', 'CPU % mean', 'CPU % max', 'RSS MiB mean', 'RSS MiB max']
  const rows = entry.rows.map((row) => ({
    cells: [row.name, row.pid, percent(row.cpu.mean), percent(row.cpu.max), mebibytes(row.rss.mean),
      mebibytes(row.rss.max)]
  }))
  return { head, rows }
}

/** How a cell was sampled, in one line. */
function samplingLine (entry) {
  return `${entry.samples} samples, one every ${entry.intervalMs / 1000} s over ${entry.durationSec} s of load; CPU % of one core ` +
    '(100 = one core busy), resident memory (a role\'s total counts the pages its processes share once per process)' +
    (entry.error ? `; sampling failed at times: ${entry.error}` : '')
}

module.exports = {
  cellTable,
  ownerTable,
  throughputTable,
  table1Table,
  dominanceTable,
  responseSizeTable,
  segmentTable,
  operationLine,
  otherOperations,
  machineTable,
  configTable,
  headline,
  topologyTable,
  studyTable,
  findMaxTable,
  elasticityTable,
  instanceTable,
  sweepGroupTable,
  sweepComparisonTable,
  sweepResourceTable,
  targetTable,
  targetGroupTable,
  targetGroupTitle,
  ladderTable,
  targetReferenceTable,
  processResourceTable,
  samplingLine
}
