'use strict'

const path = require('node:path')
const { requestsOf, runHook } = require('../kernel/workload')
const { startTopology } = require('../kernel/topology')
const { openBreakdownSource, measuredOperation } = require('../kernel/breakdown-source')
const { LoadObserver } = require('../kernel/load-observer')
const { runAutocannon } = require('../kernel/load')
const { round } = require('../kernel/statistics')
const { repetitionFigures, cellFigures, probeCell, repetitionOperations } = require('../kernel/repetition')
const { analyzeEvents } = require('./elasticity')

// The load matrix of a bench run: for every cell (processes x topology x scenario x format), start the app with
// that many processes (kernel/topology.js: a node:cluster app, or independent instances behind nginx), warm it
// up, start its breakdown's window (kernel/breakdown-source.js), run autocannon `reps` times (or, with
// --find-max, steps of more and more connections until the first failure), record the figures, the failures
// by class and the breakdown, stop the app. Instances added or killed mid-run (--add-instance-at,
// --kill-instance-at) are recorded with what happened around them (elasticity.js). Each cell's record is saved
// as soon as it is done, so whatever finished is on disk if the run stops.

/** The cells of the matrix, in run order: process counts outermost (the slowest change), as the study. */
function cellsOf (config) {
  const cells = []
  for (const processes of config.processes) {
    for (const topology of config.topologies ?? ['cluster']) {
      for (const scenario of config.scenarios) {
        const formats = config.workload.scenarios[scenario].formats
        for (const format of config.formats) {
          if (formats.includes(format)) cells.push({ scenario, format, processes, topology })
        }
      }
    }
  }
  return cells
}

/**
 * Runs the matrix of `config` on its app: the workload's setup, every cell, its teardown. `env` carries the
 * app's MONGODB_URI (kernel/database.js). `onCell(event)` hears `{ type: 'start' | 'end', index, total, cell,
 * record? }`; `onRecord(record)` gets each cell's record as it is done; `onNotice(text)` what an app's nodebench said
 * on its stderr (app-process.js). Resolves to `{ aborted }`: why the
 * run stopped early (the app did not start: the next cells would fail the same way), else null.
 */
async function runMatrix (config, { env, onRecord, onCell = () => {}, log = () => {}, onNotice = () => {} }) {
  const cells = cellsOf(config)
  const workload = config.workload
  if (workload.setup !== null) log(`preparing the workload (${path.basename(workload.file)} setup)`)
  const values = await runHook(workload.setup, 'setup', workload, { env, log })

  let aborted = null
  const runId = Date.now()
  const source = await openBreakdownSource(config, { env, log })
  try {
    for (const [index, cell] of cells.entries()) {
      onCell({ type: 'start', index, total: cells.length, cell })
      const record = await runCell(config, cell, { env, values, log, onNotice, source: source.forCell(`${runId}-${index}`) })
      if (record.abort) {
        aborted = record.failure
        delete record.abort
      }
      onRecord(record)
      onCell({ type: 'end', index, total: cells.length, cell, record })
      if (aborted !== null) break
    }
  } finally {
    await source.close()
  }
  await runHook(workload.teardown, 'teardown', workload, { env, log, values })
    .catch((err) => log(err.message))
  return { aborted }
}

