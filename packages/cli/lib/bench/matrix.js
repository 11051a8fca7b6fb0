'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')
const { requestsOf } = require('../kernel/workload')
const { startTopology } = require('../kernel/topology')
const { openBreakdownSource, measuredOperation } = require('../kernel/breakdown-source')
const { LoadObserver, latencyPercentiles } = require('../kernel/load-observer')
const { runAutocannon } = require('../kernel/load')
const { runPlan, targetsOf, STOP } = require('../kernel/plan')
const { setUpCell, warmUpCell, tearDownCell } = require('../kernel/cell')
const { startTarget, captureReply, replyFor } = require('./baselines/servers')
const { startProcessSampler } = require('../kernel/process-sampler')
const { listenQueueCounters, listenQueueSince } = require('../kernel/listen-queue')
const { repetitionFigures, cellFigures, takeExpectedErrors, repetitionOperations } = require('../kernel/repetition')
const { readCollectionSizes, collectionChanges } = require('../kernel/collection-sizes')
const { analyzeEvents } = require('./scale-out/elasticity')
const { scheduleEvents } = require('./scale-out/events')
const { findMaxThroughput } = require('./scale-out/find-max')

// The load matrix of a bench run: for every cell (processes x topology x scenario x format), start the app with
// that many processes (kernel/topology.js: a node:cluster app, or independent instances behind nginx), warm it
// up, start its breakdown's window (kernel/breakdown-source.js), run autocannon `reps` times (or, with
// --find-max, steps of more and more connections until the first failure: scale-out/find-max.js), record the
// figures, the failures by class and the breakdown, stop the app. Instances added or killed mid-run
// (--add-instance-at, --kill-instance-at: scale-out/events.js) are recorded with what happened around them
// (scale-out/elasticity.js). Each cell's record is saved
// as soon as it is done, so whatever finished is on disk if the run stops.
//
// A run may send the same scenarios to other servers than the app (kernel/targets.js: the app without
// nodebench, bare node:http and Express, Apache with PHP): each is a cell of its own beside the app's, measured
// the same way, without a breakdown. Every cell samples its processes' CPU and memory while the load runs
// (kernel/process-sampler.js), and keeps Apache Bench's latency percentiles (kernel/load-observer.js). A cell
// of the app with a database nodebench gave it counts the documents of each collection right before its measured
// load and right after it (kernel/collection-sizes.js): how much the store grew under that load. The cells and
// the workload's setup and teardown around them are the plan's (kernel/plan.js), compare's too.

// The breakdown of a server that runs without nodebench: none.
const NO_BREAKDOWN = Object.freeze({
  instanceEnv: async () => ({}),
  attached () {},
  gone () {},
  begin: async () => {},
  read: async () => null,
  end () {}
})

/**
 * Runs the matrix of `config` on its app: the workload's setup, every cell, its teardown. `env` carries the
 * app's MONGODB_URI (kernel/database.js). `onCell(event)` hears `{ type: 'start' | 'end', index, total, cell,
 * record? }`; `onRecord(record, target)` gets each cell's record as it is done, and the target it measured;
 * `onNotice(text)` what an app's nodebench said on its stderr (app-process.js). `processes`: the run's processes
 * beyond each cell's servers, as the sampler's roots (the database); `databaseUri`: the database whose collections
 * each app cell counts (null: none). Resolves to `{ aborted, targets }`: why the
 * run stopped early (the app, the run's only server, did not start: the next cells would fail the same way), else
 * null; what each target's servers were (versions, the reply they served).
 */
async function runMatrix (config, options) {
  const {
    env, onRecord, onCell = () => {}, log = () => {}, onNotice = () => {}, processes = [], databaseUri = null
  } = options
  let aborted = null
  const runId = Date.now()
  const source = await openBreakdownSource(config, { env, log })
  // Shared by a run's cells: the app's answers (what bare servers serve) and scenario values, by scenario and
  // format; the targets that did not start (their next cells fail at once, with the same error); what each
  // target's servers were.
  const context = {
    replies: new Map(),
    values: new Map(),
    broken: new Map(),
    about: {},
    alone: targetsOf(config).length === 1,
    // Whether a bare server of nodebench's serves the app's answers, taken once per scenario and format.
    mirrors: targetsOf(config).some((target) => target.builtIn),
    roots: [...processes, { pid: process.pid, role: 'nodebench (load generator)', descendants: false }],
    databaseUri
  }
  try {
    await runPlan(config, { env, log }, async (cell, { index, total, values }) => {
      onCell({ type: 'start', index, total, cell })
      const cellSource = source.forCell(`${runId}-${index}`)
      const record = await runCell(config, cell, { env, values, log, onNotice, source: cellSource, context })
      if (record.abort) {
        aborted = record.failure
        delete record.abort
      }
      onRecord(record, cell.target)
      onCell({ type: 'end', index, total, cell, record })
      return aborted === null ? null : STOP
    })
  } finally {
    await source.close()
  }
  return { aborted, targets: context.about }
}

