'use strict'

// How often nodebench compare calls a change where there is none: A/A comparisons (the same app on both sides)
// drawn from real repetitions of the shop app (test/fixtures/shop), counted figure by figure.
//
//   node benchmarks/compare-false-positives.js --record <dir> [--reps 40]   measure: a paired A/A run
//   node benchmarks/compare-false-positives.js [--from <dir>] [--draws 400] [--seed 1] [--json]
//
// --record runs `nodebench compare --cmd-a <shop> --cmd-b <shop> --reps N` (the same command on both sides,
// interleaved A, B, A, B) and keeps its two results.json in <dir>/a and <dir>/b (the tests' copy is
// test/fixtures/compare-aa). The analysis then draws A/A comparisons from those repetitions, as each mode would
// make them:
// - paired: 10 repetition pairs drawn at random from the run's N (what `compare --cmd-a/--cmd-b --reps 10` does);
// - two runs: two blocks of 5 consecutive repetitions of one side, the later block after the earlier (two
//   `bench --reps 5` runs one after the other, compared with `compare a b`).
// For each draw, every figure's verdict (requests/s, latency percentiles, each operation's response time, each
// segment's mean time and share): the share of figures called slower, faster, larger or smaller is the
// false-positive rate (alpha is 0.05: about 5% is what the test promises for independent repetitions); and
// how many draws `--fail-on 5` would have failed.

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { compareRuns } = require('../lib/compare/compare-runs')

const SHOP = path.join(__dirname, '..', 'test', 'fixtures', 'shop')
const DEFAULT_FROM = path.join(__dirname, '..', 'test', 'fixtures', 'compare-aa')
const MOVED = new Set(['slower', 'faster', 'larger', 'smaller'])

/** A small seeded generator (mulberry32): the same draws for the same seed, so the figures can be checked. */
function randomSource (seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `results` with each cell's repetitions those at `indexes`. */
function withReps (results, indexes) {
  return { ...results, cells: results.cells.map((cell) => ({ ...cell, reps: indexes.map((i) => cell.reps[i]) })) }
}

/** `count` distinct indexes below `size`, in order. */
function drawIndexes (random, size, count) {
  const all = Array.from({ length: size }, (_, i) => i)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]]
  }
  return all.slice(0, count).sort((x, y) => x - y)
}

/** Every decided figure of a comparison: how many, and how many called a change. */
function countFigures (comparison) {
  let figures = 0
  let moved = 0
  const count = (f) => {
    if (f === null || f.verdict.startsWith('too few')) return
    figures += 1
    if (MOVED.has(f.verdict)) moved += 1
  }
  for (const cell of comparison.cells) {
    cell.figures.forEach(count)
    for (const operation of cell.operations) {
      count(operation.responseTime)
      for (const segment of operation.segments) {
        count(segment.meanMs)
        count(segment.share)
      }
    }
  }
  return { figures, moved }
}

const SIDES = { a: { name: 'A', source: 'A/A' }, b: { name: 'A again', source: 'A/A' } }

/**
 * The false-positive rates of A/A comparisons drawn from a paired A/A run (`a`, `b`: its two results):
 * `{ paired, runs }`, each `{ draws, figures, moved, rate, failOnRate }`.
 */
function falsePositiveRates (a, b, { draws = 400, seed = 1, pairedReps = 10, runReps = 5, failOn = 5 } = {}) {
  const random = randomSource(seed)
  const size = Math.min(...a.cells.map((cell) => cell.reps.length), ...b.cells.map((cell) => cell.reps.length))
  const tally = () => ({ draws: 0, figures: 0, moved: 0, failed: 0 })
  const paired = tally()
  const runs = tally()
  const add = (into, comparison) => {
    const { figures, moved } = countFigures(comparison)
    into.draws += 1
    into.figures += figures
    into.moved += moved
    if (comparison.regressions.length > 0) into.failed += 1
  }
  for (let draw = 0; draw < draws; draw++) {
    const indexes = drawIndexes(random, size, pairedReps)
    add(paired, compareRuns(withReps(a, indexes), withReps(b, indexes), { sides: SIDES, failOn }))
    // Two runs, one after the other, of one side (alternately A's and B's repetitions).
    const side = draw % 2 === 0 ? a : b
    const first = Math.floor(random() * (size - 2 * runReps + 1))
    const second = first + runReps + Math.floor(random() * (size - first - 2 * runReps + 1))
    const block = (start) => Array.from({ length: runReps }, (_, i) => start + i)
    add(runs, compareRuns(withReps(side, block(first)), withReps(side, block(second)), { sides: SIDES, failOn }))
  }
  const rates = (t) => ({ ...t, rate: t.figures === 0 ? null : t.moved / t.figures, failOnRate: t.failed / t.draws })
  return { repetitions: size, paired: rates(paired), runs: rates(runs) }
}

async function record (dir, reps) {
  const { compareConfig, runCompare } = require('..')
  const cmd = `"${process.execPath}" ${JSON.stringify(path.join(SHOP, 'server.js'))} --port {port}`
  const config = compareConfig({ 'cmd-a': cmd, 'cmd-b': cmd, workload: path.join(SHOP, 'nodebench.workload.js'), reps: String(reps), out: dir })
  await runCompare(config, { log: (message) => process.stderr.write(`record: ${message}\n`) })
  for (const side of ['a', 'b']) {
    // What compare reads and nothing more: the cells' breakdowns (histograms) are not needed here.
    const file = path.join(dir, side, 'results.json')
    const results = JSON.parse(fs.readFileSync(file, 'utf8'))
    for (const cell of results.cells) {
      cell.breakdown = null
      for (const rep of cell.reps) delete rep.statusCodes
    }
    fs.writeFileSync(file, JSON.stringify(results) + '\n')
  }
  for (const name of ['compare.json', 'compare.md', 'compare.html']) fs.rmSync(path.join(dir, name), { force: true })
}

async function main () {
  const { values } = parseArgs({
    options: { record: { type: 'string' }, reps: { type: 'string', default: '40' }, from: { type: 'string' }, draws: { type: 'string', default: '400' }, seed: { type: 'string', default: '1' }, json: { type: 'boolean' } }
  })
  if (values.record !== undefined) {
    await record(path.resolve(values.record), Number(values.reps))
    return
  }
  const from = path.resolve(values.from ?? DEFAULT_FROM)
  const read = (side) => JSON.parse(fs.readFileSync(path.join(from, side, 'results.json'), 'utf8'))
  const a = read('a')
  const rates = falsePositiveRates(a, read('b'), { draws: Number(values.draws), seed: Number(values.seed) })
  if (values.json) {
    process.stdout.write(JSON.stringify({ node: a.machine.node, ...rates }, null, 2) + '\n')
    return
  }
  const line = (name, t) => `${name}: ${(t.rate * 100).toFixed(1)}% of ${t.figures} figures called a change in ${t.draws} A/A comparisons; ` +
    `--fail-on 5 would have failed ${(t.failOnRate * 100).toFixed(1)}% of them`
  process.stdout.write(`A/A from ${rates.repetitions} repetition pairs of the shop app (Node.js ${a.machine.node}, ${a.machine.cpuModel}, ${a.machine.cores} cores)\n`)
  process.stdout.write(`${line('paired, 10 pairs', rates.paired)}\n${line('two runs of 5 repetitions', rates.runs)}\n`)
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`compare-false-positives: ${err.stack}\n`)
    process.exitCode = 1
  })
}

module.exports = { falsePositiveRates, randomSource }
