'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const autocannon = require('autocannon')
const { SCENARIOS } = require('./study')
const { startApp } = require('./app-process')
const { describeMachine } = require('./machine')

// One bench run: for every cell (scenario x format x processes), start the app with that many processes,
// warm it up, reset its breakdown, run autocannon `reps` times, record the figures and the breakdown, stop
// the app. results.json is rewritten after every cell, so whatever finished is on disk if the run stops.

const RESULTS_SCHEMA = 1
// What a write sends: one small document, as the study's `{ username }`.
const WRITE_DOCUMENT = Object.freeze({ username: 'nodebench-bench' })

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

/** What autocannon sends for a scenario in a format, and the status a correct answer has. */
function requestFor (scenario, format, documentId) {
  const api = format === 'json' ? '/api' : ''
  // As a browser asks for pages (a form's redirect then answers in HTML) and the single-page client for JSON.
  const headers = { accept: format === 'html' ? 'text/html' : 'application/json' }
  if (scenario === 'doc-read') {
    return { method: 'GET', path: `${api}/db/nodebench/users/${documentId}`, headers, expectedStatus: 200 }
  }
  if (scenario === 'collection-read') {
    return { method: 'GET', path: `${api}/db/nodebench/users`, headers, expectedStatus: 200 }
  }
  if (format === 'html') {
    return {
      method: 'POST',
      path: '/db/nodebench/users',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ document: JSON.stringify(WRITE_DOCUMENT) }).toString(),
      // Mongo-Express answers a form with a redirect to the collection (Apache Bench counted those non-2xx too).
      expectedStatus: 302
    }
  }
  return {
    method: 'POST',
    path: '/api/db/nodebench/users',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(WRITE_DOCUMENT),
    expectedStatus: 201
  }
}

function runAutocannon (base, request, { connections, amount, duration }) {
  const options = {
    url: base + request.path,
    method: request.method,
    headers: request.headers,
    body: request.body,
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
function repetitionFigures (result, request, bytesPerResponse) {
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
    unexpectedStatus: answered - (statusCodes[request.expectedStatus] || 0),
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

async function fetchBreakdown (base, method) {
  const response = await fetch(`${base}/__nodebench`, { method, headers: { accept: 'application/json' } })
  const text = await response.text()
  if (response.status === 403) {
    // nodebench's access rule refused: its answer says why (e.g. a proxy in front of the app).
    let reason = text.slice(0, 300)
    try { reason = JSON.parse(text).error } catch {}
    throw new Error(`${method} /__nodebench was refused (403): ${reason}. bench reads it from this machine; allow it with nodebenchTrace({ access })`)
  }
  if (!response.ok) throw new Error(`${method} /__nodebench answered ${response.status}: is the app traced with nodebenchTrace({ expose: '/__nodebench' })?`)
  return JSON.parse(text)
}

/** The id of a document to read: the first of nodebench.users, through the app's own API. */
async function findDocumentId (base) {
  const response = await fetch(`${base}/api/db/nodebench/users?limit=1`, { headers: { accept: 'application/json' } })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET /api/db/nodebench/users answered ${response.status}: ${text.slice(0, 200)}`)
  const page = JSON.parse(text)
  if (!Array.isArray(page.documents) || page.documents.length === 0) {
    throw new Error('the collection nodebench.users is empty: seed it (node examples/mongo-admin/seed.js)')
  }
  return page.documents[0]._id
}

function runScript (script, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${path.basename(script)} failed (exit ${code}): ${stderr.trim().split('\n').pop()}`))))
  })
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
    config: {
      app: config.app === null ? null : path.relative(process.cwd(), config.app) || '.',
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
      quick: config.quick
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

  const seedScript = config.app === null ? null : path.join(config.app, 'seed.js')
  if (seedScript !== null) {
    log('seeding nodebench.users (1000 documents)')
    await runScript(seedScript, env)
  }

  let abort = null
  for (const [index, cell] of cells.entries()) {
    onCell({ type: 'start', index, total: cells.length, cell })
    const record = await runCell(config, cell, { env, seedScript, log })
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
  return { results, resultsFile, aborted: abort }
}

async function runCell (config, { scenario, format, processes }, { env, seedScript, log }) {
  const definition = SCENARIOS[scenario]
  const record = {
    scenario,
    format,
    processes,
    status: 'ok',
    operation: { method: definition.method, route: definition.routes[format], format },
    connections: config.connections[scenario],
    amount: config.amounts[scenario],
    duration: config.duration,
    breakdown: null
  }
  let app = null
  try {
    try {
      app = await startApp(config, { processes, env })
    } catch (err) {
      return { ...record, status: 'failed', failure: err.message, abort: true }
    }
    const documentId = await findDocumentId(app.base)
    const request = requestFor(scenario, format, documentId)
    const load = { connections: record.connections, amount: record.amount, duration: record.duration }
    if (config.warmup > 0) {
      await runAutocannon(app.base, request, { connections: Math.min(record.connections, config.warmup), amount: config.warmup })
    }
    const sample = await probe(app.base, request)
    if (sample.status !== request.expectedStatus) {
      throw new Error(`${request.method} ${request.path} answered ${sample.status}, expected ${request.expectedStatus}: ${sample.body.toString('utf8', 0, 200)}`)
    }
    await fetchBreakdown(app.base, 'DELETE')
    const reps = []
    for (let rep = 0; rep < config.reps; rep++) {
      reps.push(repetitionFigures(await runAutocannon(app.base, request, load), request, sample.bytes))
    }
    Object.assign(record, cellFigures(reps), { expectedStatus: request.expectedStatus, reps })
    record.breakdown = await fetchBreakdown(app.base, 'GET')
    if (record.requests === 0) {
      record.status = 'failed'
      record.failure = 'no response completed'
    }
  } catch (err) {
    record.status = 'failed'
    record.failure = err.message
  } finally {
    if (app !== null) await app.stop()
    if (scenario === 'write' && seedScript !== null) {
      // Seeding again removes what the write runs added, so every cell reads the same 1000 documents.
      await runScript(seedScript, env).catch((err) => log(`cleaning up after writes failed: ${err.message}`))
    }
  }
  return record
}

module.exports = { runBench, cellsOf, requestFor, cellFigures, runAutocannon, findDocumentId, RESULTS_SCHEMA }
