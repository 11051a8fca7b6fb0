'use strict'

const { formatCount, formatRate, formatMs, formatRatio, formatGain, failuresText } = require('../../render/format')

// The scale-out section's tables as rows of text (render/tables.js lays them out).

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

module.exports = { topologyTable, studyTable, findMaxTable, elasticityTable, instanceTable }
