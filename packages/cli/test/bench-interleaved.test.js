'use strict'

// nodebench-test: once. How bench orders an app's repetitions against its untraced baseline's: the plan's steps and the run's files, the same on every Node.js.
// The app and its untraced baseline (--baseline-targets app-untraced) measured side by side: the plan pairs their
// cells, a real run on examples/nest-cats keeps both servers up and alternates their repetitions (app, untraced,
// untraced, app), each cell's processes sampled only while its own load runs; an untraced app that does not start
// leaves the app's cell measured alone. The cost sentence's words on it: targets.test.js, cost-pairs.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { targetOf } = require('../lib/kernel/targets')
const { cellsOf, stepsOf } = require('../lib/kernel/plan')
const { temporaryDir, runCli } = require('../../../test/support')

const NEST_CATS = path.join(__dirname, '..', '..', '..', 'examples', 'nest-cats')
const SHOP = path.join(__dirname, 'fixtures', 'shop')

function readResults (out) {
  return JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
}

test('the plan pairs the app\'s cell with the untraced app\'s of the same place; other targets and topologies stay alone', () => {
  const config = {
    processes: [1, 2],
    topologies: ['cluster', 'nginx'],
    scenarios: ['read', 'write'],
    formats: ['json'],
    workload: { scenarios: { read: { formats: ['json'] }, write: { formats: ['json'] } } },
    targets: ['app', 'node', 'app-untraced'].map((kind) => targetOf({ kind }))
  }
  const cells = cellsOf(config)
  const name = ({ cell }) => `${cell.target.name} ${cell.processes} ${cell.topology} ${cell.scenario}`
  const steps = stepsOf(cells, { paired: true })
  assert.deepEqual(steps.map((step) => step.map(name)), [
    ['app 1 cluster read', 'app-untraced 1 cluster read'], ['node 1 cluster read'],
    ['app 1 cluster write', 'app-untraced 1 cluster write'], ['node 1 cluster write'],
    ['app 1 nginx read'], ['app 1 nginx write'],
    ['app 2 cluster read', 'app-untraced 2 cluster read'], ['node 2 cluster read'],
    ['app 2 cluster write', 'app-untraced 2 cluster write'], ['node 2 cluster write'],
    ['app 2 nginx read'], ['app 2 nginx write']
  ])
  // Each cell once, numbered in the order the run takes them.
  assert.deepEqual(steps.flat().map(({ index }) => index), cells.map((cell, i) => i))
  assert.equal(steps.flat().length, cells.length)
  // nginx first: the untraced app (node:cluster) waits for the app's node:cluster cell.
  const nginxFirst = cellsOf({ ...config, processes: [1], topologies: ['nginx', 'cluster'], scenarios: ['read'] })
  assert.deepEqual(stepsOf(nginxFirst, { paired: true }).map((step) => step.map(name)), [
    ['app 1 nginx read'], ['node 1 cluster read'], ['app 1 cluster read', 'app-untraced 1 cluster read']
  ])
  // Unpaired (--find-max, instances added or killed mid-run): the plan's order, one cell a step.
  assert.deepEqual(stepsOf(cells).map((step) => step.map(name)), cells.map((cell) => [name({ cell })]))
})