/**
 * Starts a cell's server: the app (traced or not) in the cell's topology, else the target's own server.
 * Resolves to `{ base, processes(), stop(), ... }` (kernel/topology.js, baselines/servers.js).
 */
async function startServer (config, cell, { env, source, log, onNotice, context }) {
  const { processes, topology, target, scenario, format, values = {} } = cell
  if (target.kind === 'app' || target.kind === 'app-untraced') {
    const traced = target.kind === 'app'
    return startTopology(config.target, {
      topology,
      balancer: config.balancer,
      processes,
      env,
      source,
      log,
      onNotice,
      traced,
      role: traced ? 'app' : 'app (untraced)',
      values,
      start: config.workload.start
    })
  }
  const expected = config.workload.scenarios[scenario].requests[format].status
  const reply = replyFor(context.replies.get(cellKey(cell)) ?? null, expected)
  const server = await startTarget(target, {
    processes: processes ?? 1, env, reply, appDir: config.target.app, stopGraceMs: config.target.stopGraceMs, log
  })
  context.about[target.name] = server.about
  return server
}

/** What a cell's bare servers share with the app's cell: its scenario, format and values. */
function cellKey ({ scenario, format, values = {} }) {
  return `${scenario} ${format} ${JSON.stringify(values)}`
}

/** A failure's code and message as one line (Apache's error log lines joined). */
function failureOf (err) {
  return { failure: err.message.split('\n').map((line) => line.trim()).filter(Boolean).join(' | '), failureCode: err.code ?? null }
}

