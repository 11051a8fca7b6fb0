'use strict'

const { isNumber, formatRate, formatMs, formatCount, formatRatio, formatGain } = require('./report-format')

// The scale-out part of the bench report: the topologies beside each other at the same process counts
// (node:cluster against independent instances behind nginx), the TU Berlin study's figures beside the run's,
// --find-max's highest error-free throughput, failures by class, and the elasticity runs (instances added or
// killed mid-run) second by second. Everything is computed from the summary's cells (report-data.js); a run
// without any of it has no such section.

const TOPOLOGY_COLORS = Object.freeze({ domain: ['cluster', 'nginx'], range: ['#4c78a8', '#e45756'] })

function measured (cell) {
  return cell && cell.measured ? cell : null
}

/** The scale-out reference of a scenario (the workload's `reference.scaleOut`), or null. */
function studyOf (summary, scenario) {
  const described = summary.workload.scenarios[scenario]
  const scaleOut = described && described.reference && described.reference.scaleOut
  return scaleOut && typeof scaleOut === 'object' ? scaleOut : null
}

/** Rows of requests/s per operation, format and process count: each topology's, and nginx over cluster. */
function topologyRows (summary) {
  const rows = []
  const keys = new Set(summary.allCells.map((c) => `${c.scenario}\u0000${c.format}\u0000${c.processes}`))
  for (const key of keys) {
    const [scenario, format, processesText] = key.split('\u0000')
    const processes = Number(processesText)
    const of = (topology) => summary.allCells.find((c) => c.scenario === scenario && c.format === format &&
      c.processes === processes && c.topology === topology) ?? null
    const cluster = of('cluster')
    const nginx = of('nginx')
    const label = (cluster ?? nginx).label
    rows.push({
      scenario,
      label,
      format,
      processes,
      cluster,
      nginx,
      nginxOverCluster: measured(cluster) && measured(nginx)
        ? nginx.requestsPerSec.mean / cluster.requestsPerSec.mean
        : null
    })
  }
  const text = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
  return rows.sort((a, b) => text(a.label, b.label) || text(a.format, b.format) || a.processes - b.processes)
}

/** Behind nginx, each instance count's throughput over the lowest one's, beside the study's gain. */
function studyRows (summary) {
  const rows = []
  const series = new Map()
  for (const cell of summary.allCells) {
    if (cell.topology !== 'nginx' || !cell.measured || studyOf(summary, cell.scenario) === null) continue
    const key = `${cell.scenario} ${cell.format}`
    if (!series.has(key)) series.set(key, [])
    series.get(key).push(cell)
  }
  for (const cells of series.values()) {
    cells.sort((a, b) => a.processes - b.processes)
    const [first] = cells
    const gains = studyOf(summary, first.scenario).oneMachine?.throughputGain ?? {}
    for (const cell of cells.slice(1)) {
      const known = isNumber(gains[cell.processes]) && isNumber(gains[first.processes])
      const study = known ? gains[cell.processes] / gains[first.processes] : null
      rows.push({
        label: first.label,
        format: first.format,
        from: first.processes,
        to: cell.processes,
        gain: cell.requestsPerSec.mean / first.requestsPerSec.mean,
        study
      })
    }
  }
  return rows
}

function failureText (failures) {
  const entries = Object.entries(failures || {}).filter(([, count]) => count > 0)
  return entries.length === 0 ? 'none' : entries.map(([kind, count]) => `${formatCount(count)} ${kind}`).join(', ')
}

/** Everything the section shows; `present` false when the run has none of it. */
function scaleOutOf (summary) {
  const cells = summary.allCells
  const nginxCells = cells.filter((c) => c.topology === 'nginx')
  const findMax = cells.filter((c) => c.findMax !== null && !c.failed)
  // Each repetition with events: its timeline, and `events` the analysis (elasticity.js: { events, traffic }).
  const elasticity = cells.flatMap((cell) => cell.elasticity.map(({ rep, timeline, elasticity: events }) =>
    ({ cell, rep, timeline, events })))
  const failing = cells.filter((c) => Object.keys(c.failures).length > 0)
  const topologies = topologyRows(summary)
  const study = studyRows(summary)
  const scaleOut = {
    present: nginxCells.length > 0 || findMax.length > 0 || elasticity.length > 0,
    compared: summary.topologies.length > 1,
    topologies,
    study,
    findMax,
    failing,
    elasticity
  }
  scaleOut.findings = findingsOf(summary, scaleOut)
  scaleOut.notes = notesOf(summary, scaleOut)
  return scaleOut
}

