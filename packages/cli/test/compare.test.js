'use strict'

// nodebench-test: once. compare on runs already measured (statistics and the report): the Node.js version does not change what this tests.
// `nodebench compare <a> <b>` on runs already measured: real repetitions of the shop app (an A/A paired run,
// test/fixtures/compare-aa, recorded by benchmarks/compare-false-positives.js), as they are and with a change
// made in one segment; the study's schema-1 results; the false-positive rate of A/A comparisons; and every way
// the input can be wrong (one line, exit 2, nothing written).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { parseCompareArguments } = require('../lib/commands/compare')
const { falsePositiveRates } = require('../benchmarks/compare-false-positives')
const { compareRuns } = require('../lib/compare/compare-runs')
const { checkReportInBrowser } = require('./page-check')
const { temporaryDir, runCli } = require('../../../test/support')

const AA = path.join(__dirname, 'fixtures', 'compare-aa')
const QUICK = path.join(__dirname, 'fixtures', 'results-quick.json')
const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))
const usage = (message) => (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message)

/** Writes `results` as <dir>/<name>/results.json; returns the folder. */
function writeRun (dir, name, results) {
  fs.mkdirSync(path.join(dir, name), { recursive: true })
  fs.writeFileSync(path.join(dir, name, 'results.json'), JSON.stringify(results))
  return path.join(dir, name)
}

/** `results` with `change(rep, cell)` applied to every repetition of every cell (a copy). */
function changed (results, change) {
  const copy = structuredClone(results)
  for (const cell of copy.cells) for (const rep of cell.reps) change(rep, cell)
  return copy
}

/** The first ten repetitions of each cell of a side of the A/A run: what `compare --reps 10` keeps. */
function aaSide (side) {
  const results = read(path.join(AA, side, 'results.json'))
  for (const cell of results.cells) cell.reps = cell.reps.slice(0, 10)
  return results
}

test('options: two runs, or a paired run named one way, and what does not go with what', () => {
  const { config } = parseCompareArguments(['a', 'b', '--fail-on', '5'], { now: new Date('2026-11-25T10:00:00Z') })
  assert.deepEqual([config.mode, config.runs, config.failOn], ['runs', ['a', 'b'], 5])
  assert.equal(config.outDir, path.resolve('runs', 'compare-2026-11-25T10-00-00-000Z'))
  assert.deepEqual(parseCompareArguments(['--help']), { command: 'help' })
  const shop = path.join(__dirname, 'fixtures', 'shop')
  const paired = parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}',
    '--workload', path.join(shop, 'nodebench.workload.js')]).config
  assert.deepEqual([paired.mode, paired.measure, paired.reps, paired.processes, paired.scenarios], ['paired', 'time', 10, [1], ['item-read', 'item-create']])
  const instructions = parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}',
    '--workload', path.join(shop, 'nodebench.workload.js'), '--measure', 'instructions']).config
  assert.deepEqual([instructions.reps, instructions.warmup, instructions.window, instructions.connections['item-read'], instructions.amounts['item-read']], [6, 2000, 200, 1, 200])

  // --url as bench takes it with a command: the scheme and host, each side at its own {port}.
  const workload = path.join(shop, 'nodebench.workload.js')
  const withUrl = parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}', '--url', 'http://localhost:3000',
    '--workload', workload]).config
  assert.deepEqual(withUrl.sides.map((side) => side.target.url), ['http://localhost:3000', 'http://localhost:3000'])
  assert.throws(() => parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}', '--url', 'http://localhost',
    '--workload', workload, '--measure', 'instructions']), usage(/--measure instructions runs each app under callgrind at http:\/\/127\.0\.0\.1:\{port\}: leave out --url$/))
  assert.throws(() => parseCompareArguments(['--app-a', shop, '--app-b', path.join(shop, 'no-such-dir'), '--workload', workload]),
    usage(/^compare: --app-b .*no-such-dir: no such folder; expected the folder of an app with a server\.js/))
  assert.throws(() => parseCompareArguments(['--app-a', shop, '--app-b', shop, '--url', 'http://localhost', '--workload', workload]),
    usage(/^compare: --app-a\/-b start each app on 127\.0\.0\.1: leave out --url$/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'x {port}', '--cmd-b', 'y {port}', '--cmd', 'z {port}']), usage(/--cmd-a\/-b name both apps: leave out --app and --cmd$/))
  assert.throws(() => parseCompareArguments(['--rev-a', 'HEAD', '--rev-b', 'HEAD', '--url', 'http://localhost:3000', '--workload', workload]),
    usage(/--rev-a\/-b start each revision: give --app or --cmd \(with --url for the scheme and host it answers on\), not --url alone$/))

  assert.throws(() => parseCompareArguments(['a']), usage(/^compare: expected two runs to compare .*received 'a'$/))
  assert.throws(() => parseCompareArguments([]), usage(/received none$/))
  assert.throws(() => parseCompareArguments(['a', 'b', '--fail-of', '5']), usage(/^compare: unknown option '--fail-of'; did you mean '--fail-on'\?$/))
  assert.throws(() => parseCompareArguments(['a', 'b', '--fail-on', 'x']), usage(/--fail-on must be a percentage from 0 to 1000 \(e\.g\. 5\); received 'x'/))
  assert.throws(() => parseCompareArguments(['a', 'b', '--reps', '5']), usage(/--reps is for a paired run/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'node a.js --port {port}']), usage(/--cmd-a and --cmd-b go together; --cmd-b is missing/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'node a.js', '--cmd-b', 'node b.js --port {port}']), usage(/--cmd-a needs a \{port\} placeholder/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'x {port}', '--app-b', 'y']), usage(/--cmd-a\/-b and --app-a\/-b exclude each other/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}', '--workload', path.join(shop, 'nodebench.workload.js'),
    '--measure', 'instructions', '--processes', '2']), usage(/--measure instructions counts one process/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'node a.js --port {port}', '--cmd-b', 'node b.js --port {port}', '--measure', 'cycles']), usage(/--measure must be time or instructions; received 'cycles'/))
  assert.throws(() => parseCompareArguments(['--cmd-a', 'sh -c "node a.js" {port}', '--cmd-b', 'node b.js --port {port}', '--workload', path.join(shop, 'nodebench.workload.js'),
    '--measure', 'instructions']), usage(/--cmd must be a Node\.js script/))
})

