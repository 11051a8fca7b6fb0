'use strict'

const cluster = require('cluster')
const { BreakdownAggregator } = require('@nodebench/breakdown')
const { reportInternalError } = require('./internal-errors')
const { codes, NodebenchError, NodebenchTypeError } = require('./errors')
const { normalizeMetrics } = require('./metrics-options')

// One breakdown for a whole node:cluster app. Each worker aggregates its own requests; a request to the
// expose path lands on one worker, which asks the primary; the primary collects every traced worker's
// aggregator state over the cluster's IPC channel, merges them exactly (histograms included) and answers.
//
// Messages, all marked `nodebench: <type>`:
//   worker -> primary  hello {service}          a traced worker exists (sent when nodebenchTrace() is built)
//   primary -> worker  primary-ready {timeoutMs, metrics} the primary merges; expose may ask it; with
//                                               `metrics`, keep what resets clear (the lifetime figures)
//   worker -> primary  breakdown {id, reset}    expose was requested on this worker
//   primary -> worker  collect {id, reset, lifetime} send your state (and reset it when asked), or with
//                                               `lifetime` everything you served (for the metrics)
//   worker -> primary  state {id, states}       the states of this worker's traces
//   primary -> worker  breakdown-result {id, snapshot, state? | error}
//
// With metrics (nodebenchPrimary({ metrics }), or OTEL_METRICS_EXPORTER=prometheus), the primary serves one
// scrape target for the whole cluster, as prom-client's AggregatorRegistry does: each scrape merges every
// worker's lifetime figures. The figures of a worker that exits, or does not answer a scrape in time, are its
// last answer's, so the cluster's counters never go back (what a dead worker served after its last scrape is
// lost).
//
// A reset never loses what it reset. A worker that answers a resetting collect after the primary stopped
// waiting has reset itself already: the primary keeps its state for the next breakdown. A resetting result
// that reaches a worker no longer waiting for it (its own wait ran out, or its HTTP client went away) carries
// the merged state, which that worker adds back to its own aggregates: the next breakdown includes it.

const DEFAULT_TIMEOUT_MS = 5000
// A worker waits this much longer than the primary waits for the workers: the primary always answers first.
const WORKER_MARGIN_MS = 2000

// ---------------------------------------------------------------------------------------------------
// Worker side

const workerTraces = []
let workerListening = false
let primaryReady = false
let primaryTimeoutMs = DEFAULT_TIMEOUT_MS
let nextRequestId = 1
const pendingBreakdowns = new Map()

function isClusterWorker () {
  return cluster.isWorker === true && typeof process.send === 'function'
}

/**
 * Registers a trace of this worker with the cluster primary. `trace` gives `exportState(reset)` and
 * `absorb(breakdownState)` (adds a merged state back to its aggregates). Returns false (and does nothing)
 * outside a node:cluster worker.
 */
function joinCluster (trace) {
  if (!isClusterWorker()) return false
  workerTraces.push(trace)
  if (!workerListening) {
    workerListening = true
    process.on('message', onWorkerMessage)
  }
  send({ nodebench: 'hello', service: trace.service })
  return true
}

function onWorkerMessage (message) {
  if (message === null || typeof message !== 'object' || typeof message.nodebench !== 'string') return
  try {
    switch (message.nodebench) {
      case 'primary-ready':
        primaryReady = true
        if (Number.isInteger(message.timeoutMs) && message.timeoutMs > 0) primaryTimeoutMs = message.timeoutMs
        if (message.metrics === true) for (const trace of workerTraces) trace.keepLifetime()
        break
      case 'collect': {
        const lifetime = message.lifetime === true
        const reset = message.reset === true && !lifetime
        send({
          nodebench: 'state',
          id: message.id,
          pid: process.pid,
          reset,
          states: workerTraces.map((trace) => trace.exportState(reset, { lifetime }))
        })
        break
      }
      case 'breakdown-result': {
        const pending = pendingBreakdowns.get(message.id)
        if (pending === undefined) {
          // Nobody waits for it any more: what a reset took out of every worker comes back here.
          if (message.state) absorbState(message.state)
          break
        }
        pendingBreakdowns.delete(message.id)
        clearTimeout(pending.timer)
        if (message.error) pending.reject(new NodebenchError(codes.NB_ERR_CLUSTER, message.error))
        else pending.resolve({ snapshot: message.snapshot, state: message.state || null })
        break
      }
    }
  } catch (err) {
    reportInternalError('cluster message', err)
  }
}

function send (message) {
  try {
    if (process.connected) process.send(message, undefined, undefined, ignoreClosedChannel)
  } catch (err) {
    reportInternalError('cluster send', err)
  }
}

/** True when the breakdown should come from the primary: it runs nodebenchPrimary() and said so. */
function clusterBreakdownAvailable () {
  return primaryReady && process.connected === true
}

