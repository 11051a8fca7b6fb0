'use strict'

// Each sample of a .cpuprofile with the async context it was taken in, from the logs of contexts the app's
// nodebench kept while V8 sampled (@nodebench/trace's cpu-context.js): the log says from which moment on which
// segment of which request ran, the profile when each sample was taken, both on the same clock (V8's profiles
// count microseconds of the monotonic clock process.hrtime reads). Run inside the app by v8-agent.js, once the
// profiler has stopped, so that only the result (a number per sample) leaves the app.

// A sample's context: an index into the table, or one of these.
const NO_REQUEST = -1
const BETWEEN_SEGMENTS = -2

/** Each sample's time (µs, the profile's clock), in the profile's order. */
function sampleTimes (profile) {
  const times = new Float64Array(profile.samples.length)
  const deltas = Array.isArray(profile.timeDeltas) ? profile.timeDeltas : []
  let time = profile.startTime
  for (let i = 0; i < times.length; i++) {
    time += deltas[i] || 0
    times[i] = time
  }
  return times
}

/**
 * @param {object} profile a .cpuprofile (startTime, samples, timeDeltas)
 * @param {Array<{ times, contexts, table, truncated }>} logs one per copy of nodebench in the app (cpu-context.js)
 * @returns {{ schema: 1, table: object[], samples: number[], transitions: number, truncated: boolean }} `samples`:
 *   for each sample of the profile, in its order, an index into `table` (a segment: its operation and layer), -1
 *   (in no request: Node.js's own work, the event loop, timers, or after a truncated log's end) or -2 (in a request,
 *   between its segments)
 */
function sampleContexts (profile, logs) {
  const times = sampleTimes(profile)
  // V8 may hand samples over slightly out of order: they are walked in time order.
  const order = Array.from(times.keys())
  if (times.some((time, i) => i > 0 && time < times[i - 1])) order.sort((a, b) => times[a] - times[b])
  const contexts = new Int32Array(times.length).fill(NO_REQUEST)
  const table = []
  let transitions = 0
  let truncated = false
  for (const log of logs) {
    const offset = table.length
    table.push(...log.table)
    transitions += log.times.length
    truncated ||= log.truncated
    const end = log.truncated && log.times.length > 0 ? log.times[log.times.length - 1] : Infinity
    let at = -1
    for (const i of order) {
      const time = times[i]
      while (at + 1 < log.times.length && log.times[at + 1] <= time) at++
      if (at === -1 || time > end || contexts[i] >= 0) continue
      const context = log.contexts[at]
      if (context >= 0) contexts[i] = offset + context
      else if (context === BETWEEN_SEGMENTS) contexts[i] = BETWEEN_SEGMENTS
    }
  }
  return { schema: 1, table, samples: Array.from(contexts), transitions, truncated }
}

module.exports = { sampleContexts, NO_REQUEST, BETWEEN_SEGMENTS }
