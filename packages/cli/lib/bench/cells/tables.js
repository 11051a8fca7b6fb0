'use strict'

const {
  isNumber, formatCount, formatRate, formatMs, formatMemory, statusCodesText
} = require('../../render/format')
const { segmentTable } = require('../../render/breakdown')

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

module.exports = {
  cellTable,
  segmentTable,
  operationLine,
  otherOperations,
  machineTable,
  configTable,
  headline
}