test('a real run: both servers up together, the repetitions alternating app, untraced, untraced, app; each cell\'s own figures', { timeout: 600_000 }, async (t) => {
  const out = temporaryDir(t)
  const run = await runCli(['bench', '--app', NEST_CATS, '--scenarios', 'cat-read', '--amount', '300', '--connections', '4',
    '--processes', '1', '--reps', '2', '--warmup', '20', '--baseline-targets', 'app-untraced', '--out', out], { timeout: 540_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /repetition 1\/2, interleaved: app \d+ req\/s, app-untraced \d+ req\/s/)
  const results = readResults(out)
  assert.equal(results.cells.length, 1)
  assert.equal(results.targetCells.length, 1)
  const [app] = results.cells
  const [untraced] = results.targetCells
  for (const cell of [app, untraced]) {
    assert.equal(cell.status, 'ok', cell.failure)
    assert.equal(cell.reps.length, 2)
    assert.equal(cell.requests, 600)
    assert.ok(cell.reps.every((rep) => Number.isInteger(rep.startedAtMs) && rep.requests === 300))
  }
  assert.notEqual(app.breakdown, null)
  assert.equal(untraced.breakdown, null)
  assert.equal(untraced.tracedAnyway, false)

  // The repetitions in the order they started: the app's first, the untraced app's two, the app's second; none
  // starts before the one before it ended.
  const order = [...app.reps.map((rep, i) => ({ rep, name: `app ${i + 1}` })), ...untraced.reps.map((rep, i) => ({ rep, name: `untraced ${i + 1}` }))]
    .sort((a, b) => a.rep.startedAtMs - b.rep.startedAtMs)
  assert.deepEqual(order.map(({ name }) => name), ['app 1', 'untraced 1', 'untraced 2', 'app 2'])
  for (let i = 1; i < order.length; i++) {
    const before = order[i - 1].rep
    assert.ok(order[i].rep.startedAtMs >= before.startedAtMs + before.durationSec * 1000 - 5, `${order[i].name} started while ${order[i - 1].name} ran`)
  }

  // Both servers up together: two processes on two ports, the untraced app's started before the app's first
  // repetition, and the app's still serving (the same process) after the untraced app's last.
  const [appInstance] = app.instances
  const [untracedInstance] = untraced.instances
  assert.notEqual(appInstance.address, untracedInstance.address)
  assert.notEqual(appInstance.pid, untracedInstance.pid)
  assert.equal(app.instances.length, 1)
  assert.ok(untracedInstance.startedAt < app.reps[0].startedAtMs, 'the untraced app started before the first measured repetition')
  assert.ok(appInstance.startedAt < untracedInstance.startedAt, 'the app started first: its answers are the run\'s')

  // Each cell's processes are its own server's and nodebench's, sampled over its own repetitions only.
  const pids = (cell) => cell.resources.processes.map((process) => process.pid)
  assert.ok(pids(app).includes(appInstance.pid) && !pids(app).includes(untracedInstance.pid), JSON.stringify(app.resources.processes))
  assert.ok(pids(untraced).includes(untracedInstance.pid) && !pids(untraced).includes(appInstance.pid), JSON.stringify(untraced.resources.processes))
  const measuredSec = (cell) => cell.reps.reduce((sum, rep) => sum + rep.durationSec, 0)
  for (const cell of [app, untraced]) {
    assert.ok(cell.resources.durationSec < measuredSec(cell) + 2.5, `${cell.target}: sampled ${cell.resources.durationSec} s over ${measuredSec(cell)} s of load`)
  }

  // The pairs' figures beside the untraced app's (baselines/pairs.js): each pair's added µs a request.
  assert.equal(untraced.paired.with, 'app')
  assert.equal(untraced.paired.pairs, 2)
  assert.equal(untraced.paired.addedUs.length, 2)
  // Two pairs: 1 in 2 both on one side, else 1 in 1.
  assert.ok([1 / 2, 1].includes(untraced.paired.chance), String(untraced.paired.chance))
  assert.equal(untraced.paired.exact, true)
  assert.equal(app.paired, undefined)

  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /cat read \(json\), 1 process: nodebench/)
  assert.match(markdown, /2 interleaved pairs/)
  assert.doesNotMatch(markdown, /One server's ran after the other's/)
})

test('an untraced app that does not start: its cell fails in one coded line, the app\'s is measured alone', { timeout: 300_000 }, async (t) => {
  const out = temporaryDir(t)
  const command = `test "$NODEBENCH" != off && exec node ${path.join(SHOP, 'server.js')} --port {port}`
  const run = await runCli(['bench', '--cmd', command, '--workload', path.join(SHOP, 'nodebench.workload.js'), '--scenarios', 'item-read',
    '--amount', '100', '--connections', '2', '--processes', '1', '--reps', '2', '--warmup', '20', '--baseline-targets', 'app-untraced', '--out', out])
  const results = readResults(out)
  const [app] = results.cells
  const [untraced] = results.targetCells
  assert.equal(untraced.status, 'failed', run.stderr)
  assert.equal(untraced.failureCode, 'NB_ERR_APP_START')
  assert.equal(app.status, 'ok', app.failure)
  assert.equal(app.reps.length, 2)
  assert.equal(app.requests, 200)
})
