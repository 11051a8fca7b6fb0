'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')
const { requestsOf } = require('../kernel/workload')
const { startTopology } = require('../kernel/topology')
const { measuredOperation } = require('../kernel/breakdown-source')
const { LoadObserver, latencyPercentiles } = require('../kernel/load-observer')
const { runAutocannon } = require('../kernel/load')
const { setUpCell, warmUpCell, tearDownCell } = require('../kernel/cell')
const { startTarget, captureReply, replyFor } = require('./baselines/servers')
const { startProcessSampler } = require('../kernel/process-sampler')
const { listenQueueCounters, listenQueueSince } = require('../kernel/listen-queue')
const { repetitionFigures, cellFigures, takeExpectedErrors, repetitionOperations } = require('../kernel/repetition')
const { readCollectionSizes } = require('../kernel/collection-sizes')
const { analyzeEvents } = require('./scale-out/elasticity')
const { scheduleEvents } = require('./scale-out/events')
const { findMaxThroughput } = require('./scale-out/find-max')

// One cell of a bench run, in the steps a run takes it through: open (start its server, the scenario's setup, the
// warm-up, its breakdown's window), its measurement (`reps` repetitions of autocannon, or --find-max's steps),
// close (its figures, stop the server, the scenario's teardown). The matrix runs a cell's steps back to back
// (matrix.js); an app and its untraced baseline run theirs side by side, their repetitions interleaved
// (interleaved.js). What the cell's processes use, the listen queue's overflows and the store's growth are
// counted over its own load only (`window()` around it): while another server's repetition runs, none of it
// counts as this cell's.

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

/**
 * Opens `cell`: starts its server, runs the scenario's setup, warms it up, begins its breakdown's window.
 * Resolves to the cell's run `{ record, ready, reps, window(measure), repetition(rep), findMax(), close() }`, never
 * rejects: a failure is the record's (`ready` false), and close() still stops what started. `record.abort`: the
 * app, the run's only server, did not start.
 */