test('A/A: the same app compared with itself, no figure fails --fail-on 5, and the files are written whole', { timeout: 120_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-')
  const a = writeRun(dir, 'a', aaSide('a'))
  const b = writeRun(dir, 'b', aaSide('b'))
  const out = path.join(dir, 'out')
  const run = await runCli(['compare', a, path.join(b, 'results.json'), '--fail-on', '5', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^b against a: .* among \d+ figures of 2 cells$/m)
  assert.match(run.stdout, /^ {2}item read \(json\), 1 process: requests\/s [-+][\d.]+% \(95% CI [-+][\d.]+% to [-+][\d.]+%, p [\d.]+\): (no significant change|faster|slower)/m)
  assert.match(run.stdout, /Mann-Whitney U test \(two-sided, exact, alpha 0\.05\) over the repetitions/)
  assert.match(run.stderr, /^nodebench compare: comparison .*compare\.html \(and compare\.md, compare\.json\)$/m)
  const comparison = read(path.join(out, 'compare.json'))
  assert.equal(comparison.schema, 1)
  assert.deepEqual([comparison.mode, comparison.measure, comparison.failOn, comparison.regressions], ['runs', 'time', 5, []])
  assert.deepEqual(comparison.cells.map((c) => [c.scenario, c.reps.a, c.reps.b]), [['item-read', 10, 10], ['item-create', 10, 10]])
  const read1 = comparison.cells[0].operations.find((o) => o.route === '/items/:id')
  assert.deepEqual(read1.segments.map((s) => s.name), ['jsonParser', 'loadItem (:id)', 'renderItem'].filter((name) => read1.segments.some((s) => s.name === name)))
  for (const segment of read1.segments) {
    assert.equal(segment.on, 'both')
    assert.equal(segment.meanMs.a.values.length, 10, 'a value per repetition')
    assert.ok(segment.meanMs.change.low <= segment.meanMs.change.percent && segment.meanMs.change.percent <= segment.meanMs.change.high)
  }
  const markdown = fs.readFileSync(path.join(out, 'compare.md'), 'utf8')
  assert.ok(markdown.indexOf('### Verdicts') < markdown.indexOf('### Segments that moved'), 'verdicts first')
  assert.ok(markdown.indexOf('### Segments that moved') < markdown.indexOf('<details>'), 'the tables after, folded')
  assert.ok(markdown.split('\n').slice(0, markdown.split('\n').indexOf('<details><summary>Tables: every cell and segment</summary>')).length < 40, 'short above the fold')
  assert.deepEqual(fs.readdirSync(out).sort(), ['compare.html', 'compare.json', 'compare.md'], 'no temporary file left')
  const html = fs.readFileSync(path.join(out, 'compare.html'), 'utf8')
  assert.match(html, /<figure class="chart" data-kind="segment-change" data-scenario="item-read" data-format="json"/)
  const check = await checkReportInBrowser(path.join(out, 'compare.html'), { screenshotPath: path.join(dir, 'compare.png') })
  assert.equal(check.charts, comparison.cells.reduce((n, c) => n + c.operations.filter((o) => o.on === 'both').length, 0), 'a chart per operation')
  assert.deepEqual([check.emptyCharts, check.consoleErrors, check.externalRequests], [[], [], []])
})

test('a slowdown in one segment of b: found in that segment and no other, and --fail-on exits 1 with a line for it', { timeout: 60_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-')
  // b's loadItem takes 0.05 ms more in every request of every repetition, its operation's response time too.
  const slower = changed(aaSide('b'), (rep) => {
    for (const operation of rep.operations) {
      const segment = operation.segments.find((s) => s.name.startsWith('loadItem'))
      if (segment === undefined) continue
      segment.meanMs += 0.05
      operation.responseTimeMs.mean += 0.05
    }
  })
  const a = writeRun(dir, 'a', aaSide('a'))
  const b = writeRun(dir, 'b', slower)
  const run = await runCli(['compare', a, b, '--fail-on', '20', '--out', path.join(dir, 'out')])
  assert.equal(run.code, 1, run.stderr)
  const regressions = run.stderr.split('\n').filter((line) => line.startsWith('nodebench: regression: '))
  assert.equal(regressions.length, 1, run.stderr)
  assert.match(regressions[0], /^nodebench: regression: item read \(json\), 1 process: loadItem \(:id\) \(param\) mean time in GET \/items\/:id \[json\] \+\d+% \(95% CI \+\d+% to \+\d+%, p <?0\.\d+\), worse than --fail-on 20%$/)
  const comparison = read(path.join(dir, 'out', 'compare.json'))
  const moved = comparison.summary.movedSegments.filter((m) => m.verdict === 'slower')
  assert.deepEqual(moved.map((m) => m.segment), ['loadItem (:id)'])
  assert.match(run.stdout, /^segments that moved:\n {2}loadItem \(:id\) \(param\) in GET \/items\/:id \[json\], item read \(json\), 1 process: [\d.]+ -> [\d.]+ ms, mean time \+\d+%/m)
})

test('--fail-on: a change counts when its whole 95% interval is beyond the percentage, not its estimate alone', () => {
  const sides = { a: { name: 'a', source: 'a' }, b: { name: 'b', source: 'b' } }
  // loadItem at 20 µs give or take 3% in a, slower in every repetition of b by +5% up to +200%: significantly
  // slower, the estimate past 20%, its interval reaching below 20% (what a segment of a few microseconds shows on
  // a loaded machine).
  const spread = { a: [1, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1, 1.02, 0.98], b: [1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.6, 1.8, 2.4, 3] }
  const side = (name) => {
    let rep = 0
    return changed(aaSide('a'), (repetition, cell) => {
      if (cell.scenario !== 'item-read') return
      repetition.operations[0].segments.find((s) => s.name.startsWith('loadItem')).meanMs = 0.02 * spread[name][rep++]
    })
  }
  const [a, b] = [side('a'), side('b')]
  const loadItemOf = (comparison) => comparison.cells.find((cell) => cell.label.startsWith('item read')).operations[0].segments.find((s) => s.name.startsWith('loadItem'))
  const wide = compareRuns(a, b, { sides, failOn: 20 })
  const time = loadItemOf(wide).meanMs
  assert.equal(time.verdict, 'slower')
  assert.ok(time.change.percent > 20 && time.change.low < 20, `loadItem ${time.change.percent}% (${time.change.low}% to ${time.change.high}%)`)
  assert.deepEqual(wide.regressions, [])
  // Under a percentage the whole interval is past, the same change fails.
  const lower = compareRuns(a, b, { sides, failOn: Math.floor(time.change.low) - 1 })
  assert.deepEqual(lower.regressions.map((r) => r.segment), ['loadItem (:id)'])
  // Requests/s a little lower to a third in b's repetitions (the same factors, dividing): for a figure that fell,
  // the interval's end nearest no change (its high end) is what counts.
  const throughput = (name) => {
    let rep = 0
    return changed(aaSide('a'), (repetition) => { repetition.requestsPerSec = 1000 / spread[name][rep++ % spread[name].length] })
  }
  const [before, after] = [throughput('a'), throughput('b')]
  const rate = compareRuns(before, after, { sides, failOn: 20 })
  const main = rate.cells[0].figures[0]
  assert.ok(main.verdict === 'slower' && main.change.percent < -20 && main.change.high > -20, `requests/s ${main.change.percent}% (${main.change.low}% to ${main.change.high}%)`)
  assert.deepEqual(rate.regressions, [])
  const past = compareRuns(before, after, { sides, failOn: Math.floor(-main.change.high) - 1 })
  assert.deepEqual(past.regressions.map((r) => r.what), ['requests/s', 'requests/s'])
})

test('operations and segments on one side only are listed; a schema-1 run says what cannot be computed', { timeout: 60_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-')
  const withNew = changed(aaSide('b'), (rep) => {
    for (const operation of rep.operations) operation.segments.push({ name: 'rateLimit', kind: 'middleware', order: 99, count: operation.count, meanMs: 0.02, totalMs: 0.02 * operation.count, share: 0.01 })
  })
  const run = await runCli(['compare', writeRun(dir, 'a', aaSide('a')), writeRun(dir, 'b', withNew), '--out', path.join(dir, 'out')])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^ {2}segment only in b \(b\): rateLimit \(middleware\) in GET \/items\/:id \[json\], item read \(json\), 1 process: mean 0\.020 ms, 1\.00% of the time$/m)

  const quick = await runCli(['compare', QUICK, QUICK, '--out', path.join(dir, 'quick')])
  assert.equal(quick.code, 0, quick.stderr)
  assert.match(quick.stdout, /a is a results\.json of schema 1: its repetitions carry no segment figures, so segments' and operations' changes have no interval and no verdict/)
  assert.match(quick.stdout, /fewer than 4 repetitions on a side .* "too few repetitions" \(this comparison has 1 at least\)/)
  assert.match(quick.stdout, /collection read \(json\), 2 processes failed in a: /)
  const comparison = read(path.join(dir, 'quick', 'compare.json'))
  assert.equal(comparison.cells.length, 11, 'the failed cell is not compared')
  assert.equal(comparison.cells[0].operations[0].segments[0].meanMs.verdict, 'no per-repetition figures (schema 1)')
})

