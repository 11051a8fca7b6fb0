'use strict'

const { openBreakdownSource } = require('../kernel/breakdown-source')
const { runPlan, targetsOf, STOP } = require('../kernel/plan')
const { openCell } = require('./cell-run')
const { pairedCostOf } = require('./baselines/pairs')

// The load matrix of a bench run: for every cell (processes x topology x scenario x format), start the app with
// that many processes (kernel/topology.js: a node:cluster app, or independent instances behind nginx), warm it
// up, start its breakdown's window (kernel/breakdown-source.js), run autocannon `reps` times (or, with
// --find-max, steps of more and more connections until the first failure: scale-out/find-max.js), record the
// figures, the failures by class and the breakdown, stop the app. Instances added or killed mid-run
// (--add-instance-at, --kill-instance-at: scale-out/events.js) are recorded with what happened around them
// (scale-out/elasticity.js). Each cell's record is saved
// as soon as it is done, so whatever finished is on disk if the run stops. A cell's steps: cell-run.js.
//
// A run may send the same scenarios to other servers than the app (kernel/targets.js: the app without
// nodebench, bare node:http and Express, Apache with PHP): each is a cell of its own beside the app's, measured
// the same way, without a breakdown. The app's cell and the untraced app's of the same place run side by side,
// their repetitions interleaved (runInterleaved): what the two differ by is nodebench's cost, and a machine whose
// load drifts between two cells run one after the other would add its drift to it. Every cell samples its
// processes' CPU and memory while its own load runs (kernel/process-sampler.js), and keeps Apache Bench's latency
// percentiles (kernel/load-observer.js). A cell of the app with a database nodebench gave it counts the documents
// of each collection around its own measured load (kernel/collection-sizes.js): how much the store grew under
// that load. The cells and the workload's setup and teardown around them are the plan's (kernel/plan.js),
// compare's too.

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
  const done = (record, { cell, index }, total) => {
    if (record.abort) {
      aborted = record.failure
      delete record.abort
    }
    onRecord(record, cell.target)
    onCell({ type: 'end', index, total, cell, record })
  }
  // The app and its untraced baseline interleave their repetitions, but for --find-max's steps and instances
  // added or killed mid-run, whose timelines are each one server's alone.
  const runPair = config.findMax === null && config.events.length === 0
    ? async (step, { total, values }) => {
      for (const { cell, index } of step) onCell({ type: 'start', index, total, cell })
      const cells = step.map(({ cell, index }) => ({ cell, source: source.forCell(`${runId}-${index}`) }))
      const records = await runInterleaved(config, cells, { env, values, log, onNotice, context })
      for (const [i, record] of records.entries()) done(record, step[i], total)
      return null
    }
    : null
  try {
    await runPlan(config, { env, log, runPair }, async (cell, { index, total, values }) => {
      onCell({ type: 'start', index, total, cell })
      const cellSource = source.forCell(`${runId}-${index}`)
      const record = await runCell(config, cell, { env, values, log, onNotice, source: cellSource, context })
      done(record, { cell, index }, total)
      return aborted === null ? null : STOP
    })
  } finally {
    await source.close()
  }
  return { aborted, targets: context.about }
}

/** One cell, its steps back to back (cell-run.js): open, every repetition (or --find-max's steps), close. */
async function runCell (config, cell, options) {
  const run = await openCell(config, cell, options)
  await run.window(async () => {
    if (config.findMax !== null) return run.findMax()
    for (let rep = 0; rep < config.reps; rep++) await run.repetition(rep)
  })
  return run.close()
}

/**
 * The app's cell and its untraced baseline's (`cells`, the app's first) side by side: both opened (the app's
 * first: its answers and values are the run's), their repetitions interleaved, the order turned at each
 * repetition (app, untraced, untraced, app, app, ...: neither always runs right after its warm-up, and a
 * machine that drifts steadily falls on both alike), then both closed. Either runs alone if the other failed.
 * Resolves to their records, in `cells`' order; the untraced app's holds the pairs' figures (`paired`).
 */
async function runInterleaved (config, cells, options) {
  const runs = []
  for (const { cell, source } of cells) runs.push(await openCell(config, cell, { ...options, source }))
  for (let rep = 0; rep < config.reps; rep++) {
    const turn = rep % 2 === 0 ? runs : [...runs].reverse()
    for (const run of turn) await run.window(() => run.repetition(rep))
    const rates = runs.map((run, i) => `${cells[i].cell.target.name} ${rateOf(run, rep)}`)
    options.log(`repetition ${rep + 1}/${config.reps}, interleaved: ${rates.join(', ')}`)
  }
  const records = []
  for (const run of runs) records.push(await run.close())
  // What the pairs say of nodebench's cost (baselines/pairs.js), beside the untraced app's figures: the report's
  // judgement, for whoever reads results.json.
  const [app, untraced] = records
  if (records.length === 2 && app.status === 'ok' && untraced.status === 'ok') {
    const paired = pairedCostOf(app.reps, untraced.reps)
    if (paired !== null) untraced.paired = { with: cells[0].cell.target.name, ...paired }
  }
  return records
}

/** A repetition's throughput as progress says it, or why there is none. */
function rateOf (run, rep) {
  const figures = run.reps[rep]
  return figures === undefined ? 'failed' : `${Math.round(figures.requestsPerSec)} req/s`
}

module.exports = { runMatrix }