async function openCell (config, cell, { env, values, log, onNotice, source: appSource, context }) {
  const { scenario, format, processes, topology, target, values: varied = {} } = cell
  const workload = config.workload
  const definition = workload.scenarios[scenario]
  // Only the app has a breakdown; a bare server's cell uses the app's scenario values, its own hooks only
  // when the app gave none (a run without the app).
  const source = target.traced ? appSource : NO_BREAKDOWN
  const bare = target.kind !== 'app' && target.kind !== 'app-untraced'
  const key = cellKey(cell)
  const proxied = topology === 'nginx'
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
  let sent = null
  let sample = null
  let sampler = null
  // What the cell's own load windows added up to: the listen queue's overflows, each collection's growth.
  let sizesBefore = null
  let listenQueue = null
  let grown = null
  const withEvents = []
  const reps = []
  const observers = []
  // The breakdown read after every repetition: each one's figures are the difference of two reads (none for
  // a server without nodebench).
  let read = null
  let ready = false

  function fail (err) {
    ready = false
    record.status = 'failed'
    Object.assign(record, target.kind === 'app' ? { failure: err.message } : failureOf(err))
  }

  async function open () {
    if (context.broken.has(target.name)) return Object.assign(record, { status: 'failed' }, failureOf(context.broken.get(target.name)))
    try {
      running = await startServer(config, cell, { env, source, log, onNotice, context })
    } catch (err) {
      if (target.kind === 'app' && context.alone) return Object.assign(record, { status: 'failed', failure: err.message, abort: true })
      context.broken.set(target.name, err)
      return Object.assign(record, { status: 'failed' }, failureOf(err))
    }
    const base = running.base
    if (bare && context.values.has(key)) {
      cellValues = context.values.get(key)
    } else {
      ranSetup = true
      cellValues = await setUpCell(workload, scenario, { base, env, log, values })
    }
    sent = requestsOf(definition, format, { ...cellValues, ...varied })
    record.operation = { method: sent.method, route: null, format: null }
    // The cell's first requests: each distinct one once, checked, then the warm-up, every answer checked too (a
    // request the warm-up made fail, as a unique email registered twice, is named as the warm-up's).
    const warmupRequests = config.warmups?.[scenario] ?? config.warmup
    const warmup = { connections: Math.min(record.connections, warmupRequests), amount: warmupRequests }
    sample = await warmUpCell(base, sent, warmup, {
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
    sizesBefore = bare ? null : await readCollectionSizes(context.databaseUri)
    grown = new Map()
    await source.begin(base)
    ready = true
  }

  /** One repetition of the cell's load: its figures, and the breakdown's difference over it. */
  async function repetition (rep) {
    const base = running.base
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
    // When it started (ms since the epoch): where it fell among the run's other repetitions.
    figures.startedAtMs = result.startedAtMs
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

  /** Counts what `measure()` runs as the cell's own load: its processes' figures, listen queue, store growth. */
  async function window (measure) {
    if (!ready) return
    try {
      const sizes = sizesBefore === null ? null : await readCollectionSizes(context.databaseUri)
      if (sampler === null) sampler = startProcessSampler({ roots: () => [...running.processes(), ...context.roots] })
      else sampler.resume()
      const queueBefore = listenQueueCounters()
      try {
        await measure()
      } finally {
        listenQueue = addCounts(listenQueue, listenQueueSince(queueBefore))
        await sampler.pause()
        if (sizesBefore !== null) grown = addGrowth(grown, sizes, await readCollectionSizes(context.databaseUri))
      }
    } catch (err) {
      fail(err)
    }
  }

  /** --find-max's steps in place of the repetitions (scale-out/find-max.js). */
  async function findMax () {
    record.findMax = await findMaxThroughput(running.base, sent, { record, config, proxied, bytes: sample.bytes, log })
    const { steps, best } = record.findMax
    const shown = steps.find((step) => step.connections === best?.connections) ?? steps[0]
    Object.assign(record, cellFigures([shown]), { expectedStatus: sent.status, reps: steps })
    record.latencyPercentilesMs = shown.latencyPercentilesMs
  }

  /** The cell's figures, then its server stopped and the scenario's teardown: resolves to its record. */
  async function close () {
    try {
      if (ready) {
        if (config.findMax === null) {
          Object.assign(record, cellFigures(reps), { expectedStatus: sent.status, reps })
          record.latencyPercentilesMs = latencyPercentiles(observers)
          record.breakdown = read
        }
        record.resources = await sampler.stop()
        sampler = null
        if (sizesBefore !== null) record.collections = grown === null ? null : grownCollections(sizesBefore, grown)
        record.listenQueue = listenQueue
        record.breakdown ??= await source.read(running.base)
        if (record.breakdown !== null) {
          record.operation = measuredOperation(record.breakdown, sent.method) ?? record.operation
          takeExpectedErrors(record.breakdown, record.operation, sent.status, record.statusCodes)
        }
        if (target.kind === 'app-untraced') record.tracedAnyway = await answersBreakdown(running.base)
        if (record.requests === 0) {
          record.status = 'failed'
          record.failure = 'no response completed'
        }
      }
    } catch (err) {
      fail(err)
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

  try {
    await open()
  } catch (err) {
    fail(err)
  }
  /** Runs `measure()` (a repetition, --find-max's steps) unless the cell failed; a failure is the record's. */
  async function guarded (measure) {
    if (!ready) return
    try {
      await measure()
    } catch (err) {
      fail(err)
    }
  }
  return {
    record,
    get ready () { return ready },
    // Each repetition's figures so far.
    reps,
    window,
    repetition: (rep) => guarded(() => repetition(rep)),
    findMax: () => guarded(findMax),
    close
  }
}

/** Two counts of the listen queue's (listenQueueSince's) added; null when either is unknown. */
function addCounts (total, counts) {
  if (counts === null) return null
  if (total === null) return counts
  return { overflows: total.overflows + counts.overflows, drops: total.drops + counts.drops }
}

/** Each collection's growth over a window added to `grown` (name -> documents); null when a read failed. */
function addGrowth (grown, before, after) {
  if (grown === null || before === null || after === null) return null
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    grown.set(name, (grown.get(name) ?? 0) + (after[name] ?? 0) - (before[name] ?? 0))
  }
  return grown
}

/** The collections' sizes before the cell's load, and after it its own windows' growth (collectionChanges' shape). */
function grownCollections (before, grown) {
  const names = [...new Set([...Object.keys(before), ...grown.keys()])].sort()
  return names.map((name) => ({ name, before: before[name] ?? 0, after: (before[name] ?? 0) + (grown.get(name) ?? 0) }))
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

module.exports = { openCell }
