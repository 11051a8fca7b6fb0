'use strict'

// nodebench-test: once. compare's plan, notices, git worktrees and bench --baseline: the Node.js version does not change what this tests (compare-segments.test.js runs on every line).
// nodebench compare's paired runs on the shop app (test/fixtures/shop): what the apps say, said once; a sweep's
// cells on both sides; two git revisions (worktrees, removed afterwards) with a wait put into renderItem, found
// there; and bench --baseline against a run just made. A slowdown found in its segment and no other, timed and
// under callgrind, is compare-segments.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { freeLoopbackPort } = require('@nodebench/services')
const { temporaryDir, runCli } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')
const SERVER = path.join(SHOP, 'server.js')
const WORKLOAD = path.join(SHOP, 'nodebench.workload.js')
const node = JSON.stringify(process.execPath)
const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))
const regressionsOf = (stderr) => stderr.split('\n').filter((line) => line.startsWith('nodebench: regression: '))

test('paired: what the apps\' nodebench says (no collector for their spans) is said once per run, not per side or cell', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-notice-')
  const port = await freeLoopbackPort() // nothing listens on it
  const run = await runCli(['compare', '--cmd-a', `${node} ${SERVER} --port {port}`, '--cmd-b', `${node} ${SERVER} --port {port}`,
    '--workload', WORKLOAD, '--reps', '2', '--amount', '50', '--warmup', '20', '--out', path.join(dir, 'out')],
  { env: { ...process.env, SHOP_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '100' } })
  assert.equal(run.code, 0, run.stderr)
  const notices = run.stderr.split('\n').filter((line) => line.includes('the app says'))
  assert.deepEqual(notices, [`nodebench compare: the app says: no OTLP collector answered at http://127.0.0.1:${port}/v1/traces (ECONNREFUSED), ` +
    "so spans are dropped (counted in the breakdown's dropped.spans) and not built until one answers (tried again every 0.1 s). " +
    'Start one: npx nodebench services start jaeger; or keep the breakdown ' +
    "alone: nodebenchTrace({ exporter: 'none' })"], 'once, though both sides\' apps said it in both cells')
})

test('paired: a workload\'s sweep runs a cell per value on both sides, the value in the request\'s path and the app\'s start arguments', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-sweep-')
  // `wait` is both the item read and loadItem's wait in ms (server.js --delay loadItem:<wait>, from start.args).
  const workload = path.join(dir, 'nodebench.workload.js')
  fs.writeFileSync(workload, `module.exports = {
    name: 'shop-sweep',
    formats: ['json'],
    start: { args: ['--delay', 'loadItem:{wait}'] },
    scenarios: { 'item-read': { label: 'item read', connections: 2, amount: 40, vary: { wait: [1, 3] }, request: { path: '/items/{wait}' } } }
  }\n`)
  const out = path.join(dir, 'out')
  const run = await runCli(['compare', '--app-a', SHOP, '--app-b', SHOP, '--workload', workload, '--reps', '2', '--warmup', '10', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  const comparison = read(path.join(out, 'compare.json'))
  assert.deepEqual(comparison.cells.map((cell) => cell.label), ['item read (json), 1 process, wait 1', 'item read (json), 1 process, wait 3'])
  const a = read(path.join(out, 'a', 'results.json'))
  assert.deepEqual(a.config.vary, { 'item-read': { wait: [1, 3] } })
  assert.deepEqual(a.cells.map((cell) => [cell.values, cell.status, cell.requests]), [[{ wait: 1 }, 'ok', 80], [{ wait: 3 }, 'ok', 80]])
  const loadItemMs = (cell) => cell.breakdown.operations[0].segments.find((s) => s.name.startsWith('loadItem')).meanMs
  assert.ok(loadItemMs(a.cells[1]) >= 2.5 && loadItemMs(a.cells[1]) > loadItemMs(a.cells[0]), `loadItem: ${loadItemMs(a.cells[0])} ms at wait 1, ${loadItemMs(a.cells[1])} at wait 3`)
})

test('paired, two git revisions: each checked out in a worktree, compared, and the worktrees removed', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-rev-')
  const repo = path.join(dir, 'repo')
  fs.mkdirSync(repo)
  const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'n', GIT_AUTHOR_EMAIL: 'n@example.invalid', GIT_COMMITTER_NAME: 'n', GIT_COMMITTER_EMAIL: 'n@example.invalid' } })
  git('init', '-q')
  // The app of each revision: the shop, with a wait in renderItem from the second revision on.
  const app = (extra) => `'use strict'\nprocess.argv.push(${extra.map((word) => JSON.stringify(word)).join(', ')})\nrequire(${JSON.stringify(SERVER)})\n`
  fs.writeFileSync(path.join(repo, 'app.js'), app([]))
  git('add', 'app.js')
  git('commit', '-qm', 'base')
  fs.writeFileSync(path.join(repo, 'app.js'), app(['--delay', 'renderItem:2']))
  git('commit', '-qam', 'change')
  const out = path.join(dir, 'out')
  const run = await runCli(['compare', '--rev-a', 'HEAD~1', '--rev-b', 'HEAD', '--cmd', `${node} app.js --port {port}`, '--workload', WORKLOAD,
    '--scenarios', 'item-read', '--reps', '5', '--amount', '150', '--warmup', '50', '--fail-on', '25', '--out', out], { cwd: repo })
  assert.equal(run.code, 1, run.stderr)
  assert.match(run.stderr, /^nodebench compare: checking out HEAD~1 \([0-9a-f]{12}\) into /m)
  const regressions = regressionsOf(run.stderr)
  assert.ok(regressions.length >= 1, run.stderr)
  for (const line of regressions) assert.match(line, /renderItem \(handler\) mean time|requests\/s/)
  assert.ok(regressions.some((line) => /renderItem \(handler\) mean time/.test(line)), run.stderr)
  const comparison = read(path.join(out, 'compare.json'))
  assert.match(comparison.sides.a.source, /^HEAD~1 \([0-9a-f]{12}\)/)
  assert.equal(git('worktree', 'list').trim().split('\n').length, 1, 'the worktrees are gone')
  const unknown = await runCli(['compare', '--rev-a', 'nosuchrev', '--rev-b', 'HEAD', '--cmd', `${node} app.js --port {port}`, '--workload', WORKLOAD], { cwd: repo })
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /^nodebench: compare: --rev-a 'nosuchrev' is no revision of the checkout at .* \(usage: nodebench --help\)$/m)
})