function findingsOf (summary, scaleOut) {
  const sentences = []
  for (const row of scaleOut.study) {
    sentences.push(`Behind nginx, ${row.label} (${row.format}) went ${formatGain(row.gain)} in requests/s from ${row.from} to ${row.to} ` +
      `instance${row.to === 1 ? '' : 's'}${row.study === null ? '' : `; the study measured ${formatGain(row.study)} from ${row.from} to ${row.to} on one machine`}.`)
  }
  for (const row of scaleOut.topologies) {
    if (row.nginxOverCluster === null) continue
    sentences.push(`${row.label} (${row.format}) at ${row.processes} process${row.processes === 1 ? '' : 'es'}: instances behind nginx ` +
      `served ${formatRatio(row.nginxOverCluster)} the requests/s of the node:cluster app (${formatRate(row.nginx.requestsPerSec.mean)} ` +
      `against ${formatRate(row.cluster.requestsPerSec.mean)}).`)
  }
  for (const cell of scaleOut.findMax) {
    const { best, firstFailure, stoppedBy, steps } = cell.findMax
    const upTo = steps.at(-1).connections
    const bestText = best === null
      ? 'no step was free of failures'
      : `the highest throughput without a failure was ${formatRate(best.requestsPerSec)} req/s at ${best.connections} ` +
        `connections (p99 ${formatMs(best.latencyMs.p99)} ms)`
    const end = stoppedBy === 'failures'
      ? `; at ${firstFailure.connections} connections: ${failureText(firstFailure.failures)}`
      : `; no failure up to ${upTo} connections, the limit`
    sentences.push(`${cell.title}: ${bestText}${end}.`)
  }
  for (const { cell, rep, events } of scaleOut.elasticity) {
    for (const event of events.events) sentences.push(`${cell.title}, repetition ${rep}: ${eventText(event)}`)
  }
  return sentences
}

/** One event of an elasticity run, in a sentence. */
function eventText (event) {
  if (event.failure) return `${event.type === 'add' ? 'adding' : 'killing'} an instance at ${event.atSec} s failed: ${event.failure}.`
  const settled = event.settledAfterSec === null
    ? 'throughput did not settle before the run ended'
    : `throughput settled at ${formatRate(event.levelRequestsPerSec)} req/s ${event.settledAfterSec} s after it ` +
      `(${formatRate(event.beforeRequestsPerSec)} before)`
  const failures = `failures in the 5 s after it: ${failureText(event.failuresWithin5s)}`
  if (event.type === 'add') {
    const first = event.firstServedAfterReloadSec === null
      ? 'it served no request before the run ended'
      : `it served its first request ${event.firstServedAfterReloadSec} s after nginx's reload and ${formatCount(event.served)} in all`
    const resets = event.resetsAtReload > 0
      ? `; ${event.resetsAtReload} request${event.resetsAtReload === 1 ? ' was' : 's were'} reset at nginx's reload ` +
        '(an idle keep-alive connection its old workers closed as the load generator reused it; nginx 1.27.4 stops that)'
      : '; no request was reset at nginx\'s reload'
    return `an instance added at ${event.atSec} s (${event.address}): ${first}${resets}; ${settled}; ${failures}.`
  }
  const retried = `${formatCount(event.retriedElsewhere)} requests nginx retried on another instance after trying it`
  const last = event.lastServedSec === null ? '' : `, its last answer at ${event.lastServedSec} s`
  return `the instance at ${event.address} killed at ${event.atSec} s${last}: ${retried}; ${settled}; ${failures}.`
}

function notesOf (summary, scaleOut) {
  const notes = []
  const studied = summary.allCells.some((c) => studyOf(summary, c.scenario) !== null)
  const cores = summary.machine && isNumber(summary.machine.cores) ? summary.machine.cores : null
  if (studied) {
    const reference = studyOf(summary, summary.allCells.find((c) => studyOf(summary, c.scenario) !== null).scenario)
    const several = reference.severalMachines?.finding
    notes.push(`One machine${cores === null ? '' : ` with ${cores} cores`}: the study's runs on several machines are not ` +
      `repeatable here, and this report does not stand in for them${several ? ` (the study: "${several}")` : ''}.`)
  }
  if (scaleOut.present && cores !== null) {
    const beyond = summary.allCells.filter((c) => c.topology === 'nginx' && c.processes >= cores)
    if (beyond.length > 0) {
      notes.push(`Behind nginx, ${beyond.length === 1 ? 'a cell runs' : 'cells run'} ${[...new Set(beyond.map((c) => c.processes))].join(', ')} ` +
        `instances on ${cores} cores, shared with nginx, the database and the load generator.`)
    }
  }
  for (const cell of scaleOut.failing) {
    notes.push(`${cell.title}: failures by class: ${failureText(cell.failures)}.`)
  }
  return notes
}