test('a sweep\'s cells (the same scenario, format and processes, other varied values) are compared each with its own', { timeout: 60_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-')
  // Each cell of the A/A run twice, as a sweep of `size` over 1 and 2 would make them; b's size 2 slower by half.
  const swept = (results, slower) => ({
    ...results,
    cells: results.cells.flatMap((cell) => [1, 2].map((size) => {
      const copy = structuredClone({ ...cell, values: { size } })
      if (slower && size === 2) for (const rep of copy.reps) rep.requestsPerSec /= 2
      return copy
    }))
  })
  const run = await runCli(['compare', writeRun(dir, 'a', swept(aaSide('a'), false)), writeRun(dir, 'b', swept(aaSide('b'), true)), '--out', path.join(dir, 'out')])
  assert.equal(run.code, 0, run.stderr)
  const comparison = read(path.join(dir, 'out', 'compare.json'))
  assert.deepEqual(comparison.cells.map((cell) => cell.label), ['item read (json), 1 process, size 1', 'item read (json), 1 process, size 2',
    'item create (json), 1 process, size 1', 'item create (json), 1 process, size 2'])
  assert.deepEqual(comparison.cells.map((cell) => cell.values), [{ size: 1 }, { size: 2 }, { size: 1 }, { size: 2 }])
  assert.deepEqual(comparison.cells.map((cell) => cell.figures[0].verdict === 'slower'), [false, true, false, true], 'size 2 slower, size 1 not')
})

