'use strict'

// benchmarks/cpu-split.js (and cpu-split-read.js, cpu-split-probe.js): where a traced app's CPU over its bare self goes (threads by kind, the main thread
// sampled, collections, deoptimizations). The run asserts what holds on any machine, never a time.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArguments, summarize } = require('../benchmarks/cpu-split.js')
const { threadKind, cpuByKind, splitProfile, profileCpu, countDeopts } = require('../benchmarks/cpu-split-read.js')
const { summarizeCollections } = require('../benchmarks/cpu-split-probe.js')

const SCRIPT = path.join(__dirname, '..', 'benchmarks', 'cpu-split.js')

function runCpuSplit (args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 150_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr })
    })
  })
}

test('cpu-split.js: a real-breakdown beside real-bare, its threads, its sampled main thread, collections and deopts', { timeout: 180_000 }, async () => {
  const args = ['--variants', 'real-breakdown', '--semi-space', '16', '--rounds', '1', '--duration', '2', '--warmup', '1',
    '--profile', '--deopts', '--json']
  const { code, stdout, stderr } = await runCpuSplit(args)
  assert.equal(code, 0, stderr)
  const { rows } = JSON.parse(stdout)
  assert.equal(rows.length, 1)
  const [row] = rows
  assert.deepEqual([row.variant, row.baseline, row.semiSpace, row.rounds, row.segmentsPerRequest], ['real-breakdown', 'real-bare', 16, 1, 9])
  const { figures } = row
  for (const name of ['cpu.main', 'cpu.main.user', 'cpu.main.system', 'cpu.v8', 'cpu.libuv', 'cpu.other', 'cpu.exited', 'cpu.total']) {
    assert.ok(name in figures, name)
  }
  assert.ok(figures['cpu.main'].bare > 0 && figures['cpu.main'].variant > 0, 'both apps used CPU on the main thread')
  // nodebench's own functions are sampled in the traced app only; the bare app runs none.
  assert.equal(figures['main.nodebench'].bare, 0)
  assert.ok(figures['main.nodebench'].variant > 0, 'nodebench sampled in real-breakdown')
  assert.ok(figures['main.packages'].bare > 0, 'the real stack\'s packages sampled')
  // The functions that differ most from bare, each with its group (which ones depends on the run).
  assert.ok(row.functions.length > 0 && row.functions.every(({ name, group, over }) => name && group && Number.isFinite(over)))
  assert.ok('deopts.per1000' in figures && 'gc.survivedBytes' in figures && 'gc.promotedBytes' in figures && 'faults.minor' in figures)
})

test('cpu-split.js: a bad argument is one line and exit code 2', async () => {
  for (const args of [['--variants', 'real-1'], ['--semi-space', '0'], ['--rounds', 'x'], ['--node', 'lts']]) {
    const { code, stdout, stderr } = await runCpuSplit(args)
    assert.equal(code, 2, args.join(' '))
    assert.equal(stdout, '')
    assert.match(stderr, /^cpu-split: --\S+ .*\n$/)
  }
  assert.deepEqual(parseArguments(['--semi-space', 'default,16,max64']).semiSpaces, [null, 16, 'max64'])
})

test('cpu-split.js: threads by kind from /proc, a thread born in the window from zero, one that exited apart', () => {
  assert.deepEqual(['V8Worker', 'node', 'libuv-worker', 'DelayedTaskSche', 'MainThread'].map((name) => threadKind(name, false)),
    ['v8', 'v8', 'libuv', 'other', 'other'])
  assert.equal(threadKind('node', true), 'main')
  const before = {
    pid: '10',
    total: { user: 5, system: 1 },
    threads: new Map([['10', { name: 'node', user: 3, system: 1 }], ['11', { name: 'V8Worker', user: 1, system: 0 }], ['12', { name: 'V8Worker', user: 1, system: 0 }]])
  }
  const after = {
    pid: '10',
    total: { user: 9, system: 2 },
    threads: new Map([['10', { name: 'node', user: 5, system: 2 }], ['11', { name: 'V8Worker', user: 2, system: 0 }], ['13', { name: 'libuv-worker', user: 0.5, system: 0 }]])
  }
  const kinds = cpuByKind(before, after)
  assert.deepEqual(kinds.main, { user: 2, system: 1 })
  assert.deepEqual(kinds.v8, { user: 1, system: 0 })
  assert.deepEqual(kinds.libuv, { user: 0.5, system: 0 })
  // 4 s of user time in all, 3.5 of it on live threads.
  assert.deepEqual(kinds.exited, { user: 0.5, system: 0 })
})