/** The topology table: each topology's requests/s per operation, format and process count. */
function topologyTable (scaleOut) {
  const head = ['operation', 'format', 'processes', 'node:cluster req/s', 'nginx req/s', 'nginx ÷ cluster', 'nginx failures']
  const side = (cell) => (cell === null ? 'not run' : cell.failed ? 'failed' : formatRate(cell.requestsPerSec?.mean))
  const rows = scaleOut.topologies.map((row) => ({
    warn: row.nginx !== null && Object.keys(row.nginx.failures).length > 0,
    cells: [
      row.label, row.format, String(row.processes), side(row.cluster), side(row.nginx),
      formatRatio(row.nginxOverCluster), row.nginx === null ? '-' : failureText(row.nginx.failures)
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
        firstFailure === null ? 'none' : failureText(firstFailure.failures)]
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
          event.settledAfterSec === null ? 'not settled' : String(event.settledAfterSec), failureText(event.failuresWithin5s), instance]
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

function chartConfig (spec) {
  return {
    background: 'white',
    padding: 8,
    config: {
      font: 'system-ui, -apple-system, "Segoe UI", sans-serif',
      title: { anchor: 'start', fontSize: 13, subtitleFontSize: 11, subtitleColor: '#555' },
      axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#e6e6e6' },
      view: { stroke: '#ddd' }
    },
    ...spec
  }
}

/** Requests/s by processes, a line per topology: one chart per operation and format (when both ran). */
function topologyCharts (scaleOut) {
  if (!scaleOut.compared) return []
  const groups = new Map()
  for (const row of scaleOut.topologies) {
    const key = `${row.label} (${row.format})`
    if (!groups.has(key)) groups.set(key, { scenario: row.scenario, format: row.format, values: [] })
    for (const [topology, cell] of [['cluster', row.cluster], ['nginx', row.nginx]]) {
      if (!measured(cell)) continue
      groups.get(key).values.push({ processes: row.processes, topology, requestsPerSec: cell.requestsPerSec.mean })
    }
  }
  return Array.from(groups, ([title, { scenario, format, values }]) => ({
    kind: 'topology',
    scenario,
    format,
    title: `${title}: node:cluster against nginx`,
    leftOut: [],
    spec: chartConfig({
      title: { text: `${title}: node:cluster against nginx`, subtitle: 'requests/s by processes (instances behind nginx)' },
      width: 300,
      height: 200,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'processes', type: 'ordinal', title: 'processes', axis: { labelAngle: 0 } },
        y: { field: 'requestsPerSec', type: 'quantitative', title: 'requests/s' },
        color: { field: 'topology', type: 'nominal', scale: TOPOLOGY_COLORS, title: 'topology' }
      }
    })
  })).filter((chart) => chart.spec.data.values.length > 0)
}

/** An elasticity repetition second by second: requests/s, p99 latency and failures, the events as rules. */
function elasticityCharts (scaleOut) {
  return scaleOut.elasticity.map(({ cell, rep, timeline, events }) => {
    const values = timeline.map((s) => ({
      second: s.second,
      requests: s.requests,
      p99: s.latencyMs === null ? null : s.latencyMs.p99,
      failures: Object.values(s.failures).reduce((sum, n) => sum + n, 0)
    }))
    const rules = events.events.map((event) => ({
      second: event.atSec, event: event.type === 'add' ? 'instance added' : 'instance killed'
    }))
    const eventColor = { domain: ['instance added', 'instance killed'], range: ['#54a24b', '#e45756'] }
    const x = { field: 'second', type: 'quantitative', title: 'seconds into the run', scale: { domain: [0, values.length] } }
    const most = Math.max(1, ...values.map((v) => v.failures))
    const panel = (field, title, mark, y = {}) => ({
      width: 560,
      height: 110,
      layer: [
        {
          data: { values },
          transform: [{ filter: `isValid(datum.${field})` }],
          mark,
          encoding: { x, y: { field, type: 'quantitative', title, ...y } }
        },
        {
          data: { values: rules },
          mark: { type: 'rule', strokeDash: [4, 3] },
          encoding: {
            x: { field: 'second', type: 'quantitative', scale: x.scale },
            color: { field: 'event', type: 'nominal', title: 'event', scale: eventColor }
          }
        }
      ]
    })
    return {
      kind: 'elasticity',
      scenario: cell.scenario,
      format: cell.format,
      title: `${cell.title}, repetition ${rep}: second by second`,
      leftOut: [],
      spec: chartConfig({
        title: { text: `${cell.title}, repetition ${rep}`, subtitle: 'per second: requests answered, p99 latency (ms), failures' },
        vconcat: [
          panel('requests', 'requests/s', { type: 'line', point: true }),
          panel('p99', 'p99 ms', { type: 'line', point: true, color: '#f58518' }),
          panel('failures', 'failures/s', { type: 'bar', color: '#e45756', width: 4 },
            { scale: { domain: [0, most] }, axis: { format: 'd', tickMinStep: 1 } })
        ]
      })
    }
  })
}

module.exports = {
  scaleOutOf,
  topologyTable,
  studyTable,
  findMaxTable,
  elasticityTable,
  instanceTable,
  topologyCharts,
  elasticityCharts,
  eventText
}
