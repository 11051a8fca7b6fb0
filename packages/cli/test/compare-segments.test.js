'use strict'

// A slowdown put into one handler of the shop app (test/fixtures/shop), found by nodebench compare's paired runs
// in that segment and no other: a wait of 1 ms in loadItem, timed, and CPU work in loadItem, counted under
// callgrind. What the middleware attributes to each segment is what these check, so they run on every Node.js
// line; the rest of the paired runs is compare-paired.test.js. Small counts: callgrind runs a request in 3-20 ms.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { temporaryDir, runCli } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')
const SERVER = path.join(SHOP, 'server.js')
const WORKLOAD = path.join(SHOP, 'nodebench.workload.js')
const node = JSON.stringify(process.execPath)
const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))
const regressionsOf = (stderr) => stderr.split('\n').filter((line) => line.startsWith('nodebench: regression: '))

test('paired, two commands: 1 ms more in loadItem is found there and nowhere else', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-paired-')
  const out = path.join(dir, 'out')
  const run = await runCli(['compare', '--cmd-a', `${node} ${SERVER} --port {port}`, '--cmd-b', `${node} ${SERVER} --port {port} --delay loadItem:1`,
    '--workload', WORKLOAD, '--scenarios', 'item-read', '--reps', '6', '--amount', '200', '--warmup', '100', '--fail-on', '25', '--out', out])
  assert.equal(run.code, 1, run.stderr)
  assert.match(run.stderr, /^nodebench compare: repetition 6\/6: A \d+ req\/s, B \d+ req\/s$/m)
  const regressions = regressionsOf(run.stderr)
  const inLoadItem = /item read \(json\), 1 process: loadItem \(:id\) \(param\) mean time in GET \/items\/:id \[json\] \+\d+%/
  assert.ok(regressions.some((line) => inLoadItem.test(line)), run.stderr)
  // A millisecond more per request also lowers the cell's requests/s (autocannon's connections wait for it): a
  // regression of the cell's own, which may reach significance too. No other segment's.
  for (const line of regressions) assert.match(line, new RegExp(`${inLoadItem.source}|item read \\(json\\), 1 process: requests/s -\\d+%`))
  const comparison = read(path.join(out, 'compare.json'))
  assert.equal(comparison.mode, 'paired')
  const slower = comparison.summary.movedSegments.filter((m) => m.verdict === 'slower').map((m) => m.segment)
  assert.ok(slower.includes('loadItem (:id)'), slower.join(', '))
  const segments = comparison.cells[0].operations[0].segments
  const added = (s) => s.meanMs.b.median - s.meanMs.a.median
  const loadItem = segments.find((s) => s.name === 'loadItem (:id)')
  assert.ok(added(loadItem) >= 0.9, `loadItem ${loadItem.meanMs.a.median} -> ${loadItem.meanMs.b.median} ms`)
  // Another segment may come out significantly slower by a few µs, and rightly: after a 1 ms wait the next
  // segment runs on caches gone cold. The millisecond itself is in loadItem alone.
  for (const s of segments.filter((s) => s !== loadItem && s.meanMs !== null)) {
    assert.ok(added(s) < 0.1, `${s.name} ${s.meanMs.a.median} -> ${s.meanMs.b.median} ms`)
  }
  // Each side's measurements are a bench run's results, which compare reads again to the same figures.
  const a = read(path.join(out, 'a', 'results.json'))
  assert.deepEqual([a.schema, a.cells.length, a.cells[0].reps.length, a.config.paired], [3, 1, 6, true])
  const again = await runCli(['compare', path.join(out, 'a'), path.join(out, 'b'), '--out', path.join(dir, 'again')])
  assert.equal(again.code, 0, again.stderr)
  assert.deepEqual(read(path.join(dir, 'again', 'compare.json')).summary.movedSegments, comparison.summary.movedSegments)
})

test('--measure instructions: CPU work in loadItem counted under callgrind, found there, the later windows giving the same', { timeout: 900_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-compare-callgrind-')
  const out = path.join(dir, 'out')
  const run = await runCli(['compare', '--measure', 'instructions', '--cmd-a', `node ${SERVER} --port {port}`, '--cmd-b', `node ${SERVER} --port {port} --spin loadItem:100`,
    '--workload', WORKLOAD, '--scenarios', 'item-read', '--warmup', '300', '--window', '25', '--reps', '8', '--fail-on', '20', '--out', out], { timeout: 880_000 })
  assert.equal(run.code, 1, run.stderr)
  assert.match(run.stderr, /^nodebench compare: window 8\/8: instructions per request A [\d,]+, B [\d,]+$/m)
  // Eight windows, not six: the exact test over six pairs is significant only when all six agree, so one window
  // of A that happens to count about as much as B's (a CI run had one) took the verdict away; over eight, one
  // near-tie still leaves p 0.016.
  const regressions = regressionsOf(run.stderr)
  assert.match(regressions[0] ?? '', /^nodebench: regression: item read \(json\), 1 process: instructions per request \+\d+%/, run.stderr)
  assert.ok(regressions.some((line) => /loadItem \(:id\) \(param\) mean time in GET \/items\/:id \[json\] \+\d+%/.test(line)), run.stderr)
  const comparison = read(path.join(out, 'compare.json'))
  assert.equal(comparison.measure, 'instructions')
  assert.match(comparison.method.text, /^Wilcoxon signed-rank test/)
  const cell = comparison.cells[0]
  assert.equal(cell.figures[0].verdict, 'slower')
  const slower = comparison.summary.movedSegments.filter((m) => m.verdict === 'slower').map((m) => m.segment)
  assert.ok(slower.includes('loadItem (:id)'), slower.join(', '))
  // Another segment may come out significantly slower too, even past --fail-on: its time under callgrind moves
  // with when V8 compiles its code and valgrind translates it, at another request in B than in A (jsonParser +20%
  // on Node.js 22 and 24, renderItem 3.9 -> 5.2 ms on 20, in single runs). The CPU work itself multiplies
  // loadItem's time (0.08 -> 3.9 ms); no other segment's doubles.
  const segments = cell.operations[0].segments
  const factor = (s) => s.meanMs.b.median / s.meanMs.a.median
  const loadItem = segments.find((s) => s.name === 'loadItem (:id)')
  assert.ok(factor(loadItem) > 10, `loadItem ${loadItem.meanMs.a.median} -> ${loadItem.meanMs.b.median} ms`)
  for (const s of segments.filter((s) => s !== loadItem && s.meanMs !== null)) {
    assert.ok(factor(s) < 2, `${s.name} ${s.meanMs.a.median} -> ${s.meanMs.b.median} ms`)
  }
  // The window: after 300 requests of warm-up, 8 windows of 25; the later windows give the same change (V8 is still
  // tiering the app up, a few % a window, but no longer by half: the collector's and compilers' work is left out).
  assert.deepEqual(cell.windows.a.list.map((w) => [w.from, w.to]), [[300, 325], [325, 350], [350, 375], [375, 400], [400, 425], [425, 450], [450, 475], [475, 500]])
  const { earlier, later } = cell.halves
  assert.ok(earlier.percent > 20 && later.percent > 20, `earlier ${earlier.percent}%, later ${later.percent}%`)
  assert.ok(Math.abs(later.percent - earlier.percent) < Math.max(earlier.percent, later.percent) / 2, `earlier ${earlier.percent}%, later ${later.percent}%`)
  assert.match(run.stdout, /earlier windows \(requests 300-400\) \+\d+%, later windows \(400-500\) \+\d+%/)
})