async function runCell (config, cell, { env, values, log, onNotice, source: appSource, context }) {
  const { scenario, format, processes, topology, target, values: varied = {} } = cell
  const workload = config.workload
  const definition = workload.scenarios[scenario]
  // Only the app has a breakdown; a bare server's cell uses the app's scenario values, its own hooks only
  // when the app gave none (a run without the app).
  const source = target.traced ? appSource : NO_BREAKDOWN
  const bare = target.kind !== 'app' && target.kind !== 'app-untraced'
  const key = cellKey(cell)
  const record = {
    target: target.name,
    scenario,
    format,
    processes,
    topology,
    // The cell's varied values (kernel/sweep.js): with scenario, format, processes and topology, what names it.
    values: { ...varied },
    balancer: topology === 'nginx' ? config.balancer : null,
    status: 'ok',
    operation: null,
    connections: varied.connections ?? config.connections[scenario],
    amount: config.amounts[scenario],
    duration: config.duration,
    breakdown: null
  }
  let running = null
  let cellValues = values
  let ranSetup = false
  const withEvents = []
  let sampler = null
  try {
    if (context.broken.has(target.name)) return { ...record, status: 'failed', ...failureOf(context.broken.get(target.name)) }
    try {
      running = await startServer(config, cell, { env, source, log, onNotice, context })
    } catch (err) {
      if (target.kind === 'app' && context.alone) return { ...record, status: 'failed', failure: err.message, abort: true }
      context.broken.set(target.name, err)
      return { ...record, status: 'failed', ...failureOf(err) }
    }
    const base = running.base
    if (bare && context.values.has(key)) {
      cellValues = context.values.get(key)
    } else {
      ranSetup = true
      cellValues = await setUpCell(workload, scenario, { base, env, log, values })
    }
    const sent = requestsOf(definition, format, { ...cellValues, ...varied })
    record.operation = { method: sent.method, route: null, format: null }
    // The cell's first requests: each distinct one once, checked, then the warm-up, every answer checked too (a
    // request the warm-up made fail, as a unique email registered twice, is named as the warm-up's).
    const warmupRequests = config.warmups?.[scenario] ?? config.warmup
    const warmup = { connections: Math.min(record.connections, warmupRequests), amount: warmupRequests }
    const sample = await warmUpCell(base, sent, warmup, {
      probeFailed (err) {
        if (err.code || !bare) throw err
        throw new NodebenchError(codes.NB_ERR_TARGET_START, `target '${target.name}' (${target.label}) does not answer at ${base}: ${err.cause?.code ?? err.message}`)
      }
    })
    if (target.kind === 'app' && !context.values.has(key)) {
      context.values.set(key, cellValues)
      // A request that changes is answered as the probe's was (its templates are filled in request by request).
      if (context.mirrors) {
        context.replies.set(key, sent.flow.dynamic
          ? { status: sample.status, contentType: sample.contentType, body: sample.body, from: 'app' }
          : await captureReply(base, sent))
      }
    }
    const sizesBefore = bare ? null : await readCollectionSizes(context.databaseUri)
    await source.begin(base)
    sampler = startProcessSampler({ roots: () => [...running.processes(), ...context.roots] })
    const queueBefore = listenQueueCounters()
    const proxied = topology === 'nginx'
    if (config.findMax !== null) {
      record.findMax = await findMaxThroughput(base, sent, { record, config, proxied, bytes: sample.bytes, log })
      const { steps, best } = record.findMax
      const shown = steps.find((step) => step.connections === best?.connections) ?? steps[0]
      Object.assign(record, cellFigures([shown]), { expectedStatus: sent.status, reps: steps })
      record.latencyPercentilesMs = shown.latencyPercentilesMs
    } else {
      const reps = []
      const observers = []
      // The breakdown read after every repetition: each one's figures are the difference of two reads (none for
      // a server without nodebench).
      let read = null
      for (let rep = 0; rep < config.reps; rep++) {
        const events = proxied ? config.events : []
        const observer = new LoadObserver({ expectedStatus: sent.status, proxied, timeline: events.length > 0 })
        observers.push(observer)
        let happenings = null
        const result = await runAutocannon(base, sent, {
          connections: record.connections,
          amount: record.amount,
          duration: record.duration,
          timeoutSec: config.requestTimeoutSec,
          observer,
          phase: `repetition ${rep + 1}`,
          onStart: (startedAt) => { happenings = scheduleEvents(events, running, { startedAt, source, log }) }
        })
        const happened = await happenings.settled()
        const figures = repetitionFigures(result, sent, sample.bytes)
        const { failures, timeline, resetsAtSec } = observer.summary()
        figures.failures = failures
        figures.latencyPercentilesMs = latencyPercentiles([observer])
        if (events.length > 0) {
          figures.timeline = timeline
          const { startedAtMs, elapsedSec } = result
          withEvents.push({ figures, happened, timeline, resetsAtSec, startedAtMs, elapsedSec })
        }
        const after = await source.read(base)
        if (after !== null) figures.operations = repetitionOperations(after, read)
        read = after
        reps.push(figures)
      }
      Object.assign(record, cellFigures(reps), { expectedStatus: sent.status, reps })
      record.latencyPercentilesMs = latencyPercentiles(observers)
      record.breakdown = read
    }
    record.resources = await sampler.stop()
    sampler = null
    if (sizesBefore !== null) {
      record.collections = collectionChanges(sizesBefore, await readCollectionSizes(context.databaseUri))
    }
    record.listenQueue = listenQueueSince(queueBefore)
    record.breakdown ??= await source.read(base)
    if (record.breakdown !== null) {
      record.operation = measuredOperation(record.breakdown, sent.method) ?? record.operation
      takeExpectedErrors(record.breakdown, record.operation, sent.status, record.statusCodes)
    }
    if (target.kind === 'app-untraced') record.tracedAnyway = await answersBreakdown(base)
    if (record.requests === 0) {
      record.status = 'failed'
      record.failure = 'no response completed'
    }
  } catch (err) {
    record.status = 'failed'
    Object.assign(record, target.kind === 'app' ? { failure: err.message } : failureOf(err))
  } finally {
    if (sampler !== null) record.resources = await sampler.stop()
    if (running !== null) {
      await running.stop()
      if (running.instances) record.instances = running.instances.map(({ env: sourceEnv, ...instance }) => instance)
      // nginx's access log is whole once it stopped: which instance served what around each event.
      for (const rep of withEvents) {
        rep.figures.elasticity = analyzeEvents({ ...rep, events: rep.happened, traffic: running.traffic })
      }
    }
    source.end()
    if (ranSetup) await tearDownCell(workload, scenario, { env, log, values: cellValues })
  }
  return record
}

/** Whether an app started with NODEBENCH=off still serves a breakdown (it ignored the variable: traced anyway). */
async function answersBreakdown (base) {
  try {
    const response = await fetch(`${base}/__nodebench`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) })
    const text = await response.text()
    return response.ok && Array.isArray(JSON.parse(text).operations)
  } catch {
    return false
  }
}

module.exports = { runMatrix }