test('bad input: one line each, exit 2, nothing written', { timeout: 60_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-')
  const a = writeRun(dir, 'a', aaSide('a'))
  const out = path.join(dir, 'out')
  const otherWorkload = writeRun(dir, 'other', { ...aaSide('b'), workload: { ...aaSide('b').workload, name: 'mongo-admin' } })
  const noCommon = writeRun(dir, 'nocommon', { ...aaSide('b'), cells: aaSide('b').cells.map((cell) => ({ ...cell, processes: 2 })) })
  const otherLoad = writeRun(dir, 'load', { ...aaSide('b'), cells: aaSide('b').cells.map((cell) => ({ ...cell, connections: 50 })) })
  const unknownSchema = writeRun(dir, 'schema4', { ...aaSide('b'), schema: 4 })
  fs.mkdirSync(path.join(dir, 'empty'))
  fs.writeFileSync(path.join(dir, 'broken.json'), '{"schema": 2, "cells": [')
  const cases = [
    [[a, path.join(dir, 'missing')], /^nodebench: compare: .*missing: no such file or folder; expected a bench run's results\.json or its folder$/],
    [[a, path.join(dir, 'empty')], /^nodebench: compare: .*empty holds no results\.json; expected a bench run's folder \(nodebench bench --out\)$/],
    [[a, path.join(dir, 'broken.json')], /^nodebench: compare: .*broken\.json is not JSON \(.*\); expected a bench run's results\.json$/],
    [[a, unknownSchema], /^nodebench: compare: .*schema4[/\\]results\.json has results schema 4; nodebench compare reads schemas 1, 2 and 3 \(what nodebench bench writes\)$/],
    [[a, otherWorkload], /^nodebench: compare: a ran workload 'shop' and b 'mongo-admin': compare needs the same workload on both sides$/],
    [[a, noCommon], /^nodebench: compare: no cell measured in both runs \(a: item read \(json\), 1 process; item create \(json\), 1 process; b: item read \(json\), 2 processes; item create \(json\), 2 processes\); compare needs the same scenario, format, processes, topology and varied values on both sides$/],
    [[a, otherLoad], /^nodebench: compare: item read \(json\), 1 process: a sent 4 connections, 300 requests per repetition, b 50 connections, 300 requests per repetition; compare runs of the same workload and load$/]
  ]
  for (const [runs, message] of cases) {
    const run = await runCli(['compare', ...runs, '--out', out])
    assert.equal(run.code, 2, `${runs[1]}: ${run.stderr}`)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
    assert.match(run.stderr.trim(), message)
    assert.equal(fs.existsSync(out), false, 'nothing written')
  }
  if (process.getuid && process.getuid() !== 0) {
    fs.chmodSync(path.join(a, 'results.json'), 0o000)
    const run = await runCli(['compare', a, a, '--out', out])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /cannot be read: permission denied/)
  }
})

test('A/A false positives over draws from 40 real repetition pairs: at most alpha per figure paired, and what two runs apart show', () => {
  const a = read(path.join(AA, 'a', 'results.json'))
  const b = read(path.join(AA, 'b', 'results.json'))
  const rates = falsePositiveRates(a, b, { draws: 150, seed: 7 })
  assert.equal(rates.repetitions, 40)
  assert.ok(rates.paired.figures > 1000)
  // What the README states (benchmarks/compare-false-positives.js with its defaults measures it on 400 draws).
  assert.ok(rates.paired.rate <= 0.05, `paired: ${(rates.paired.rate * 100).toFixed(1)}% of figures called a change`)
  assert.ok(rates.paired.failOnRate <= 0.1, `paired: --fail-on 5 failed ${(rates.paired.failOnRate * 100).toFixed(1)}% of A/A comparisons`)
  assert.ok(rates.runs.rate <= 0.25, `two runs: ${(rates.runs.rate * 100).toFixed(1)}% of figures called a change`)
})