test('bench --baseline: the new run compared with a stored one, beside its report; a baseline that cannot be compared exits 2 first', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-baseline-')
  const bench = (out, extra = []) => runCli(['bench', '--cmd', `${node} ${SERVER} --port {port}`, '--workload', WORKLOAD, '--scenarios', 'item-read',
    '--reps', '4', '--amount', '150', '--warmup', '50', '--out', out, ...extra])
  const base = await bench(path.join(dir, 'base'))
  assert.equal(base.code, 0, base.stderr)
  const next = await bench(path.join(dir, 'next'), ['--baseline', path.join(dir, 'base'), '--fail-on', '60'])
  assert.equal(next.code, 0, next.stderr)
  assert.match(next.stdout, /^against the baseline .*base[/\\]results\.json:\nthis run against baseline: /m)
  assert.match(next.stderr, /^nodebench bench: comparison .*next[/\\]compare\.html \(and compare\.md, compare\.json\)$/m)
  const comparison = read(path.join(dir, 'next', 'compare.json'))
  assert.deepEqual([comparison.cells.length, comparison.cells[0].reps], [1, { a: 4, b: 4 }])

  const other = await bench(path.join(dir, 'other'), ['--baseline', path.join(dir, 'nothing-here')])
  assert.equal(other.code, 2)
  assert.match(other.stderr, /^nodebench: .*nothing-here: no such file or folder; expected a bench run's results\.json or its folder$/m)
  assert.equal(fs.existsSync(path.join(dir, 'other')), false, 'no run made')
  const processes = await bench(path.join(dir, 'other'), ['--baseline', path.join(dir, 'base'), '--processes', '2'])
  assert.equal(processes.code, 2)
  assert.match(processes.stderr, /measured no cell this run will/)
  const load = await bench(path.join(dir, 'other'), ['--baseline', path.join(dir, 'base'), '--connections', '9'])
  assert.equal(load.code, 2)
  assert.match(load.stderr, /sent item-read \(json\) 4 connections, 150 requests per repetition, this run would send 9 connections, 150 requests: compare needs the same load/)
  const failOn = await bench(path.join(dir, 'other'), ['--fail-on', '5'])
  assert.equal(failOn.code, 2)
  assert.match(failOn.stderr, /--fail-on goes with --baseline/)
})
