'use strict'

const { round, median } = require('../../kernel/statistics')

// What happened around each event of an elasticity run (`--add-instance-at`, `--kill-instance-at`), read from
// the load generator's per-second timeline (kernel/load-observer.js) and nginx's access log (which instance served
// each request, what nginx retried elsewhere):
// - throughput before the event and the level it reached after it, and how long until it settled there: the
//   first second after the event from which every second (up to the next event or the run's end) is within
//   SETTLE_TOLERANCE of that level, the median of the window's second half;
// - failures by class in the seconds after the event;
// - an added instance: how long after nginx's reload it served its first request, how many it served, and
//   the connection resets at the reload (RELOAD_WINDOW_SEC from it): nginx before 1.27.4 resets a request
//   sent on an idle keep-alive connection as its old workers close them (services/lib/nginx.js);
// - a killed instance: its last answer, and the requests nginx retried on another instance after trying it.

const SETTLE_TOLERANCE = 0.2
const FAILURE_WINDOW_SEC = 5
const RELOAD_WINDOW_SEC = 1

/** Throughput level after an event and when it settled there (seconds after the event), or null. */
function settling (seconds, eventSec) {
  if (seconds.length < 2) return { levelRequestsPerSec: null, settledAfterSec: null }
  const level = median(seconds.slice(Math.floor(seconds.length / 2)).map((s) => s.requests))
  const within = (s) => Math.abs(s.requests - level) <= SETTLE_TOLERANCE * level
  let settled = null
  for (let i = seconds.length - 1; i >= 0 && within(seconds[i]); i--) settled = seconds[i]
  return {
    levelRequestsPerSec: level,
    settledAfterSec: settled === null ? null : round(Math.max(0, settled.second - eventSec), 1)
  }
}

/** Requests per instance in nginx's log between `fromMs` and `toMs`: served, failed attempts, retried. */
function instanceTraffic (traffic, fromMs, toMs) {
  const byAddress = new Map()
  let retried = 0
  const of = (address) => {
    if (!byAddress.has(address)) byAddress.set(address, { address, served: 0, failedAttempts: 0 })
    return byAddress.get(address)
  }
  for (const entry of traffic) {
    if (entry.time < fromMs || entry.time > toMs) continue
    if (entry.attempts.length > 1) retried++
    entry.attempts.forEach((attempt, i) => {
      const last = i === entry.attempts.length - 1
      if (last && attempt.status !== null && attempt.status < 502) of(attempt.address).served++
      else if (!last || attempt.status === null || attempt.status >= 502) of(attempt.address).failedAttempts++
    })
  }
  return { instances: Array.from(byAddress.values()).sort((a, b) => (a.address < b.address ? -1 : 1)), retried }
}

/**
 * The analysis of one repetition with events. `events`: what the runner did, `{ type, atSec, atMs, address,
 * pid, reloadedAtMs? }` (seconds from the load's start; epoch ms); `timeline`, `resetsAtSec`: load-observer's;
 * `traffic`: nginx's parsed access log; `startedAtMs`, `elapsedSec`: the load's start (epoch ms) and length.
 */
function analyzeEvents ({ events, timeline, resetsAtSec = [], traffic, startedAtMs, elapsedSec }) {
  // The last second is cut short by the run's end.
  const full = timeline.filter((s) => s.second + 1 <= elapsedSec)
  const endMs = startedAtMs + elapsedSec * 1000
  const analyzed = events.map((event, index) => {
    const previousSec = index === 0 ? 0 : events[index - 1].atSec
    const nextSec = index === events.length - 1 ? elapsedSec : events[index + 1].atSec
    const before = full.filter((s) => s.second >= Math.ceil(previousSec) && s.second + 1 <= event.atSec)
    const after = full.filter((s) => s.second >= Math.ceil(event.atSec) && s.second + 1 <= nextSec)
    const failures = {}
    for (const s of timeline) {
      if (s.second < Math.floor(event.atSec) || s.second >= Math.floor(event.atSec) + FAILURE_WINDOW_SEC) continue
      for (const [kind, count] of Object.entries(s.failures)) failures[kind] = (failures[kind] || 0) + count
    }
    const result = {
      ...event,
      beforeRequestsPerSec: median(before.map((s) => s.requests)),
      ...settling(after, event.atSec),
      failuresWithin5s: failures
    }
    const own = traffic.filter((entry) => entry.attempts.some((attempt) => attempt.address === event.address))
    // Requests the instance answered (nginx's last attempt was it, and it answered).
    const answeredBy = ({ attempts }) => attempts.at(-1).address === event.address && attempts.at(-1).status !== null
    const answered = own.filter(answeredBy)
    if (event.type === 'add') {
      const first = answered.filter((entry) => entry.time >= event.reloadedAtMs)
        .reduce((earliest, entry) => (earliest === null || entry.time < earliest ? entry.time : earliest), null)
      result.firstServedAfterReloadSec = first === null ? null : round((first - event.reloadedAtMs) / 1000, 3)
      result.served = answered.filter((entry) => entry.time <= endMs && entry.attempts.at(-1).status < 502).length
      const reloadSec = (event.reloadedAtMs - startedAtMs) / 1000
      result.resetsAtReload = resetsAtSec.filter((at) => at >= reloadSec && at <= reloadSec + RELOAD_WINDOW_SEC).length
    } else {
      const last = answered.reduce((latest, entry) => Math.max(latest, entry.time), -Infinity)
      result.lastServedSec = answered.length === 0 ? null : round((last - startedAtMs) / 1000, 3)
      // Tried on the killed instance, answered by another: what nginx's routing around it saved.
      result.retriedElsewhere = own.filter((entry) => entry.time >= event.atMs && entry.attempts.length > 1 &&
        entry.attempts.at(-1).address !== event.address && entry.status < 500).length
    }
    return result
  })
  return { events: analyzed, traffic: instanceTraffic(traffic, startedAtMs, endMs) }
}

module.exports = { analyzeEvents, instanceTraffic, settling, SETTLE_TOLERANCE, RELOAD_WINDOW_SEC }
