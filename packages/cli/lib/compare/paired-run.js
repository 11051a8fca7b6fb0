'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { requestsOf } = require('../kernel/workload')
const { describeMachine } = require('../kernel/machine')
const { openDatabase } = require('../kernel/database')
const { readCollectionSizes, collectionChanges, databaseOfRun } = require('../kernel/collection-sizes')
const { startTopology } = require('../kernel/topology')
const { openBreakdownSource, measuredOperation } = require('../kernel/breakdown-source')
const { LoadObserver } = require('../kernel/load-observer')
const { runAutocannon } = require('../kernel/load')
const { nodeCommand } = require('../kernel/app-target')
const { callgrindCounts } = require('@nodebench/services')
const { startUnderCallgrind } = require('../kernel/callgrind')
const { repetitionFigures, cellFigures, takeExpectedErrors, repetitionOperations } = require('../kernel/repetition')
const { fillValues, variedByScenario } = require('../kernel/sweep')
const { runPlan } = require('../kernel/plan')
const { newResults, planOf } = require('../kernel/results')
const { setUpCell, warmUpCell, tearDownCell } = require('../kernel/cell')
const { round } = require('../kernel/statistics')
const { checkoutRevision } = require('./checkout')

// A paired run: the same workload on two apps (A, the base, and B, the change), cell by cell as bench runs a
// cell (start, the scenario's setup, warm-up, a probe of its paths, the breakdown's window), both apps running
// at once, their repetitions interleaved A, B, A, B, ... so that whatever the machine does meanwhile falls on
// both sides alike. With --measure instructions each app runs under callgrind (kernel/callgrind.js): after
// --warmup requests, windows of --window requests, one at a time, each window's instructions counted in the
// app's process, and the breakdown read after each (that read's own instructions left out of every window).
// Each side's measurements are a bench run's results (schema 2), written as a/results.json and b/results.json,
// which `nodebench compare a b` compares again.

const SIDES = Object.freeze(['a', 'b'])
// Under callgrind a request takes 3-20 ms, far more on a busy machine: a generous limit.
const REQUEST_TIMEOUT_SEC = 120
// What a cell's list of windows keeps of each (the repetitions hold the same, and the load's figures).
const WINDOW_FIGURES = Object.freeze(['from', 'to', 'instructions', 'instructionsPerRequest', 'allInstructionsPerRequest', 'gcPerRequest', 'compilePerRequest'])

/** The app of each side: a revision's checkout has the app at the same place as the checkout it came from. */
async function prepareSides (config, log) {
  const prepared = []
  try {
    for (const side of config.sides) {
      if (side.rev === null) {
        prepared.push({ side, target: side.target, remove: async () => {} })
        continue
      }
      const { dir, remove } = await checkoutRevision(side.rev, { onProgress: log })
      const here = path.join(dir, side.rev.relative)
      const target = side.target.app !== null
        ? Object.freeze({ ...side.target, app: here })
        : Object.freeze({ ...side.target, cwd: here })
      prepared.push({ side, target, remove })
    }
  } catch (err) {
    for (const { remove } of prepared) await remove()
    throw err
  }
  return prepared
}

function recordOf (config, { scenario, format, processes, topology, values = {} }) {
  return {
    scenario,
    format,
    processes,
    topology,
    values: { ...values },
    balancer: null,
    status: 'ok',
    operation: null,
    connections: config.measure === 'instructions' ? 1 : values.connections ?? config.connections[scenario],
    amount: config.amounts[scenario],
    duration: config.duration,
    breakdown: null
  }
}

/**
 * One cell on both sides, the frame both measures share: `start(i, target, breakdowns)` resolves to side i's
 * app (`{ base, stop(), source }`), its scenario's setup runs against it, `prepare(i, app, sent, record)` warms
 * it up and resolves to the first answers' sample; then `measure(sides, records)`, each side's figures into its
 * record, and `finish(sides, records)` what the measure adds. `startTogether`: both apps start at once, before
 * either side's setup (each side's setup and warm-up still run in turn). Any failure fails both records; the
 * apps stop and the scenario's teardown runs once per side, always.
 */
