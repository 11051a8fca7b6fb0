'use strict'

const fs = require('node:fs')
const path = require('node:path')
const autocannon = require('autocannon')
const { codes, NodebenchError } = require('@nodebench/errors')
const { requestsOf, describeWorkload, runHook } = require('../workload')
const { startTopology } = require('./topology')
const { describeMachine } = require('./machine')
const { openBreakdownSource } = require('./breakdown-source')
const { LoadObserver } = require('./load-observer')
const { analyzeEvents } = require('./elasticity')

// One bench run: for every cell (processes x topology x scenario x format), start the app with that many
// processes (topology.js: a node:cluster app, or independent instances behind nginx), warm it up, start its
// breakdown's window (breakdown-source.js), run autocannon `reps` times (or, with --find-max, steps of more
// and more connections until the first failure), record the figures, the failures by class and the
// breakdown, stop the app. Instances added or killed mid-run (--add-instance-at, --kill-instance-at) are
// recorded with what happened around them (elasticity.js). results.json is rewritten after every cell, so
// whatever finished is on disk if the run stops.

const RESULTS_SCHEMA = 1
// Distinct paths of a scenario probed before its load (a list of paths rotates; the first ones are checked).
const PROBED_PATHS = 10

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
 * Runs autocannon with a cell's requests (lib/workload.js requestsOf): each connection sends them in turn.
 * `observer` (load-observer.js) hears every answer and failure; `onStart(startedAt)` is called as it starts.
 */
function runAutocannon (base, sent, load) {
  const { connections, amount, duration, timeoutSec = 60, observer = null, onStart = () => {} } = load
  const options = {
    url: base,
    requests: observer === null ? sent.requests : observer.requests(sent.requests),
    connections,
    timeout: timeoutSec
  }
  if (amount !== null && amount !== undefined) options.amount = amount
  else options.duration = duration
  return new Promise((resolve, reject) => {
    // autocannon ends a run at its next 1-second sample tick, and its `duration` includes that wait: for a
    // run of a few seconds that lowers requests/s by up to a second's worth. The run's own time is from
    // here to the last response.
    const startedAt = performance.now()
    const startedAtMs = Date.now()
    let lastResponseAt = startedAt
    const instance = autocannon(options, (err, result) => {
      if (err) return reject(err)
      resolve({ ...result, startedAtMs, elapsedSec: (lastResponseAt - startedAt) / 1000 })
    })
    instance.on('response', () => { lastResponseAt = performance.now() })
    if (observer !== null) observer.attach(instance, startedAt)
    onStart(startedAt)
  })
}

const PERCENTILES = ['p50', 'p75', 'p90', 'p97_5', 'p99']

/** One repetition's figures from autocannon's result. */
function repetitionFigures (result, sent, bytesPerResponse) {
  const statusCodes = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) statusCodes[code] = count
  const answered = Object.values(statusCodes).reduce((sum, count) => sum + count, 0)
  const latencyMs = { mean: round(result.latency.mean) }
  for (const p of PERCENTILES) latencyMs[p] = round(result.latency[p])
  latencyMs.max = round(result.latency.max)
  return {
    // Completed requests over the run's time, as Apache Bench computes it (autocannon's per-second
    // average is coarse for runs of a few seconds).
    requestsPerSec: result.elapsedSec > 0 ? round(answered / result.elapsedSec) : 0,
    latencyMs,
    requests: answered,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    unexpectedStatus: answered - (statusCodes[sent.status] || 0),
    statusCodes,
    bytesPerResponse,
    durationSec: round(result.elapsedSec)
  }
}

