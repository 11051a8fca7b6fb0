'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { ensureValgrind } = require('./valgrind')
const errors = require('./errors')

// What a callgrind dump of a Node.js process (run with --single-threaded) counted, split into the program's own
// work and what V8's garbage collector and compilers ran: those run at moments that shift with any change to
// the program and land in whichever dump is running, one more scavenge in a window of a few hundred requests
// moving its total by far more than a middleware does. `nodebench compare --measure instructions` and
// middleware/benchmarks/instructions.js both read their windows here.
//
// The collector and the compilers are found by the C++ functions that enter them (ENTRIES). Those nest: on
// Node.js 24 Heap::CollectGarbage runs its collection in a lambda whose name holds "Heap::CollectGarbage(" too,
// reached through heap::base::Stack::SetMarkerAndCallbackImpl<...Heap::CollectGarbage...>, and a scavenge joins
// the array buffer sweeper's job; Compiler::CompileOptimized runs MaglevCompiler::Compile. Summing the inclusive
// counts of every matching function counted one collection three times or more. So each entry's count is taken
// from the calls into it (callgrind_annotate --tree=caller) whose caller is not itself inside an entry: a
// function's share inside an entry is the part of its calls that come from callers inside one, followed up the
// callers (callgrind keeps callers and callees, not whole stacks, so a function reached both inside and outside
// the collector is split in proportion to its calls' counts).

