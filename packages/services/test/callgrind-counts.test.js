'use strict'

// callgrindCounts reads a callgrind dump with valgrind's own callgrind_annotate. The fixture is a dump in
// callgrind's format whose V8 entries nest as they do on Node.js 24, with round figures:
//   main                                   1,000 of its own
//   ├ Heap::CollectGarbage                   550 (100 of its own)
//   │ └ Heap::CollectGarbage(...)::{lambda}    (200 of its own; a second function matching the GC entry)
//   │   └ DefaultJobState::Join                 (300 of Join's 400, the rest called straight from main)
//   │     └ ArrayBufferSweeper ... SweepingJob::Run   300 in all, a third GC entry
//   ├ Compiler::CompileOptimized             400 (100 of its own)
//   │ ├ MaglevCompiler::Compile              250, a second compile entry
//   │ └ Heap::CollectGarbage                  50, a collection inside compiling
//   └ DefaultJobState::Join                  100
// 2,050 instructions in all. Summing every matching function's inclusive count, as nodebench did before,
// gives 1,400 of collection and 650 of compiling, nothing left for main. Counted once: the collection entered
// from main is 550, the sweeper's job 75 more (a quarter of Join's calls come from outside the collector, so a
// quarter of its job does), and compiling 400, the collection inside it counted with it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { callgrindCounts } = require('..')
const { temporaryDir, coded } = require('./helpers')

const FIXTURE = path.join(__dirname, 'fixtures', 'nested-entries.callgrind')

test('an entry of the collector or the compilers inside another is counted once, with the outermost', { timeout: 300_000 }, async () => {
  assert.deepEqual(await callgrindCounts(FIXTURE), { total: 2050, gc: 625, compile: 400, mutator: 1025 })
})

test('a file that is no callgrind dump fails with NB_ERR_CALLGRIND, naming it', { timeout: 300_000 }, async (t) => {
  const file = path.join(temporaryDir(t), 'callgrind.out.1')
  fs.writeFileSync(file, 'not a dump\n')
  await assert.rejects(callgrindCounts(file), coded('NB_ERR_CALLGRIND', /^callgrind_annotate could not read the dump .*callgrind\.out\.1: /))
  await assert.rejects(callgrindCounts(path.join(path.dirname(file), 'missing')), coded('NB_ERR_CALLGRIND', /missing: /))
})
