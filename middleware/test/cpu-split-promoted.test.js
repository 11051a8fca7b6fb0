'use strict'

const test = require('node:test')
const assert = require('node:assert')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArguments, parseNvpLine, summarizeNvp } = require('../benchmarks/cpu-split-promoted.js')

const SCRIPT = path.join(__dirname, '..', 'benchmarks', 'cpu-split-promoted.js')

function runPromoted (args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 150_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr })
    })
  })
}

test('cpu-split-promoted.js: scavenges read from --trace-gc-nvp, per request and a scavenge', () => {
  const line = (gc, promoted, survived) => `[1:0x1:0]   67 ms: pause=0.9 mutator=59.8 gc=${gc} reduce_memory=0 allocated=40960000 ` +
    `promoted=${promoted} new_space_survived=${survived} new_space_capacity=67108864 promotion_rate=0.0%`
  assert.equal(parseNvpLine('listening on http://127.0.0.1:1'), null)
  const scavenge = parseNvpLine(line('s', 1024, 2048))
  assert.deepEqual([scavenge.gc, scavenge.promoted, scavenge.new_space_survived], ['s', '1024', '2048'])
  const collections = [line('s', 0, 512000), line('s', 512000, 409600), line('mc', 0, 0), line('s', 0, 409600)].map(parseNvpLine)
  const counts = summarizeNvp(collections, 1000)
  assert.deepEqual(counts, {
    requests: 1000,
    scavengesPer1000: 3,
    fullPer1000: 1,
    allocatedBytes: 3 * 40960000 / 1000,
    survivedBytes: (512000 + 409600 + 409600) / 1000,
    promotedBytes: 512,
    survivedKbAScavenge: 400,
    promotedKbAScavenge: 0,
    semiSpaceMB: 64
  })
})

test('cpu-split-promoted.js: real-breakdown and real-bare counted over a fixed number of requests', { timeout: 180_000 }, async () => {
  const { code, stdout, stderr } = await runPromoted(['--variants', 'real-breakdown', '--semi-space', '8', '--rounds', '1',
    '--warmup', '500', '--requests', '3000', '--connections', '4', '--json'])
  assert.equal(code, 0, stderr)
  const { rows, runs } = JSON.parse(stdout)
  assert.deepEqual(runs.map((run) => run.app), ['real-bare', 'real-breakdown'])
  assert.ok(runs.every((run) => run.counts.requests === 3000), 'every counted request answered')
  const [row] = rows
  assert.deepEqual([row.variant, row.baseline, row.semiSpace, row.rounds], ['real-breakdown', 'real-bare', 8, 1])
  // 3,000 requests of ~40 KB through 8 MB semi-spaces: a dozen scavenges or more in each app.
  assert.ok(row.figures.scavengesPer1000.bare >= 3 && row.figures.scavengesPer1000.variant >= 3, JSON.stringify(row.figures.scavengesPer1000))
  // A request of the real stack allocates ~40 KB (the breakdown a few KB more: too close to judge in 3,000 requests).
  assert.ok(row.figures.allocatedBytes.bare > 10_000 && row.figures.allocatedBytes.variant > 10_000, JSON.stringify(row.figures.allocatedBytes))
  // 8 MB semi-spaces, where V8 says (Node.js 24; not 20).
  assert.ok([8, null].includes(row.figures.semiSpaceMB.bare), String(row.figures.semiSpaceMB.bare))
  assert.ok(Number.isFinite(row.figures.promotedBytes.over) && Number.isFinite(row.figures.survivedBytes.over))
})

test('cpu-split-promoted.js: a bad argument is one line and exit code 2', async () => {
  for (const args of [['--variants', 'real-1'], ['--semi-space', '0'], ['--requests', '10', '--connections', '50'], ['--rounds', 'x']]) {
    const { code, stdout, stderr } = await runPromoted(args)
    assert.equal(code, 2, args.join(' '))
    assert.equal(stdout, '')
    assert.match(stderr, /^cpu-split-promoted: --\S+ .*\n$/)
  }
  assert.deepEqual(parseArguments([]).semiSpaces, [null, 64])
})