/** A cell's figures: means (and spread of throughput) over its repetitions, sums of what went wrong. */
function cellFigures (reps) {
  const mean = (values) => round(values.reduce((sum, v) => sum + v, 0) / values.length)
  const throughput = reps.map((r) => r.requestsPerSec)
  const latencyMs = {}
  for (const key of ['mean', ...PERCENTILES, 'max']) latencyMs[key] = mean(reps.map((r) => r.latencyMs[key]))
  const statusCodes = {}
  for (const rep of reps) {
    for (const [code, count] of Object.entries(rep.statusCodes)) statusCodes[code] = (statusCodes[code] || 0) + count
  }
  const sum = (key) => reps.reduce((total, r) => total + r[key], 0)
  return {
    requestsPerSec: { mean: mean(throughput), min: Math.min(...throughput), max: Math.max(...throughput) },
    latencyMs,
    requests: sum('requests'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    unexpectedStatus: sum('unexpectedStatus'),
    statusCodes,
    bytesPerResponse: reps[0].bytesPerResponse
  }
}

function round (value) {
  return Math.round(value * 1000) / 1000
}

/** One request as autocannon sends it: its status and body length (Apache Bench's "document length"). */
async function probe (base, request) {
  const response = await fetch(base + request.path, {
    method: request.method, headers: request.headers, body: request.body, redirect: 'manual'
  })
  const body = Buffer.from(await response.arrayBuffer())
  return { status: response.status, bytes: body.length, body }
}

/**
 * Sends each distinct path of a cell once and checks the status: a path that answers otherwise is the
 * workload's mistake (or the app's), named by scenario, format and field. Returns the first answer's size.
 */
async function probeCell (base, sent, { scenario, format }) {
  let first = null
  const seen = new Set()
  for (const request of sent.requests) {
    if (seen.has(request.path) || seen.size >= PROBED_PATHS) continue
    seen.add(request.path)
    const answer = await probe(base, request)
    if (answer.status !== sent.status) {
      throw new NodebenchError(codes.NB_ERR_WORKLOAD_PROBE, `scenario '${scenario}' (${format}): ${sent.where}.path ` +
        `${request.method} ${request.path} answered ${answer.status}, expected ${sent.status} (${sent.where}.status): ` +
        JSON.stringify(answer.body.toString('utf8', 0, 200)))
    }
    if (first === null) first = answer
  }
  return first
}

/**
 * The operation a cell measured: the breakdown was reset before its load, so it is the operation that
 * served most of the cell's requests with the method they were sent with.
 */
function measuredOperation (breakdown, method) {
  const operations = (breakdown.operations || []).filter((o) => o.method === method)
  if (operations.length === 0) return null
  const busiest = operations.reduce((best, o) => (o.count > best.count ? o : best))
  return { method: busiest.method, route: busiest.route, format: busiest.format }
}

/**
 * Runs the matrix. `env` carries MONGODB_URI for the app and its seeding; `databaseSource` is where it came
 * from (resolveDatabase's source: 'embedded', 'service' or 'MONGODB_URI'). `onCell(event)` hears
 * `{ type: 'start' | 'end', index, total, cell }`. Returns the results (also in `<outDir>/results.json`).
 */
async function runBench (config, { env, databaseSource = null, onCell = () => {}, log = () => {} }) {
  const started = Date.now()
  const cells = cellsOf(config)
  const results = {
    schema: RESULTS_SCHEMA,
    createdAt: new Date(started).toISOString(),
    durationSec: 0,
    machine: await describeMachine({ mongodbUri: env.MONGODB_URI, embedded: databaseSource === 'embedded' || databaseSource === 'service' }),
    workload: describeWorkload(config.workload),
    config: {
      app: config.app === null ? null : path.relative(process.cwd(), config.app) || '.',
      workload: path.relative(process.cwd(), config.workload.file) || config.workload.file,
      cmd: config.cmd,
      url: config.url,
      scenarios: config.scenarios,
      formats: config.formats,
      processes: config.processes,
      reps: config.reps,
      amount: config.duration === null ? config.amounts : null,
      duration: config.duration,
      connections: config.connections,
      warmup: config.warmup,
      quick: config.quick,
      breakdownSource: config.breakdownSource,
      topologies: config.topologies,
      balancer: config.topologies.includes('nginx') ? config.balancer : null,
      findMax: config.findMax,
      events: config.events,
      requestTimeoutSec: config.requestTimeoutSec
    },
    cells: []
  }
  fs.mkdirSync(config.outDir, { recursive: true })
  const resultsFile = path.join(config.outDir, 'results.json')
  const save = () => {
    results.durationSec = round((Date.now() - started) / 1000)
    fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n')
  }
  save()

  const workload = config.workload
  if (workload.setup !== null) log(`preparing the workload (${path.basename(workload.file)} setup)`)
  const values = await runHook(workload.setup, 'setup', workload, { env, log })

  let abort = null
  const source = await openBreakdownSource(config, { env, log })
  try {
    for (const [index, cell] of cells.entries()) {
      onCell({ type: 'start', index, total: cells.length, cell })
      const record = await runCell(config, cell, { env, values, log, source: source.forCell(`${started}-${index}`) })
      results.cells.push(record)
      save()
      onCell({ type: 'end', index, total: cells.length, cell, record })
      if (record.abort) {
        // The app did not start: the next cells would fail the same way.
        abort = record.failure
        delete record.abort
        save()
        break
      }
    }
  } finally {
    await source.close()
  }
  await runHook(workload.teardown, 'teardown', workload, { env, log, values })
    .catch((err) => log(err.message))
  return { results, resultsFile, aborted: abort }
}

async function runCell (config, { scenario, format, processes, topology }, { env, values, log, source }) {
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
      running = await startTopology(config, { topology, processes, env, source, log })
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
        reps.push(figures)
      }
      Object.assign(record, cellFigures(reps), { expectedStatus: sent.status, reps })
    }
    record.breakdown = await source.read(base)
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
      const atSec = Math.round((performance.now() - startedAt) / 10) / 100
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

module.exports = { runBench, cellsOf, cellFigures, runAutocannon, probeCell, measuredOperation, RESULTS_SCHEMA }
