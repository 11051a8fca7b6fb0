'use strict'

const { isNumber, formatCount, formatRate, formatRatio, formatGain, formatMs, failuresText } = require('../../render/format')

// The scale-out section in words (data.js's figures): gains behind nginx, the topologies compared, --find-max's
// best step, each elasticity event, and what limits them.

/** The scale-out section's sentences: gains behind nginx, topologies compared, --find-max, every event. */
function scaleOutFindings (summary, scaleOut) {
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
      ? `; at ${firstFailure.connections} connections: ${failuresText(firstFailure.failures)}`
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
  const failures = `failures in the 5 s after it: ${failuresText(event.failuresWithin5s)}`
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

/** What limits the scale-out figures: one machine, instances beyond its cores, failures by class. */
function scaleOutNotes (summary, scaleOut) {
  const notes = []
  const cores = summary.machine && isNumber(summary.machine.cores) ? summary.machine.cores : null
  if (scaleOut.reference !== null) {
    const several = scaleOut.reference.severalMachines?.finding
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
    notes.push(`${cell.title}: failures by class: ${failuresText(cell.failures)}.`)
  }
  return notes
}

module.exports = { scaleOutFindings, scaleOutNotes }