async function pairedCell (config, cell, { targets, env, values, log }, hooks) {
  const { start, prepare, measure, finish, startTogether = false } = hooks
  const workload = config.workload
  const breakdowns = await openBreakdownSource({ breakdownSource: 'app' }, { env, log })
  const records = SIDES.map(() => recordOf(config, cell))
  const apps = []
  const cellValues = SIDES.map(() => values)
  try {
    const started = startTogether ? await startBoth(targets, (i, target) => start(i, target, breakdowns), apps) : null
    const sides = []
    for (const [i, target] of targets.entries()) {
      const app = started === null ? await start(i, target, breakdowns) : started[i]
      if (started === null) apps.push(app)
      cellValues[i] = await setUpCell(workload, cell.scenario, { base: app.base, env, log, values })
      const sent = requestsOf(workload.scenarios[cell.scenario], cell.format, { ...cellValues[i], ...cell.values })
      const sample = await prepare(i, app, sent, records[i])
      sides.push({ app, base: app.base, sent, sample, source: app.source, read: null, reps: [] })
    }
    await measure(sides, records)
    for (const [i, side] of sides.entries()) {
      const { reps, read } = side
      Object.assign(records[i], cellFigures(reps), { expectedStatus: side.sent.status, reps, breakdown: read })
      records[i].operation = measuredOperation(side.read, side.sent.method)
      takeExpectedErrors(read, records[i].operation, side.sent.status, records[i].statusCodes)
    }
    await finish(sides, records)
  } catch (err) {
    for (const record of records) Object.assign(record, { status: 'failed', failure: err.message })
  } finally {
    for (const app of apps) await app.stop()
    for (const [i] of apps.entries()) await tearDownCell(workload, cell.scenario, { env, log, values: cellValues[i] })
  }
  return records
}

/**
 * Starts every target's app at once; resolves to them in the targets' order, each also pushed into `apps` (to
 * be stopped). When one fails to start, the others still started are in `apps` and the first failure is thrown.
 */
async function startBoth (targets, start, apps) {
  const started = await Promise.allSettled(targets.map((target, i) => start(i, target)))
  for (const result of started) if (result.status === 'fulfilled') apps.push(result.value)
  const failed = started.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
  return started.map((result) => result.value)
}

/** One cell on both sides, repetitions interleaved: resolves to the two records. */
function runTimeCell (config, cell, context) {
  const { env, log, onNotice, databaseUri = null } = context
  let sizesBefore = null
  return pairedCell(config, cell, context, {
    async start (i, target, breakdowns) {
      const source = breakdowns.forCell()
      const running = await startTopology(target, {
        topology: 'cluster', processes: cell.processes, env, source, log, onNotice, values: cell.values, start: config.workload.start
      })
      return { base: running.base, stop: () => running.stop(), source }
    },
    async prepare (i, app, sent, record) {
      const warmupRequests = config.warmups?.[cell.scenario] ?? config.warmup
      const warmup = { connections: Math.min(record.connections, warmupRequests), amount: warmupRequests }
      const sample = await warmUpCell(app.base, sent, warmup)
      await app.source.begin(app.base)
      return sample
    },
    async measure (sides, records) {
      // Both sides' repetitions take turns on the one database: the sizes around them are both sides'.
      sizesBefore = await readCollectionSizes(databaseUri)
      for (let rep = 0; rep < config.reps; rep++) {
        const line = []
        for (const [i, side] of sides.entries()) {
          const observer = new LoadObserver({ expectedStatus: side.sent.status })
          const result = await runAutocannon(side.base, side.sent, {
            connections: records[i].connections, amount: records[i].amount, duration: records[i].duration, observer, phase: `repetition ${rep + 1}`
          })
          const figures = repetitionFigures(result, side.sent, side.sample.bytes)
          figures.failures = observer.summary().failures
          const after = await side.source.read(side.base)
          figures.operations = repetitionOperations(after, side.read)
          side.read = after
          side.reps.push(figures)
          line.push(`${SIDES[i].toUpperCase()} ${Math.round(figures.requestsPerSec)} req/s`)
        }
        log(`repetition ${rep + 1}/${config.reps}: ${line.join(', ')}`)
      }
    },
    async finish (sides, records) {
      for (const record of records) {
        if (record.requests === 0) Object.assign(record, { status: 'failed', failure: 'no response completed' })
      }
      if (sizesBefore !== null) {
        const collections = collectionChanges(sizesBefore, await readCollectionSizes(databaseUri))
        for (const record of records) record.collections = collections
      }
    }
  })
}

