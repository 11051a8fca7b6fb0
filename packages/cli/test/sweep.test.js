'use strict'

// Sweeps (lib/kernel/sweep.js): a workload's `vary`, what a bad one is told, --vary, the cells a sweep makes, the
// values filled into requests and start commands, and the report's sweep section from a run's results.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { checkWorkload, requestsOf } = require('../lib/kernel/workload')
const { parseVaryOption, sweepOf, fillValues } = require('../lib/kernel/sweep')
const { benchConfig } = require('../lib/bench/config')
const { cellsOf } = require('../lib/kernel/plan')
const { renderMarkdown } = require('../lib/bench/report')
const { temporaryDir, runCli } = require('../../../test/support')

const check = (source) => checkWorkload(source, { file: '/x/nodebench.workload.js', shown: 'nodebench.workload.js' })
const coded = (message) => (err) => err.code === 'NB_ERR_WORKLOAD' && message.test(err.message) && !err.message.includes('\n')
const READ = { request: { path: '/read?n={documents}' } }

test('a workload varies values: each scenario gets the workload\'s names with its own in their place, quick lists apart', () => {
  const workload = check({
    vary: { documents: { values: [1000, 300000], quick: [1000] }, backends: [4, 8] },
    start: { args: ['--backends', '{backends}'] },
    scenarios: { split: READ, whole: { ...READ, vary: { backends: [0], processes: [5] } } }
  })
  assert.deepEqual(workload.scenarios.split.vary, { documents: { values: [1000, 300000], quick: [1000] }, backends: { values: [4, 8], quick: [4, 8] } })
  assert.deepEqual(Object.keys(workload.scenarios.whole.vary), ['documents', 'backends', 'processes'])
  assert.deepEqual(workload.start, { args: ['--backends', '{backends}'], env: {} })

  const full = sweepOf(workload, ['split', 'whole'])
  assert.deepEqual(full.byScenario.split, [
    { documents: 1000, backends: 4 }, { documents: 1000, backends: 8 }, { documents: 300000, backends: 4 }, { documents: 300000, backends: 8 }
  ])
  assert.deepEqual(full.names, { documents: [1000, 300000], backends: [4, 8, 0], processes: [5] })
  assert.deepEqual(sweepOf(workload, ['split'], { quick: true }).byScenario.split, [{ documents: 1000, backends: 4 }, { documents: 1000, backends: 8 }])
  // --vary replaces a name's list where it takes several values; a scenario's single value stays (whole's 0 back-ends).
  const restricted = sweepOf(workload, ['split', 'whole'], { overrides: parseVaryOption(['documents=50', 'backends=2,3']) })
  assert.deepEqual(restricted.byScenario.split, [{ documents: 50, backends: 2 }, { documents: 50, backends: 3 }])
  assert.deepEqual(restricted.byScenario.whole, [{ documents: 50, backends: 0, processes: 5 }])

  assert.deepEqual(requestsOf(workload.scenarios.split, 'default', { documents: 1000 }).requests[0].path, '/read?n=1000')
  assert.equal(fillValues('node server.js --port {port} --backends {backends} {a,b}', { backends: 4 }), 'node server.js --port {port} --backends 4 {a,b}')
})

