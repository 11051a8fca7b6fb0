'use strict'

// nodebench-test: once. What bench and flame make of an app's own workload (scenario names, hooks, a failing probe, the app's notices, the run's files); the shop app's middleware runs on every line in compare-segments.test.js and middleware/test, flame's agent in flame.test.js: the Node.js version does not change what this tests.
// `nodebench bench` and `nodebench flame` measuring a small app of their own (test/fixtures/shop) with its
// workload, unrelated to the study's: the workload's scenarios and hooks, an app whose spans find no collector,
// a path that does not answer as the workload expects, and how flame names the app. Loading workload files is
// workload.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { freeLoopbackPort } = require('@nodebench/services')
const { temporaryDir, runCli } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')

test('bench measures an app of its own with its workload: scenarios named as the workload names them, hooks run', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const hooks = path.join(dir, 'hooks.txt')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(SHOP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', path.join(SHOP, 'nodebench.workload.js'), '--reps', '1', '--warmup', '20', '--out', out],
  { env: { ...process.env, NODEBENCH_TEST_HOOKS: hooks } })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /\[1\/2\] item read \(json\), 1 process/)
  assert.match(run.stderr, /2 of 2 cells measured/)
  assert.match(run.stdout, /^ {2}item read \(json\)\s+renderItem\s+\d+\.\d\d%\s+same function$/m)
  assert.equal(fs.readFileSync(hooks, 'utf8'), 'setup\nteardown item-create\n')

  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.workload.name, 'shop')
  assert.deepEqual(results.workload.scenarios['item-read'].label, 'item read')
  const [read, create] = results.cells
  assert.deepEqual([read.scenario, read.status, read.requests, read.unexpectedStatus], ['item-read', 'ok', 300, 0])
  assert.deepEqual(read.operation, { method: 'GET', route: '/items/:id', format: 'json' })
  const operation = read.breakdown.operations.find((o) => o.route === '/items/:id')
  assert.equal(operation.count, 300)
  // The param handler's segment is named for its parameter, as in every breakdown.
  assert.deepEqual(operation.segments.map((s) => s.name), ['jsonParser', 'loadItem (:id)', 'renderItem'])
  assert.deepEqual([create.scenario, create.status, create.expectedStatus, create.statusCodes], ['item-create', 'ok', 201, { 201: 100 }])
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /item create \(json\)/)
  assert.doesNotMatch(markdown, /The study found/)
})

test('an app whose spans find no collector: bench says so once, as the app does, and counts each cell\'s dropped spans', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const out = path.join(dir, 'run')
  const port = await freeLoopbackPort() // nothing listens on it
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(SHOP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', path.join(SHOP, 'nodebench.workload.js'), '--reps', '1', '--warmup', '20', '--out', out],
  { env: { ...process.env, SHOP_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '100' } })
  assert.equal(run.code, 0, run.stderr)
  const notices = run.stderr.split('\n').filter((line) => line.includes('the app says'))
  assert.deepEqual(notices, [`nodebench bench: the app says: no OTLP collector answered at http://127.0.0.1:${port}/v1/traces (ECONNREFUSED), ` +
    "so spans are dropped (counted in the breakdown's dropped.spans) and not built until one answers (tried again every 0.1 s). " +
    'Start one: npx nodebench services start jaeger; or keep the breakdown ' +
    "alone: nodebenchTrace({ exporter: 'none' })"], 'once per run, though each cell\'s app said it')
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  const printed = [...run.stdout.matchAll(/^nodebench: (\d+) spans dropped/gm)].map((match) => Number(match[1]))
  // Spans are counted as dropped once the exporter gave up on them (its retries take seconds): a cell prints its own
  // count when it has one, as results.json has it.
  assert.deepEqual(printed, results.cells.map((cell) => cell.breakdown.dropped.spans).filter((spans) => spans > 0))
})

test('a path that does not answer as the workload expects fails its cell, naming the scenario and the field', { timeout: 120_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const workload = path.join(dir, 'nodebench.workload.json')
  fs.writeFileSync(workload, JSON.stringify({ formats: ['json'], scenarios: { 'item-read': { amount: 10, request: { path: ['/items/1', '/items/99'] } } } }))
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(SHOP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', workload, '--reps', '1', '--warmup', '0', '--out', path.join(dir, 'run')])
  assert.equal(run.code, 1)
  assert.match(run.stderr, /^nodebench: 1 cell failed \(marked in the report\): scenario 'item-read' \(json\): probe request 2 \(GET \/items\/99\) answered 404, expected 200 \(request\.status\): "\{\\"error\\":\\"no item 99\\"\}"$/m)

  const bad = await runCli(['bench', '--url', 'http://127.0.0.1:9', '--workload', path.join(dir, 'missing.workload.js')])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^nodebench: workload .*missing\.workload\.js: no such file; expected a nodebench\.workload\.js or \.json\n$/)
})

test('flame profiles a scenario of an app of its own with its workload', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const out = path.join(dir, 'flame')
  const run = await runCli(['flame', '--cmd', `node ${path.join(SHOP, 'server.js')} --port 0`, '--workload', path.join(SHOP, 'nodebench.workload.js'),
    '--scenario', 'item-read', '--warmup', '1', '--duration', '1', '--connections', '2', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /item-read \(json\) at http:\/\/127\.0\.0\.1:\d+: 1 s of warm-up, then 1 s each unprofiled, under V8's sampling profiler/)
  // The app's own segments, CPU beside time: its breakdown is read at the window's edges.
  assert.match(run.stdout, /^\d+\s+renderItem\s+handler\s+[\d.]+%\s+[\d.]+%/m)
  // The files line and the table count the same requests: the profiled window's.
  const [, windowRequests, wholeLoad] = /json: .*item-read-json\.html \(\d+ samples, (\d+) requests in the profiled window, (\d+) in the whole load; nodebench itself \d+\.\d%\)/.exec(run.stderr) ?? []
  assert.ok(windowRequests, run.stderr)
  assert.match(run.stdout, new RegExp(`^GET /items/:id \\[json\\], ${Number(windowRequests).toLocaleString('en-US')} requests in the profiled window\\. `, 'm'))
  assert.ok(Number(wholeLoad) > Number(windowRequests), 'the load ran past both edges of the window')
  assert.ok(fs.statSync(path.join(out, 'item-read-json.html')).size > 10_000)
})

test('flame names the app as bench does (--cmd with {port}, --url), and shows paths outside the current folder whole', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const out = path.join(dir, 'flame')
  const run = await runCli(['flame', '--cmd', `"${process.execPath}" server.js --port {port}`, '--url', 'http://127.0.0.1',
    '--scenario', 'item-read', '--warmup', '1', '--duration', '1', '--connections', '2', '--out', out], { cwd: SHOP })
  assert.equal(run.code, 0, run.stderr)
  const [, port] = /item-read \(json\) at http:\/\/127\.0\.0\.1:(\d+): 1 s of warm-up/.exec(run.stderr) ?? []
  assert.ok(Number(port) > 0, run.stderr)
  assert.match(run.stdout, /^\d+\s+renderItem\s+handler\s+[\d.]+%\s+[\d.]+%/m)
  // The flamegraphs are outside the current folder (the app's): their paths are printed absolute.
  assert.ok(run.stderr.includes(`nodebench flame: json: ${path.join(out, 'item-read-json.html')} (`), run.stderr)
  assert.ok(run.stderr.includes(`nodebench flame: ${path.join(out, 'item-read-comparison.md')} (and item-read-comparison.json)`), run.stderr)
})