/**
 * The Node.js script and arguments callgrind runs for `target` ({port} filled by startUnderCallgrind), a cell's
 * varied values filled in as bench fills them (kernel/app-process.js): into --cmd, or the workload's start.args.
 */
function callgrindArgv (target, { values = {}, start = null } = {}) {
  if (target.app !== null) {
    const startArgs = (start?.args ?? []).map((arg) => fillValues(arg, values))
    return [path.join(target.app, 'server.js'), '--port', '{port}', '--processes', '1', ...startArgs]
  }
  return nodeCommand(target, { command: 'compare', what: '--measure instructions counts' })
    .map((word) => fillValues(word.replaceAll('{processes}', '1'), values))
}

/** The workload's start.env for a cell, its varied values filled in. */
function startEnvOf (start, values = {}) {
  return Object.fromEntries(Object.entries(start?.env ?? {}).map(([name, value]) => [name, fillValues(value, values)]))
}

/** One cell on both sides under callgrind, windows interleaved: resolves to the two records. */
function runInstructionsCell (config, cell, context) {
  const { env, log } = context
  const workload = config.workload
  const discard = async (app) => fs.rmSync(await app.dump(), { force: true })
  return pairedCell(config, cell, context, {
    // Under callgrind Node.js starts in 10-40 s, on one core (valgrind runs a program's threads one at a time):
    // both sides start at once. Nothing is counted then; the warm-ups and windows still run one side at a time.
    startTogether: true,
    async start (i, target, breakdowns) {
      log(`${SIDES[i].toUpperCase()}: starting the app under callgrind (Node.js starts in 10-40 s there)`)
      const argv = callgrindArgv(target, { values: cell.values, start: workload.start })
      const startEnv = startEnvOf(workload.start, cell.values)
      const app = await startUnderCallgrind(argv, {
        env: { ...env, ...startEnv }, cwd: target.cwd, graceMs: target.stopGraceMs, onProgress: log
      })
      app.source = breakdowns.forCell()
      return app
    },
    async prepare (i, app, sent) {
      log(`${SIDES[i].toUpperCase()}: ${config.warmup} requests of warm-up`)
      const warmup = { connections: 1, amount: config.warmup, timeoutSec: REQUEST_TIMEOUT_SEC }
      const sample = await warmUpCell(app.base, sent, warmup)
      await app.source.begin(app.base)
      await discard(app)
      return sample
    },
    async measure (sides) {
      for (let window = 0; window < config.reps; window++) {
        const line = []
        for (const [i, side] of sides.entries()) {
          const load = { connections: 1, amount: config.window, timeoutSec: REQUEST_TIMEOUT_SEC, phase: `window ${window + 1}` }
          const result = await runAutocannon(side.base, side.sent, load)
          const file = await side.app.dump()
          // callgrind_annotate reads the window's dump while the breakdown is read and that read's own count
          // dropped: it runs beside the app, whose counts and times of the window are taken by then.
          const counting = callgrindCounts(file)
          counting.catch(() => {}) // awaited below; a failure of the read first leaves it unawaited
          const figures = repetitionFigures(result, side.sent, side.sample.bytes)
          const after = await side.source.read(side.base)
          await discard(side.app)
          const counts = await counting
          fs.rmSync(file, { force: true })
          const from = config.warmup + window * config.window
          const perRequest = (count) => (figures.requests > 0 ? round(count / figures.requests, 1) : null)
          Object.assign(figures, {
            from,
            to: from + figures.requests,
            // The program's own work (less what garbage collection and compiling ran: callgrindCounts), and all of it.
            instructions: counts.mutator,
            instructionsPerRequest: perRequest(counts.mutator),
            allInstructionsPerRequest: perRequest(counts.total),
            gcPerRequest: perRequest(counts.gc),
            compilePerRequest: perRequest(counts.compile),
            operations: repetitionOperations(after, side.read)
          })
          side.read = after
          side.reps.push(figures)
          line.push(`${SIDES[i].toUpperCase()} ${Math.round(figures.instructionsPerRequest).toLocaleString('en-US')}`)
        }
        log(`window ${window + 1}/${config.reps}: instructions per request ${line.join(', ')}`)
      }
    },
    finish (sides, records) {
      for (const [i, side] of sides.entries()) {
        records[i].windows = {
          warmup: config.warmup,
          requests: config.window,
          list: side.reps.map((rep) => Object.fromEntries(WINDOW_FIGURES.map((key) => [key, rep[key]])))
        }
        const short = side.reps.some((rep) => rep.requests !== config.window || rep.unexpectedStatus > 0)
        if (records[i].requests === 0 || short) {
          Object.assign(records[i], { status: 'failed', failure: `a window did not get ${config.window} answers of status ${side.sent.status}` })
        }
      }
    }
  })
}

