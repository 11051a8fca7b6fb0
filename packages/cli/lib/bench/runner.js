'use strict'

const fs = require('node:fs')
const path = require('node:path')
const autocannon = require('autocannon')
const { codes, NodebenchError } = require('@nodebench/errors')
const { requestsOf, describeWorkload, runHook } = require('../workload')
const { startApp } = require('./app-process')
const { describeMachine } = require('./machine')
const { openBreakdownSource } = require('./breakdown-source')

// One bench run: for every cell (scenario x format x processes), start the app with that many processes,
// warm it up, reset its breakdown, run autocannon `reps` times, record the figures and the breakdown, stop
// the app. results.json is rewritten after every cell, so whatever finished is on disk if the run stops.

const RESULTS_SCHEMA = 1
// Distinct paths of a scenario probed before its load (a list of paths rotates; the first ones are checked).
const PROBED_PATHS = 10

/** The cells of the matrix, in run order: process counts outermost (the slowest change), as the study. */
function cellsOf (config) {
  const cells = []
  for (const processes of config.processes) {
    for (const scenario of config.scenarios) {
      for (const format of config.formats) cells.push({ scenario, format, processes })
    }
  }
  return cells
}

/** Runs autocannon with a cell's requests (lib/workload.js requestsOf): each connection sends them in turn. */
function runAutocannon (base, sent, { connections, amount, duration }) {
  const options = {
    url: base,
    requests: sent.requests,
    connections,
    timeout: 60
  }
  if (amount !== null && amount !== undefined) options.amount = amount
  else options.duration = duration
  return new Promise((resolve, reject) => {
    // autocannon ends a run at its next 1-second sample tick, and its `duration` includes that wait: for a
    // run of a few seconds that lowers requests/s by up to a second's worth. The run's own time is from
    // here to the last response.
    const startedAt = performance.now()
    let lastResponseAt = startedAt
    const instance = autocannon(options, (err, result) => {
      if (err) return reject(err)
      resolve({ ...result, elapsedSec: (lastResponseAt - startedAt) / 1000 })
    })
    instance.on('response', () => { lastResponseAt = performance.now() })
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
      breakdownSource: config.breakdownSource
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

async function runCell (config, { scenario, format, processes }, { env, values, log, source }) {
  const workload = config.workload
  const definition = workload.scenarios[scenario]
  const record = {
    scenario,
    format,
    processes,
    status: 'ok',
    operation: null,
    connections: config.connections[scenario],
    amount: config.amounts[scenario],
    duration: config.duration,
    breakdown: null
  }
  let app = null
  let cellValues = values
  try {
    try {
      app = await startApp(config, { processes, env: { ...env, ...await source.instanceEnv() } })
    } catch (err) {
      return { ...record, status: 'failed', failure: err.message, abort: true }
    }
    source.attached()
    cellValues = { ...values, ...await runHook(definition.setup, `scenario '${scenario}' setup`, workload, { base: app.base, env, log, values }) }
    const sent = requestsOf(definition, format, cellValues)
    record.operation = { method: sent.method, route: null, format: null }
    const load = { connections: record.connections, amount: record.amount, duration: record.duration }
    if (config.warmup > 0) {
      const warmup = { connections: Math.min(record.connections, config.warmup), amount: config.warmup }
      await runAutocannon(app.base, sent, warmup)
    }
    const sample = await probeCell(app.base, sent, { scenario, format })
    await source.begin(app.base)
    const reps = []
    for (let rep = 0; rep < config.reps; rep++) {
      reps.push(repetitionFigures(await runAutocannon(app.base, sent, load), sent, sample.bytes))
    }
    Object.assign(record, cellFigures(reps), { expectedStatus: sent.status, reps })
    record.breakdown = await source.read(app.base)
    record.operation = measuredOperation(record.breakdown, sent.method) ?? record.operation
    if (record.requests === 0) {
      record.status = 'failed'
      record.failure = 'no response completed'
    }
  } catch (err) {
    record.status = 'failed'
    record.failure = err.message
  } finally {
    if (app !== null) await app.stop()
    source.end()
    if (definition.teardown !== null) {
      await runHook(definition.teardown, `scenario '${scenario}' teardown`, workload, { env, log, values: cellValues })
        .catch((err) => log(err.message))
    }
  }
  return record
}

module.exports = { runBench, cellsOf, cellFigures, runAutocannon, probeCell, measuredOperation, RESULTS_SCHEMA }