const ENTRIES = Object.freeze([
  // Collections, and the tasks and jobs that run them or their parts outside one: incremental marking (from
  // allocation or its task), the scavenger's and the minor collector's tasks, the memory reducer, sweeping
  // (lazily, from allocation, after a full collection: tens of millions of instructions in the next window)
  // and freeing pages.
  { kind: 'gc', pattern: /Heap::(CollectGarbage|CollectAllGarbage|CollectAllAvailableGarbage|FinalizeIncrementalMarkingAtomically|StartIncrementalMarking)\(/ },
  { kind: 'gc', pattern: /IncrementalMarking::(Step|AdvanceAndFinalizeIfComplete|AdvanceAndFinalizeIfNecessary|AdvanceOnAllocation|Start)\(/ },
  { kind: 'gc', pattern: /(IncrementalMarkingJob|MinorGCJob|ScavengeJob|MemoryReducer::TimerTask)::Task::RunInternal\(|MemoryReducer::TimerTask::RunInternal\(/ },
  { kind: 'gc', pattern: /v8::internal::(Sweeper|ArrayBufferSweeper|ConcurrentMarking|ScavengerCollector|MarkCompactCollector|MinorMarkSweepCollector|MemoryAllocator::Unmapper)::/ },
  // Lazy compiling (parsing included), baseline batches, Maglev and Turbofan, on the main thread (with
  // --single-threaded their jobs run there too) and their installation.
  { kind: 'compile', pattern: /Compiler::(Compile|CompileOptimized|CompileBaseline|CompileSharedWithBaseline|FinalizeTurbofanCompilationJob|FinalizeMaglevCompilationJob|GetSharedFunctionInfoForScript)\w*\(/ },
  { kind: 'compile', pattern: /BaselineBatchCompiler::CompileBatch\(|maglev::MaglevCompiler::Compile\(|OptimizingCompileDispatcher::|maglev::MaglevConcurrentDispatcher::|compiler::PipelineCompilationJob::/ }
])

// How often the shares inside an entry are followed up the callers; they settle in a few rounds on a call graph
// without cycles, and recursion through JIT frames (the callers' graph has cycles) converges well within this.
const ROUNDS = 200

// "  1,234 (12.34%)  < ???:caller (25x) [object]" and "  1,234 (12.34%)  *  ???:function [object]"
const TREE_LINE = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+([<*>])\s+(.*)$/
const TOTAL_LINE = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+PROGRAM TOTALS/

/** A function's name as both kinds of line give it: without a call count " (25x)" before its object. */
function functionName (text) {
  return text.replace(/ \([\d,]+x\)(?= \[|$)/, '').trim()
}

/**
 * The call graph of callgrind_annotate --inclusive=yes --tree=caller output: `{ total, functions }`, each
 * function `{ inclusive, callers: [{ name, instructions }] }`.
 */
function parseCallerTree (text) {
  let total = null
  const functions = new Map()
  let callers = []
  for (const line of text.split('\n')) {
    const totalMatch = TOTAL_LINE.exec(line)
    if (totalMatch !== null) {
      total = Number(totalMatch[1].replace(/,/g, ''))
      continue
    }
    const match = TREE_LINE.exec(line)
    if (match === null) {
      if (line.trim() === '') callers = []
      continue
    }
    const instructions = Number(match[1].replace(/,/g, ''))
    const name = functionName(match[3])
    if (match[2] === '<') callers.push({ name, instructions })
    else if (match[2] === '*') {
      functions.set(name, { inclusive: instructions, callers })
      callers = []
    }
  }
  return { total, functions }
}

/**
 * Splits a caller tree's total: `{ total, gc, compile, mutator }`. An entry inside another entry (of either
 * kind) counts toward the outer one only.
 */
function splitCounts ({ total, functions }) {
  const kindOf = (name) => ENTRIES.find((entry) => entry.pattern.test(name))?.kind ?? null
  const inside = new Map()
  for (const name of functions.keys()) inside.set(name, kindOf(name) === null ? 0 : 1)
  const shareInside = (name) => inside.get(name) ?? 0
  for (let round = 0; round < ROUNDS; round++) {
    let moved = 0
    for (const [name, fn] of functions) {
      if (kindOf(name) !== null || fn.callers.length === 0) continue
      let all = 0
      let within = 0
      for (const caller of fn.callers) {
        all += caller.instructions
        within += caller.instructions * shareInside(caller.name)
      }
      const share = all === 0 ? 0 : within / all
      moved = Math.max(moved, Math.abs(share - inside.get(name)))
      inside.set(name, share)
    }
    if (moved < 1e-9) break
  }
  const counts = { total, gc: 0, compile: 0 }
  for (const [name, fn] of functions) {
    const kind = kindOf(name)
    if (kind === null) continue
    counts[kind] += fn.callers.length === 0
      ? fn.inclusive
      : fn.callers.reduce((sum, caller) => sum + caller.instructions * (1 - shareInside(caller.name)), 0)
  }
  counts.gc = Math.round(counts.gc)
  counts.compile = Math.round(counts.compile)
  return { ...counts, mutator: total - counts.gc - counts.compile }
}

/**
 * A callgrind dump's instructions: `{ total, gc, compile, mutator }`, `gc` and `compile` what ran inside the
 * functions that enter V8's collector and compilers, each instruction counted once. Reads it with the
 * callgrind_annotate beside ensureValgrind's valgrind (else the one on PATH); `options` go to ensureValgrind.
 * Throws NB_ERR_CALLGRIND when it fails or the dump holds no total.
 */
async function callgrindCounts (file, { timeoutMs = 300_000, ...options } = {}) {
  const beside = path.join(path.dirname(await ensureValgrind(options)), 'callgrind_annotate')
  const annotate = fs.existsSync(beside) ? beside : 'callgrind_annotate'
  const stdout = await new Promise((resolve, reject) => {
    execFile(annotate, ['--threshold=100', '--show=Ir', '--inclusive=yes', '--tree=caller', file], { timeout: timeoutMs, maxBuffer: 1 << 30 }, (err, out, stderr) => {
      if (err) reject(errors.callgrindFailed(file, (stderr || err.message).trim()))
      else resolve(out)
    })
  })
  const tree = parseCallerTree(stdout)
  if (tree.total === null) throw errors.callgrindFailed(file, 'it holds no instruction total')
  return splitCounts(tree)
}

module.exports = { callgrindCounts, parseCallerTree, splitCounts, ENTRIES }
