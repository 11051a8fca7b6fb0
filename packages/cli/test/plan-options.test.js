'use strict'

// The load plan's options (lib/kernel/plan-options.js), read once for bench and compare: which scenarios and
// formats, each scenario's connections, requests or seconds and warm-up, its varied values; and the two
// commands reading the same options into the same plan.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { checkWorkload } = require('../lib/kernel/workload')
const { loadPlanOf, processCountsOf, PLAN_OPTIONS } = require('../lib/kernel/plan-options')
const { parseBenchArguments, OPTIONS: BENCH_OPTIONS } = require('../lib/commands/bench')
const { parseCompareArguments, OPTIONS: COMPARE_OPTIONS } = require('../lib/commands/compare')

const EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin')
const workload = checkWorkload({
  vary: { documents: { values: [10, 1000], quick: [10] } },
  scenarios: {
    read: { request: { path: '/read?n={documents}' }, connections: 8, amount: 900, quickAmount: 90, warmup: 5 },
    write: { request: { method: 'POST', path: '/write', body: { a: 1 } }, connections: 2, amount: 400 }
  }
}, { file: '/x/nodebench.workload.js', shown: 'nodebench.workload.js' })
const usage = (command, message) => (err) => err.code === 'NB_ERR_USAGE' && err.message.startsWith(`${command}: `) && message.test(err.message)

test('a plan takes each scenario\'s own load unless an option replaces it, and its varied values', () => {
  const plan = loadPlanOf({}, workload, { command: 'bench', warmup: 200 })
  assert.deepEqual(plan.scenarios, ['read', 'write'])
  assert.deepEqual(plan.connections, { read: 8, write: 2 })
  assert.deepEqual(plan.amounts, { read: 900, write: 400 })
  // read's own warm-up; write has none, so the run's.
  assert.deepEqual(plan.warmups, { read: 5, write: 200 })
  assert.equal(plan.duration, null)
  assert.deepEqual(plan.sweep.byScenario.read, [{ documents: 10 }, { documents: 1000 }])
  assert.ok(Object.isFrozen(plan.sweep))

  const quick = loadPlanOf({ scenarios: 'read' }, workload, { command: 'bench', quick: true, warmup: 50 })
  assert.deepEqual(quick.amounts, { read: 90 })
  assert.deepEqual(quick.sweep.byScenario.read, [{ documents: 10 }])

  const given = loadPlanOf({ connections: '3', duration: '7', warmup: '11', vary: ['documents=20'] }, workload, { command: 'compare', warmup: 200 })
  assert.deepEqual(given.connections, { read: 3, write: 3 })
  assert.deepEqual(given.amounts, { read: null, write: null })
  assert.deepEqual(given.warmups, { read: 11, write: 11 })
  assert.deepEqual(given.sweep.names, { documents: [20] })

  // compare under callgrind: one connection, no scenario's own warm-up; bench --find-max: seconds by default.
  const fixed = loadPlanOf({}, workload, { command: 'compare', warmup: 2000, ownWarmup: false, connections: 1 })
  assert.deepEqual(fixed.connections, { read: 1, write: 1 })
  assert.deepEqual(fixed.warmups, { read: 2000, write: 2000 })
  assert.deepEqual(loadPlanOf({}, workload, { command: 'bench', warmup: 200, duration: 5 }).amounts, { read: null, write: null })
})

test('a plan\'s options are refused alike, each error named by its command', () => {
  for (const command of ['bench', 'compare']) {
    assert.throws(() => loadPlanOf({ amount: '10', duration: '5' }, workload, { command, warmup: 0 }), usage(command, /--amount and --duration exclude each other/))
    assert.throws(() => loadPlanOf({ scenarios: 'nope' }, workload, { command, warmup: 0 }), usage(command, /unknown scenario 'nope'/))
    assert.throws(() => loadPlanOf({ connections: '0' }, workload, { command, warmup: 0 }), usage(command, /--connections must be a whole number from 1/))
    assert.throws(() => processCountsOf({ processes: '1,x' }, command), usage(command, /--processes must be a whole number/))
  }
  assert.deepEqual(processCountsOf({ processes: '4,1,4,2' }, 'bench'), [1, 2, 4])
  assert.equal(processCountsOf({}, 'bench'), null)
})

test('bench and compare take the plan\'s options by the same names and read them into the same plan', () => {
  for (const [name, spec] of Object.entries(PLAN_OPTIONS)) {
    assert.deepEqual(BENCH_OPTIONS[name], spec, `bench --${name}`)
    assert.deepEqual(COMPARE_OPTIONS[name], spec, `compare --${name}`)
  }
  const options = ['--scenarios', 'doc-read,write', '--formats', 'json', '--connections', '4', '--amount', '30', '--warmup', '9', '--processes', '2,1']
  const bench = parseBenchArguments(['--app', EXAMPLE, ...options]).config
  const compare = parseCompareArguments(['--app-a', EXAMPLE, '--app-b', EXAMPLE, ...options]).config
  for (const key of ['scenarios', 'formats', 'processes', 'connections', 'amounts', 'duration', 'warmup', 'warmups', 'sweep']) {
    assert.deepEqual(compare[key], bench[key], key)
  }
  assert.deepEqual(bench.amounts, { 'doc-read': 30, write: 30 })
})