/** Adds a merged breakdown state (one nobody received) to this worker's first trace. */
function absorbState (state) {
  if (workerTraces.length > 0) workerTraces[0].absorb(state)
}

/**
 * Asks the primary for the merged breakdown of every worker (resetting all of them when asked). Resolves
 * with `{ snapshot, state }`: `state`, for a reset, is what was reset, for absorbState() when the answer
 * cannot be delivered.
 */
function requestClusterBreakdown ({ reset = false, timeoutMs = primaryTimeoutMs + WORKER_MARGIN_MS } = {}) {
  return new Promise((resolve, reject) => {
    const id = nextRequestId++
    const timer = setTimeout(() => {
      pendingBreakdowns.delete(id)
      reject(new NodebenchError(codes.NB_ERR_CLUSTER, `the cluster primary did not answer within ${timeoutMs} ms`))
    }, timeoutMs)
    pendingBreakdowns.set(id, { resolve, reject, timer })
    send({ nodebench: 'breakdown', id, reset })
  })
}

// ---------------------------------------------------------------------------------------------------
// Primary side

/**
 * Makes the node:cluster primary merge its workers' breakdowns: `GET <expose>` on any worker then answers
 * with one snapshot for the whole app (and `DELETE` resets every worker). Call it in the primary, before
 * or after forking.
 *
 * With `metrics` (or OTEL_METRICS_EXPORTER=prometheus and OTEL_EXPORTER_PROMETHEUS_PORT), it also serves the
 * whole cluster's breakdown as metrics: one Prometheus scrape target (and/or OTLP push) for all the workers,
 * named after the workers' service, from when the first traced worker has started.
 *
 * @param {object} [options]
 * @param {number} [options.timeoutMs] how long to wait for the workers' states (default 5000)
 * @param {boolean|object} [options.metrics] the cluster's breakdown as OpenTelemetry metrics: true (OTLP push)
 *   or { otlp: true | { intervalMs }, prometheus: { port, host } } (default: from OTEL_METRICS_EXPORTER)
 * @returns {{ breakdown: (options?: { reset?: boolean }) => Promise<object>, close: () => Promise<void> }}
 */
function nodebenchPrimary ({ timeoutMs = DEFAULT_TIMEOUT_MS, metrics: metricsOption } = {}) {
  if (!cluster.isPrimary) {
    throw new NodebenchError(codes.NB_ERR_CLUSTER, 'nodebenchPrimary() runs in the node:cluster primary; in a worker use nodebenchTrace({ expose })')
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new NodebenchTypeError(codes.NB_ERR_CLUSTER, `nodebenchPrimary: timeoutMs must be a positive integer (milliseconds); received ${timeoutMs}`)
  }
  const metricsConfig = normalizeMetrics(metricsOption, process.env, { where: 'nodebenchPrimary', role: 'primary' })
  const tracedWorkers = new Set()
  const collections = new Map()
  let nextCollectId = 1
  // Answers to resetting collects that came after the primary stopped waiting: their workers reset already.
  let lateAnswers = []
  // For the metrics: each worker's last lifetime states, and the merged ones of workers that exited.
  const lastLifetime = new Map()
  let departed = null
  let metrics = null

  function onMessage (worker, message) {
    if (message === null || typeof message !== 'object' || typeof message.nodebench !== 'string') return
    switch (message.nodebench) {
      case 'hello':
        tracedWorkers.add(worker)
        worker.send({ nodebench: 'primary-ready', timeoutMs, metrics: metricsConfig !== false })
        if (metricsConfig !== false && metrics === null) startMetrics(typeof message.service === 'string' ? message.service : 'unknown')
        break
      case 'breakdown': {
        const reset = message.reset === true
        collectAnswers(reset).then(
          (merged) => sendTo(worker, {
            nodebench: 'breakdown-result', id: message.id, snapshot: merged.snapshot, state: reset ? merged.state : undefined
          }),
          (err) => sendTo(worker, { nodebench: 'breakdown-result', id: message.id, error: err.message }))
        break
      }
      case 'state': {
        const collection = collections.get(message.id)
        if (collection !== undefined) collection.answer(worker, message)
        else if (message.reset === true) lateAnswers.push(message)
        break
      }
    }
  }

  function onExit (worker) {
    tracedWorkers.delete(worker)
    for (const collection of collections.values()) collection.forget(worker)
    const states = lastLifetime.get(worker)
    if (states === undefined) return
    lastLifetime.delete(worker)
    try {
      departed ??= new BreakdownAggregator({ service: states[0]?.breakdown.service })
      for (const state of states) departed.mergeState(state.breakdown)
    } catch (err) {
      reportInternalError('keep an exited worker\'s metrics', err)
    }
  }

  /** Starts the cluster's metrics, named after the workers' service (the resource is made once). */
  function startMetrics (serviceName) {
    try {
      const { createMetrics } = require('./metrics-export')
      metrics = createMetrics({ serviceName, metrics: metricsConfig }, { view: lifetimeOfWorkers })
    } catch (err) {
      reportInternalError('start the cluster\'s metrics', err)
    }
  }

  /** Everything the cluster served: every worker's lifetime figures (the last known for the silent), merged. */
  async function lifetimeOfWorkers () {
    await collectAnswers(false, { lifetime: true })
    const aggregator = new BreakdownAggregator()
    if (departed !== null) aggregator.add(departed)
    for (const states of lastLifetime.values()) {
      for (const state of states) aggregator.mergeState(state.breakdown)
    }
    return aggregator
  }

  /**
   * Every traced worker's state (reset after when asked), merged: `{ snapshot, state }`. With `lifetime`,
   * each worker's answer is kept in `lastLifetime` instead (and nothing is reset).
   */
  function collectAnswers (reset, { lifetime = false } = {}) {
    return new Promise((resolve) => {
      const id = nextCollectId++
      const waiting = new Set()
      const answers = []
      const finish = () => {
        clearTimeout(timer)
        collections.delete(id)
        if (lifetime) return resolve(null)
        // Late answers of earlier resets belong to whichever breakdown comes next; a reset takes them.
        const carried = lateAnswers
        if (reset) lateAnswers = []
        resolve(mergeAnswers(answers.concat(carried), waiting.size))
      }
      const timer = setTimeout(finish, timeoutMs)
      collections.set(id, {
        answer (worker, message) {
          if (!waiting.delete(worker)) return
          if (lifetime) lastLifetime.set(worker, message.states)
          else answers.push(message)
          if (waiting.size === 0) finish()
        },
        forget (worker) {
          if (waiting.delete(worker) && waiting.size === 0) finish()
        }
      })
      for (const worker of tracedWorkers) {
        if (worker.isConnected()) {
          waiting.add(worker)
          sendTo(worker, { nodebench: 'collect', id, reset, lifetime })
        }
      }
      if (waiting.size === 0) finish()
    })
  }

  cluster.on('message', onMessage)
  cluster.on('exit', onExit)
  return {
    breakdown: ({ reset = false } = {}) => collectAnswers(reset === true).then((merged) => merged.snapshot),
    close () {
      cluster.off('message', onMessage)
      cluster.off('exit', onExit)
      return metrics === null ? Promise.resolve() : metrics.shutdown()
    }
  }
}

