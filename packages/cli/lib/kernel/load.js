'use strict'

const autocannon = require('autocannon')

// Load on an app: autocannon (its programmatic API) sending a scenario's requests (workload.js requestsOf),
// for a number of requests or seconds, each connection sending them in turn. Every command that drives load
// runs it here: bench's cells and warm-ups, flame's windows. What each request is, and the check of each answer,
// are the cell's flow's (request-flow.js).

// How often autocannon samples a run of a fixed amount of requests (it ends such a run at a sample).
const AMOUNT_SAMPLE_MS = 100

/**
 * Runs autocannon with `sent` (requestsOf's): each connection sends its requests in turn, its session prepared
 * first (request-flow.js). `phase` names the run in failures (`warm-up`, `repetition 1`); `observer`
 * (load-observer.js) hears every answer and failure; `onStart(startedAt)` is called as it starts. Resolves to
 * autocannon's result with `answers` (the run's check: `{ phase, answered, unexpected, first }`); rejects when
 * the workload's own code failed (a setupRequest that threw, a value no answer had to capture).
 */
async function runAutocannon (base, sent, load) {
  const { connections, amount, duration, timeoutSec = 60, observer = null, onStart = () => {}, phase = 'load' } = load
  await sent.flow.prepare(base, connections)
  const { check, options: flowOptions } = sent.flow.autocannonOptions(phase, observer)
  const options = {
    url: base,
    ...flowOptions,
    connections,
    timeout: timeoutSec
  }
  if (amount !== null && amount !== undefined) {
    options.amount = amount
    // autocannon ends a run at its next sample tick (every second by default), also one of a fixed amount whose
    // last answer came long before: sampled every 100 ms, it ends within 100 ms of it. Its per-sample counts
    // are not read here (the figures come from the latencies, the status codes and the time below).
    options.sampleInt = AMOUNT_SAMPLE_MS
  } else {
    options.duration = duration
  }
  return new Promise((resolve, reject) => {
    // autocannon ends a run at its next sample tick, and its `duration` includes that wait: for a run of a few
    // seconds that lowers requests/s by up to a second's worth. The run's own time is from here to the last
    // response.
    const startedAt = performance.now()
    const startedAtMs = Date.now()
    let lastResponseAt = startedAt
    const instance = autocannon(options, (err, result) => {
      if (err) return reject(err)
      if (check.failure !== null) return reject(check.failure)
      resolve({ ...result, startedAtMs, elapsedSec: (lastResponseAt - startedAt) / 1000, answers: check.summary() })
    })
    const closeConnections = check.onFailure
    check.onFailure = (err) => {
      closeConnections(err)
      instance.stop()
    }
    instance.on('response', () => { lastResponseAt = performance.now() })
    if (observer !== null) observer.attach(instance, startedAt)
    onStart(startedAt)
  })
}

module.exports = { runAutocannon }
