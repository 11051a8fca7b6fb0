'use strict'

const { LoadObserver, latencyPercentiles } = require('../../kernel/load-observer')
const { runAutocannon } = require('../../kernel/load')
const { repetitionFigures } = require('../../kernel/repetition')

// Scale-out's --find-max cells (scale-out/config.js): instead of repetitions, steps of more and more connections,
// each checked for failures; the matrix runs one in place of a cell's repetitions (matrix.js).

/**
 * --find-max: the load of `config.duration` seconds again and again, connections doubling from the cell's up
 * to `config.findMax.maxConnections`, until the first step with a failure (error, timeout or an unexpected
 * status): the highest error-free throughput, the study's criterion, and what failed first.
 */
async function findMaxThroughput (base, sent, { record, config, proxied, bytes, log }) {
  const steps = []
  let connections = record.connections
  for (;;) {
    const observer = new LoadObserver({ expectedStatus: sent.status, proxied })
    const load = { connections, duration: config.duration, timeoutSec: config.requestTimeoutSec, observer, phase: `--find-max step at ${connections} connections` }
    const figures = repetitionFigures(await runAutocannon(base, sent, load), sent, bytes)
    const { failures, failed } = observer.summary()
    const latencyPercentilesMs = latencyPercentiles([observer])
    const step = { connections, ...figures, failures, latencyPercentilesMs, ok: failed === 0 && figures.errors === 0 }
    steps.push(step)
    log(`--find-max: ${connections} connections, ${figures.requestsPerSec} req/s, ` +
      (step.ok ? 'no failure' : `failures: ${Object.entries(failures).map(([kind, n]) => `${n} ${kind}`).join(', ')}`))
    if (!step.ok || connections >= config.findMax.maxConnections) break
    connections = Math.min(connections * 2, config.findMax.maxConnections)
  }
  const clean = steps.filter((step) => step.ok)
  const faster = (top, step) => (top !== null && top.requestsPerSec >= step.requestsPerSec ? top : step)
  const best = clean.reduce(faster, null)
  const last = steps[steps.length - 1]
  return {
    steps,
    best: best && { connections: best.connections, requestsPerSec: best.requestsPerSec, latencyMs: best.latencyMs },
    stoppedBy: last.ok ? 'max-connections' : 'failures',
    firstFailure: last.ok ? null : { connections: last.connections, failures: last.failures }
  }
}

module.exports = { findMaxThroughput }