async function runCell (config, { scenario, format, processes, topology }, { env, values, log, onNotice, source }) {
  const workload = config.workload
  const definition = workload.scenarios[scenario]
  const record = {
    scenario,
    format,
    processes,
    topology,
    balancer: topology === 'nginx' ? config.balancer : null,
    status: 'ok',
    operation: null,
    connections: config.connections[scenario],
    amount: config.amounts[scenario],
    duration: config.duration,
    breakdown: null
  }
  let running = null
  let cellValues = values
  const withEvents = []
  try {
    try {
      running = await startTopology(config.target, {
        topology, balancer: config.balancer, processes, env, source, log, onNotice
      })
    } catch (err) {
      return { ...record, status: 'failed', failure: err.message, abort: true }
    }
    const base = running.base
    cellValues = { ...values, ...await runHook(definition.setup, `scenario '${scenario}' setup`, workload, { base, env, log, values }) }
    const sent = requestsOf(definition, format, cellValues)
    record.operation = { method: sent.method, route: null, format: null }
    if (config.warmup > 0) {
      const warmup = { connections: Math.min(record.connections, config.warmup), amount: config.warmup }
      await runAutocannon(base, sent, warmup)
    }
    const sample = await probeCell(base, sent, { scenario, format })
    await source.begin(base)
    const proxied = topology === 'nginx'
    if (config.findMax !== null) {
      record.findMax = await findMaxThroughput(base, sent, { record, config, proxied, bytes: sample.bytes, log })
      const { steps, best } = record.findMax
      const shown = steps.find((step) => step.connections === best?.connections) ?? steps[0]
      Object.assign(record, cellFigures([shown]), { expectedStatus: sent.status, reps: steps })
    } else {
      const reps = []
      // The breakdown read after every repetition: each one's figures are the difference of two reads.
      let read = null
      for (let rep = 0; rep < config.reps; rep++) {
        const events = proxied ? config.events : []
        const observer = new LoadObserver({ expectedStatus: sent.status, proxied, timeline: events.length > 0 })
        let happenings = null
        const result = await runAutocannon(base, sent, {
          connections: record.connections,
          amount: record.amount,
          duration: record.duration,
          timeoutSec: config.requestTimeoutSec,
          observer,
          onStart: (startedAt) => { happenings = scheduleEvents(events, running, { startedAt, source, log }) }
        })
        const happened = await happenings.settled()
        const figures = repetitionFigures(result, sent, sample.bytes)
        const { failures, timeline, resetsAtSec } = observer.summary()
        figures.failures = failures
        if (events.length > 0) {
          figures.timeline = timeline
          const { startedAtMs, elapsedSec } = result
          withEvents.push({ figures, happened, timeline, resetsAtSec, startedAtMs, elapsedSec })
        }
        const after = await source.read(base)
        figures.operations = repetitionOperations(after, read)
        read = after
        reps.push(figures)
      }
      Object.assign(record, cellFigures(reps), { expectedStatus: sent.status, reps })
      record.breakdown = read
    }
    record.breakdown ??= await source.read(base)
    record.operation = measuredOperation(record.breakdown, sent.method) ?? record.operation
    if (record.requests === 0) {
      record.status = 'failed'
      record.failure = 'no response completed'
    }
  } catch (err) {
    record.status = 'failed'
    record.failure = err.message
  } finally {
    if (running !== null) {
      await running.stop()
      record.instances = running.instances.map(({ env: sourceEnv, ...instance }) => instance)
      // nginx's access log is whole once it stopped: which instance served what around each event.
      for (const rep of withEvents) {
        rep.figures.elasticity = analyzeEvents({ ...rep, events: rep.happened, traffic: running.traffic })
      }
    }
    source.end()
    if (definition.teardown !== null) {
      await runHook(definition.teardown, `scenario '${scenario}' teardown`, workload, { env, log, values: cellValues })
        .catch((err) => log(err.message))
    }
  }
  return record
}

/**
 * Runs a repetition's events (instances added or killed behind nginx) at their seconds from `startedAt`.
 * `settled()` resolves, once every event has run, to what happened: `{ type, atSec, atMs, address, pid,
 * reloadedAtMs? }` or `{ type, atSec, atMs, failure }`.
 */
function scheduleEvents (events, running, { startedAt, source, log }) {
  const happened = []
  const runs = events.map((event) => new Promise((resolve) => {
    setTimeout(async () => {
      const atMs = Date.now()
      const atSec = round((performance.now() - startedAt) / 1000, 2)
      try {
        if (event.type === 'kill') {
          const victim = running.killInstance()
          if (victim === null) throw new Error('no live instance to kill')
          source.gone(victim.env)
          log(`${atSec} s: killed the instance at ${victim.address} (pid ${victim.pid})`)
          happened.push({ type: 'kill', atSec, atMs, address: victim.address, pid: victim.pid })
        } else {
          const instance = await running.addInstance()
          log(`${atSec} s: added an instance at ${instance.address} (pid ${instance.pid}); nginx reloaded`)
          happened.push({ type: 'add', atSec, atMs, address: instance.address, pid: instance.pid, reloadedAtMs: instance.addedAt })
        }
      } catch (err) {
        log(`${atSec} s: could not ${event.type === 'kill' ? 'kill' : 'add'} an instance: ${err.message}`)
        happened.push({ type: event.type, atSec, atMs, failure: err.message })
      }
      resolve()
    }, event.atSec * 1000)
  }))
  return { settled: () => Promise.all(runs).then(() => happened.sort((a, b) => a.atSec - b.atSec)) }
}

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
    const load = { connections, duration: config.duration, timeoutSec: config.requestTimeoutSec, observer }
    const figures = repetitionFigures(await runAutocannon(base, sent, load), sent, bytes)
    const { failures, failed } = observer.summary()
    const step = { connections, ...figures, failures, ok: failed === 0 && figures.errors === 0 }
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

module.exports = { runMatrix, cellsOf }