test('a bad vary is one coded line naming the field', () => {
  for (const [source, message] of [
    [{ vary: [1000], scenarios: { read: READ } }, /^workload nodebench\.workload\.js: vary must be an object of value names to lists, e\.g\. \{ documents: \[1000, 10000\] \}; received \[1000\]$/],
    [{ vary: {}, scenarios: { read: READ } }, /vary must be an object of value names to lists/],
    [{ vary: { documents: [] }, scenarios: { read: READ } }, /vary\.documents must be a non-empty list of distinct numbers or strings, or \{ values, quick \} of two such lists; received \[\]/],
    [{ vary: { documents: 1000 }, scenarios: { read: READ } }, /vary\.documents must be a non-empty list .*; received 1000$/],
    [{ vary: { documents: [1, 1] }, scenarios: { read: READ } }, /vary\.documents must be a non-empty list of distinct/],
    [{ vary: { documents: { values: [1], slow: [2] } }, scenarios: { read: READ } }, /vary\.documents must be a non-empty list/],
    [{ vary: { 'two words': [1] }, scenarios: { read: READ } }, /vary: 'two words' is not a value name/],
    [{ vary: { processes: [0, 2] }, scenarios: { read: READ } }, /vary\.processes is the cell's processes: whole numbers from 1 to 64; received 0/],
    [{ scenarios: { read: { ...READ, vary: { connections: ['many'] } } } }, /scenario 'read': vary\.connections is the cell's connections: whole numbers from 1 to 10000; received "many"/],
    [{ start: { args: ['--backends', '{backends}'] }, scenarios: { read: READ } }, /start uses \{backends\}, which scenario 'read' does not vary/],
    [{ start: { args: '--backends' }, scenarios: { read: READ } }, /start\.args must be a list of strings; received "--backends"/],
    [{ start: { cmd: 'x' }, scenarios: { read: READ } }, /start: unknown key 'cmd'; expected one of args, env/],
    [{ scenarios: { read: { ...READ, warmup: -1 } } }, /scenario 'read': warmup must be a whole number from 0 to 1000000; received -1/]
  ]) {
    assert.throws(() => check(source), coded(message), JSON.stringify(source))
  }
  const workload = check({ vary: { documents: [1, 2] }, scenarios: { read: READ } })
  for (const [given, message] of [
    ['documents', /^--vary 'documents': expected name=value,value \(e\.g\. --vary documents=1000,10000\)$/],
    ['documents=', /^--vary documents= is empty; expected a comma-separated list of values$/],
    ['documents=1,1', /^--vary documents: the values must be distinct; received 1,1$/],
    ['processes=0', /^--vary\.processes is the cell's processes/]
  ]) assert.throws(() => parseVaryOption([given]), coded(message), given)
  assert.throws(() => parseVaryOption(['documents=1', 'documents=2']), coded(/--vary documents is given twice/))
  assert.throws(() => sweepOf(workload, ['read'], { overrides: { size: [1] } }),
    coded(/^--vary size: no scenario of this run varies it; the run varies documents$/))
  assert.throws(() => sweepOf(workload, ['read'], { overrides: parseVaryOption(['documents=1000,abc']) }),
    coded(/^--vary documents: the workload varies documents over numbers \(1, 2\); received 'abc'$/))
  const named = check({ vary: { mode: ['whole', 'split'] }, scenarios: { read: READ } })
  assert.deepEqual(sweepOf(named, ['read'], { overrides: parseVaryOption(['mode=split']) }).names, { mode: ['split'] })
})

test('bench: a cell per combination, its values in its record, a scenario\'s own processes run once; --vary errors exit 2', async (t) => {
  const dir = temporaryDir(t)
  const file = path.join(dir, 'nodebench.workload.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({
    vary: { size: [1, 2] },
    scenarios: { read: { request: { path: '/r/{size}' } }, fixed: { request: { path: '/f/{size}' }, vary: { processes: [3], connections: [2] } } }
  })}\n`)
  const config = benchConfig({ cmd: 'node app.js --port {port} --processes {processes}', workload: file, processes: '1,2' })
  const cells = cellsOf(config)
  assert.deepEqual(cells.map((c) => [c.scenario, c.processes, c.values]), [
    ['read', 1, { size: 1 }], ['read', 1, { size: 2 }], ['fixed', 3, { size: 1, processes: 3, connections: 2 }],
    ['fixed', 3, { size: 2, processes: 3, connections: 2 }], ['read', 2, { size: 1 }], ['read', 2, { size: 2 }]
  ])
  assert.deepEqual(benchConfig({ cmd: 'node app.js --port {port}', workload: file, vary: ['size=7'] }).sweep.byScenario.read, [{ size: 7 }])
  const bad = await runCli(['bench', '--cmd', 'node app.js --port {port}', '--workload', file, '--vary', 'colour=red'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^nodebench: --vary colour: no scenario of this run varies it; the run varies size\n$/)
})

test('the report draws a sweep against its first varied value, sets the study beside it, and says what the cores cannot show', () => {
  const cell = (scenario, values, ms) => ({
    scenario,
    format: 'json',
    processes: values.processes ?? 1,
    topology: 'cluster',
    values,
    status: 'ok',
    requestsPerSec: { mean: 1000 / ms },
    latencyMs: { mean: ms, p50: ms, p99: ms, max: ms },
    requests: 4,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: { 200: 4 },
    operation: { method: 'GET', route: null, format: null },
    breakdown: null,
    reps: [],
    resources: { intervalMs: 1000, samples: 2, durationSec: 2, roles: [], processes: [{ pid: 1, role: 'app', name: 'app', cpuPercent: { mean: 3, max: 5 }, rssBytes: { mean: 1, max: 1 } }] }
  })
  const results = {
    schema: 1,
    machine: { cores: 2, node: 'v20' },
    config: { scenarios: ['whole', 'split'], formats: ['json'], processes: [1], vary: { whole: { documents: [10, 20], processes: [5] }, split: { documents: [10, 20], backends: [4, 8] } } },
    workload: {
      formats: ['json'],
      scenarios: { whole: { label: 'whole read' }, split: { label: 'split read' } },
      reference: {
        source: 'the study',
        sweeps: [
          { figure: 'Fig. 4', claim: 'split against whole', of: { scenario: 'split', values: { backends: 4 } }, against: { scenario: 'whole' }, over: 'documents', measure: 'ratio', study: { at: { 20: 0.74 } } },
          { figure: 'Fig. 5', claim: 'eight against four', of: { scenario: 'split', values: { backends: 8 } }, against: { scenario: 'split', values: { backends: 4 } }, over: 'documents', measure: 'gain', study: { upTo: 1 }, cores: 9 }
        ],
        resources: [{ figure: 'Table I', claim: 'uneven load', scenario: 'whole' }]
      }
    },
    cells: [
      cell('whole', { processes: 5, documents: 10 }, 10), cell('whole', { processes: 5, documents: 20 }, 20),
      cell('split', { documents: 10, backends: 4 }, 8), cell('split', { documents: 10, backends: 8 }, 16),
      cell('split', { documents: 20, backends: 4 }, 15), cell('split', { documents: 20, backends: 8 }, 10)
    ],
    targetCells: []
  }
  const markdown = renderMarkdown(results)
  assert.match(markdown, /## Sweeps: response time against the varied values/)
  assert.match(markdown, /\| series \| documents 10 \| documents 20 \|/)
  assert.match(markdown, /\| split read, backends 4 \| 8\.00 \| 15\.0 \|/)
  assert.match(markdown, /\| Fig\. 4 \| split against whole \| documents 20 \| 15\.0 \/ 20\.0 \| 75% \(0\.75×\) \| 74% \(0\.74×\) \|/)
  assert.match(markdown, /\| Fig\. 5 \| eight against four \| largest \| - \| \+50% \| up to \+100% \|/)
  assert.match(markdown, /This machine has 2 cores/)
  assert.match(markdown, /What it can show: Fig\. 4 \(split against whole\); Table I \(uneven load; CPU and memory by process\)\./)
  assert.match(markdown, /What needs more cores than it has, and is shown here without being claimed: Fig\. 5 \(eight against four\), which needs 9 cores/)
  assert.match(markdown, /### split read \(json\), documents 10, backends 4, 1 process/, 'a cell\'s title says its values')
  assert.doesNotMatch(markdown, /Configured but not in the results/)
})