/** What each side's results.json says of the run's configuration. */
function configOf (config, side, target) {
  return {
    side: side.name,
    source: side.source,
    app: target.app,
    cmd: target.cmd,
    rev: side.rev === null ? null : { rev: side.rev.rev, commit: side.rev.commit },
    measure: config.measure,
    ...planOf(config),
    // As bench's results say it: per scenario, each varied name's values in this run; {} without sweeps.
    vary: variedByScenario(config.sweep?.byScenario),
    window: config.window,
    breakdownSource: 'app',
    topologies: ['cluster'],
    paired: true
  }
}

/** Writes `text` whole (a temporary file renamed over it). */
function writeWhole (file, text) {
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, text)
  fs.renameSync(temporary, file)
}

/**
 * Runs `config` (compareConfig's, paired). `log(message)` hears the progress, `onCell({ index, total, cell })`
 * each cell's start, `onNotice(text)` what an app's nodebench said on its stderr (kernel/app-process.js).
 * Resolves to `{ a, b, files: { a, b } }`: each side's results (bench's results, schema 2) and where they were
 * written (<out>/a/results.json, <out>/b/results.json).
 */
async function runPaired (config, options = {}) {
  const { env = process.env, log = () => {}, onCell = () => {}, onNotice = () => {} } = options
  const started = Date.now()
  const prepared = await prepareSides(config, log)
  const targets = prepared.map(({ target }) => target)
  // bench's shape: a paired run measures the apps alone, no server beside them.
  const results = prepared.map(({ side, target }) =>
    newResults({ started, workload: config.workload, config: configOf(config, side, target) }))
  try {
    const database = await openDatabase(targets[0], config.workload, { env, onProgress: log })
    try {
      const machine = await describeMachine({ mongodbUri: database.uri, embedded: database.embedded })
      for (const result of results) result.machine = machine
      const databaseUri = database.source === null ? null : database.uri
      const runCell = config.measure === 'instructions' ? runInstructionsCell : runTimeCell
      await runPlan(config, { env: database.env, log }, async (cell, { index, total, values }) => {
        onCell({ index, total, cell })
        const records = await runCell(config, cell, { targets, env: database.env, values, log, onNotice, databaseUri })
        for (const [i, record] of records.entries()) results[i].cells.push(record)
      })
      if (databaseUri !== null) {
        for (const result of results) result.database = databaseOfRun(database, result.cells)
        if (results[0].database.warning) log(`warning: ${results[0].database.warning}`)
      }
    } finally {
      await database.stop()
    }
  } finally {
    for (const { remove } of prepared) await remove()
  }
  const files = {}
  for (const [i, side] of SIDES.entries()) {
    results[i].durationSec = round((Date.now() - started) / 1000)
    const dir = path.join(config.outDir, side)
    fs.mkdirSync(dir, { recursive: true })
    files[side] = path.join(dir, 'results.json')
    writeWhole(files[side], JSON.stringify(results[i], null, 2) + '\n')
  }
  return { a: results[0], b: results[1], files }
}

module.exports = { runPaired }