test('cpu-split.js: a profile split into groups by code, scaled to the main thread\'s CPU with idle left out', () => {
  const frame = (functionName, url) => ({ functionName, url, lineNumber: 0, scriptId: '1', columnNumber: 0 })
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', '') },
      { id: 2, callFrame: frame('(garbage collector)', '') },
      { id: 3, callFrame: frame('handleRequest', 'file:///work/nodebench/middleware/lib/wrap-layer.js') },
      { id: 4, callFrame: frame('compression', '/app/node_modules/compression/index.js') },
      { id: 5, callFrame: frame('setHeader', 'node:_http_outgoing') },
      { id: 6, callFrame: frame('(idle)', '') },
      { id: 7, callFrame: frame('record', '/work/nodebench/packages/breakdown/lib/duration-stats.js') }
    ],
    startTime: 0,
    endTime: 7000,
    samples: [2, 3, 4, 5, 6, 7, 6],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000]
  }
  const { groups, functions } = splitProfile(profile)
  assert.deepEqual(groups, { gc: 1, nodebench: 2, packages: 1, benchmark: 0, node: 1, native: 0, program: 0, idle: 2 })
  assert.equal(functions['handleRequest wrap-layer.js:1'].ms, 1)
  const run = { requests: 1000, profile: { groups, functions }, cpu: { main: { user: 0.01, system: 0.01 } } }
  const { byGroup, busyShare } = profileCpu(run)
  // 20 µs of main-thread CPU a request over 5 busy ms: 4 µs a request a busy ms.
  assert.deepEqual(byGroup, { gc: 4, nodebench: 8, packages: 4, benchmark: 0, node: 4, native: 0, program: 0 })
  assert.equal(busyShare, 5 / 7)
})

test('cpu-split.js: deoptimizations by function and reason from --trace-deopt; collections from GCProfiler', () => {
  const trace = '[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x1 <JSFunction get (sfi = 0x2)>, 0x3 <Code MAGLEV>, opt id 2]\n' +
    '[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x1 <JSFunction get (sfi = 0x2)>, 0x3 <Code TURBOFAN_JS>, opt id 3]\n' +
    '[bailout (kind: deopt-lazy, reason: (unknown)): begin. deoptimizing 0x4 <JSFunction (sfi = 0x5)>, 0x6 <Code MAGLEV>, opt id 4]\n'
  assert.deepEqual(countDeopts(trace), { total: 3, byFunction: { 'get (deopt-eager: wrong map)': 2, '(anonymous) (deopt-lazy: (unknown))': 1 } })
  const heap = (young, old) => ({
    heapSpaceStatistics: [{ spaceName: 'new_space', spaceUsedSize: young, spaceSize: 16384 }, { spaceName: 'old_space', spaceUsedSize: old, spaceSize: 65536 }]
  })
  const statistics = [
    { gcType: 'Scavenge', cost: 1500, beforeGC: heap(8000, 100), afterGC: heap(600, 400) },
    { gcType: 'Scavenge', cost: 500, beforeGC: heap(8000, 400), afterGC: heap(1000, 500) },
    { gcType: 'MarkSweepCompact', cost: 4000, beforeGC: heap(0, 500), afterGC: heap(0, 200) }
  ]
  assert.deepEqual(summarizeCollections(statistics), {
    byKind: { Scavenge: { count: 2, ms: 2 }, MarkSweepCompact: { count: 1, ms: 4 } },
    survivedBytes: 1600,
    promotedBytes: 400,
    youngGenerationBytes: 16384
  })
})

test('cpu-split.js: each figure is the variant\'s less the bare app\'s beside it in the same round, then the median', () => {
  const run = (variant, round, mainSeconds) => ({
    variant,
    pairedWith: 'real-breakdown',
    round,
    semiSpace: null,
    loadAverage: 1,
    requests: 1000,
    cpu: Object.fromEntries(['main', 'v8', 'libuv', 'other', 'exited'].map((kind) => [kind, { user: kind === 'main' ? mainSeconds : 0, system: 0 }])),
    collections: { byKind: {}, survivedBytes: 0, promotedBytes: 0 },
    profile: null,
    deopts: null
  })
  // Bare drifts from 0.1 to 0.3 s; the breakdown stays 0.018 s over it (18 µs a request: 2,000 ns a segment).
  const runs = [run('real-bare', 1, 0.1), run('real-breakdown', 1, 0.118), run('real-bare', 2, 0.3), run('real-breakdown', 2, 0.318),
    run('real-bare', 3, 0.2), run('real-breakdown', 3, 0.22)]
  const [row] = summarize(runs, () => 9)
  assert.equal(row.rounds, 3)
  assert.equal(Math.round(row.figures['cpu.main'].over * 1000), 18000)
  assert.equal(Math.round(row.figures['cpu.main'].bare), 200)
})

test('overhead.js --semi-space fixes every app\'s young generation; a size out of range is refused', () => {
  const overhead = require('../benchmarks/overhead.js')
  assert.equal(overhead.parseArguments(['--semi-space', '16']).semiSpace, 16)
  assert.equal(overhead.parseArguments([]).semiSpace, null)
  assert.throws(() => overhead.parseArguments(['--semi-space', '0']), /--semi-space must be a whole number of MB from 1 to 256; received "0"/)
})

test('overhead.js --node-flag passes flags to every app; what is not a flag is refused', () => {
  const overhead = require('../benchmarks/overhead.js')
  assert.deepEqual(overhead.parseArguments(['--node-flag=--experimental-async-context-frame']).nodeFlags, ['--experimental-async-context-frame'])
  assert.deepEqual(overhead.parseArguments([]).nodeFlags, [])
  assert.throws(() => overhead.parseArguments(['--node-flag', 'mongodb']), /--node-flag must be one Node.js flag such as --experimental-async-context-frame; received "mongodb"/)
})
