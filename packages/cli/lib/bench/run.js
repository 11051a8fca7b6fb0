'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { describeMachine } = require('../kernel/machine')
const { openDatabase } = require('../kernel/database')
const { displayPath } = require('../kernel/paths')
const { describeTarget } = require('../kernel/targets')
const { checkOpenFiles } = require('../kernel/open-files')
const { round } = require('../kernel/statistics')
const { runMatrix } = require('./matrix')
const { writeReport } = require('./report')
const { databaseOfRun } = require('../kernel/collection-sizes')
const { newResults, planOf, RESULTS_SCHEMA } = require('../kernel/results')
const { variedByScenario } = require('../kernel/sweep')

// `runBench`, the bench feature's API: the database the workload asks for (kernel/database.js), the load matrix
// (matrix.js), then the passes the caller adds over the same app (bench --flame and --browser: each feature
// brings its own, lib/api.js hands them in), and the report. results.json is written before the first cell and
// again after every cell and pass, so whatever finished is on disk if the run stops.
//
// A pass: `{ key, run(context), section }`: `run` resolves to what results.json keeps under `key`, given
// `{ target, workload, scenarios, formats, connections, outDir, env, onProgress }` (the run's app, its workload
// and matrix, the app's environment with its database); `section` renders it in the report (report.js) and
// for the terminal. A pass that cannot run says so in what it keeps; it does not fail the run.

/** What results.json says of the run's configuration (paths as the user reads them). */
function configOf (config) {
  const { target } = config
  return {
    app: target.app === null ? null : displayPath(target.app),
    workload: displayPath(config.workload.file),
    cmd: target.cmd,
    url: target.url,
    ...planOf(config),
    quick: config.quick,
    breakdownSource: config.breakdownSource,
    topologies: config.topologies,
    balancer: config.topologies.includes('nginx') ? config.balancer : null,
    findMax: config.findMax,
    events: config.events,
    requestTimeoutSec: config.requestTimeoutSec,
    targets: (config.targets ?? []).map((target) => target.name),
    // Each scenario's varied names and the values the run took (kernel/sweep.js); {} without sweeps.
    vary: variedByScenario(config.sweep?.byScenario)
  }
}

/** The 1, 5 and 15 minute load averages, two decimals. */
function loadAverage () {
  return os.loadavg().map((value) => round(value, 2))
}

/** What results.json says of a run's servers: each target, and what its servers were once they ran. */
function targetsOf (config, about = {}) {
  return (config.targets ?? []).map((target) => {
    const described = describeTarget(target)
    return {
      ...described,
      script: described.script === null ? null : displayPath(described.script),
      root: described.root === null ? null : displayPath(described.root),
      server: about[target.name] ?? null
    }
  })
}

/**
 * Runs `config` (benchConfig's). `onCell(event)` hears each cell start and end (matrix.js), `log(message)` the
 * run's other progress, `onPassProgress(key, message)` a pass's, `onNotice(text)` what the app's nodebench said.
 * Resolves to `{ results, resultsFile, report, aborted }`: `report` the paths of report.html and report.md,
 * `aborted` why the run stopped early (or null).
 */
async function runBench (config, options = {}) {
  const {
    env = process.env, passes = [], onCell = () => {}, log = () => {}, onPassProgress = () => {}, onNotice = () => {}
  } = options
  const started = Date.now()
  fs.mkdirSync(config.outDir, { recursive: true })
  const resultsFile = path.join(config.outDir, 'results.json')
  const results = newResults({ started, workload: config.workload, config: configOf(config) })
  // The servers beside the app (kernel/targets.js); their cells go to `targetCells`, the app's stay in `cells`.
  results.targets = targetsOf(config)
  results.targetNotes = [...(config.targetNotes ?? [])]
  results.openFiles = null
  const save = () => {
    results.durationSec = round((Date.now() - started) / 1000)
    fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n')
  }
  let aborted = null
  const database = await openDatabase(config.target, config.workload, { env, onProgress: log })
  try {
    results.machine = await describeMachine({ mongodbUri: database.uri, embedded: database.embedded })
    // How busy the machine was with other work: its load average when the run started and when it ended.
    results.machine.loadAverage = { start: loadAverage(), end: null }
    results.openFiles = checkOpenFiles(config)
    if (!results.openFiles.enough) log(results.openFiles.note)
    save()
    // The app's database and its collections' sizes cell by cell (database.js); none without one.
    const databaseUri = database.source === null ? null : database.uri
    const onRecord = (record, target) => {
      ;(target === undefined || target.kind === 'app' ? results.cells : results.targetCells).push(record)
      if (databaseUri !== null) results.database = databaseOfRun(database, results.cells)
      save()
    }
    const processes = database.pid === null ? [] : [{ pid: database.pid, role: `database (${database.name})` }]
    const matrix = await runMatrix(config, {
      env: database.env, onRecord, onCell, log, onNotice, processes, databaseUri
    })
    aborted = matrix.aborted
    if (results.database?.warning) log(`warning: ${results.database.warning}`)
    results.targets = targetsOf(config, matrix.targets)
    results.machine.loadAverage.end = loadAverage()
    save()
    if (aborted === null) {
      const context = {
        target: config.target,
        workload: config.workload,
        scenarios: config.scenarios,
        formats: config.formats,
        connections: config.connections,
        outDir: config.outDir,
        env: database.env
      }
      for (const pass of passes) {
        results[pass.key] = await pass.run({ ...context, onProgress: (message) => onPassProgress(pass.key, message) })
        save()
      }
    }
  } finally {
    await database.stop()
  }
  const report = await writeReport(results, config.outDir, { sections: passes.map((pass) => pass.section) })
  return { results, resultsFile, report, aborted }
}

module.exports = { runBench, RESULTS_SCHEMA }