function sendTo (worker, message) {
  try {
    // With a callback, a channel that closed meanwhile (a worker killed an instant ago) is an error passed to
    // it; without one, it is an 'error' event on the worker's process object, which nobody may handle.
    if (worker.isConnected()) worker.send(message, undefined, undefined, ignoreClosedChannel)
  } catch (err) {
    reportInternalError('cluster send', err)
  }
}

function ignoreClosedChannel () {}

/**
 * One snapshot from the workers' answers, and the merged state it was made of. `processes` lists who took
 * part and how many requests each served (so a load balance can be checked; a worker answering twice, late
 * and on time, is listed once); `missingProcesses` counts workers that did not answer in time.
 */
function mergeAnswers (answers, missing) {
  let aggregator = null
  let droppedSpans = 0
  let internalErrors = 0
  // The workers' requests' context: 'async-hooks' when any one pays for it per promise.
  let requestContext = null
  const requestsByPid = new Map()
  for (const answer of answers) {
    let requests = 0
    for (const state of answer.states) {
      if (aggregator === null) aggregator = new BreakdownAggregator({ service: state.breakdown.service })
      aggregator.mergeState(state.breakdown)
      droppedSpans += state.droppedSpans
      internalErrors += state.internalErrors
      if (state.requestContext === 'async-hooks' || (state.requestContext != null && requestContext === null)) {
        requestContext = state.requestContext
      }
      for (const operation of state.breakdown.operations) {
        for (const responseTime of operation.responseTimes) requests += responseTime.count
      }
    }
    requestsByPid.set(answer.pid, (requestsByPid.get(answer.pid) || 0) + requests)
  }
  if (aggregator === null) aggregator = new BreakdownAggregator()
  const snapshot = aggregator.snapshot({ pid: process.pid, droppedSpans })
  if (internalErrors > 0) snapshot.internalErrors = internalErrors
  if (requestContext !== null) snapshot.requestContext = requestContext
  snapshot.processes = Array.from(requestsByPid, ([pid, requests]) => ({ pid, requests })).sort((a, b) => a.pid - b.pid)
  if (missing > 0) snapshot.missingProcesses = missing
  return { snapshot, state: aggregator.exportState() }
}

module.exports = {
  joinCluster,
  clusterBreakdownAvailable,
  requestClusterBreakdown,
  nodebenchPrimary
}
