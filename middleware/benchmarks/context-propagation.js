#!/usr/bin/env node
'use strict'

// What the request's context costs an app's own async work, per promise and per tick: nodebench keeps each
// request's record in an AsyncLocalStorage once it observes a dependency (lib/dependencies/calls.js), and on
// Node.js 20 and 22 that switches on async hooks for the whole process. In one process, in alternating blocks, an
// `await null` and a `process.nextTick` are timed with the context off and on (an AsyncLocalStorage entered as
// nodebench enters its own when a request begins), so a drift of the machine hits both sides of each pair of blocks
// alike; the figures are the medians over the pairs.
//
//   node benchmarks/context-propagation.js [--node 22] [--node-flag --experimental-async-context-frame]
//                                          [--pairs 7] [--count 500000] [--json]
//
// The overhead benchmark's `real-context` variant (overhead.js) gives what this adds up to on a real middleware
// stack, a request at a time; this gives the unit it is made of.

const { AsyncLocalStorage } = require('node:async_hooks')
const { execFile } = require('node:child_process')
const { parseArgs } = require('node:util')
const { median, nodeFlags, nodeUnderTest, positiveInteger, runScript } = require('./harness')

const CHILD = '--child'

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      node: { type: 'string' },
      'node-flag': { type: 'string', multiple: true, default: [] },
      pairs: { type: 'string', default: '7' },
      count: { type: 'string', default: '500000' },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  if (values.node !== undefined && !/^\d+(\.\d+){0,2}$/.test(values.node)) {
    throw new TypeError(`--node must be a Node.js version or line such as 22 or 22.23.5; received ${JSON.stringify(values.node)}`)
  }
  return {
    node: values.node ?? null,
    nodeFlags: nodeFlags(values['node-flag']),
    pairs: positiveInteger('pairs', values.pairs),
    count: positiveInteger('count', values.count),
    json: values.json
  }
}

async function awaits (count) {
  for (let i = 0; i < count; i++) await null
}

function ticks (count) {
  return new Promise((resolve) => {
    let i = 0
    const step = () => (++i < count ? process.nextTick(step) : resolve())
    process.nextTick(step)
  })
}

/** ns of wall time a unit of `work` (a tight loop of the process's own: its CPU, on a core of its own). */
async function nsPerUnit (work, count) {
  const start = process.hrtime.bigint()
  await work(count)
  return Number(process.hrtime.bigint() - start) / count
}

/**
 * In the Node.js under test: the pairs of blocks, off then on, each unit timed in each. The context is one
 * AsyncLocalStorage entered with `enterWith` as lib/dependencies/calls.js enters nodebench's when a request begins,
 * and switched off between blocks with `disable()`. One storage for the whole run, as an app has one: a storage
 * made anew for each block (as calls.js's would be, released and held again) gives the promises of each block a
 * property of another name, and an await on Node.js 20 cost twice as much as with one.
 */
async function child (pairs, count) {
  const storage = new AsyncLocalStorage()
  const units = { await: awaits, nextTick: ticks }
  const figures = { await: { off: [], on: [] }, nextTick: { off: [], on: [] } }
  // One warm-up pair, not counted: both sides compiled and the storage made once.
  for (let pair = -1; pair < pairs; pair++) {
    for (const side of ['off', 'on']) {
      if (side === 'on') storage.enterWith({ record: null })
      for (const [name, work] of Object.entries(units)) {
        const ns = await nsPerUnit(work, count)
        if (pair >= 0) figures[name][side].push(ns)
      }
      if (side === 'on') storage.disable()
    }
  }
  process.stdout.write(JSON.stringify({ node: process.version, execArgv: process.execArgv, figures }))
}

function signed (ns) {
  return `${ns >= 0 ? '+' : ''}${ns.toFixed(1)}`
}

async function main (options) {
  const log = (line) => process.stderr.write(`${line}\n`)
  const node = await nodeUnderTest(options.node, log)
  log(`context-propagation: Node.js ${node.version}${options.nodeFlags.length ? ` ${options.nodeFlags.join(' ')}` : ''}, ` +
    `${options.pairs} pairs of blocks of ${options.count} each`)
  const stdout = await new Promise((resolve, reject) => {
    execFile(node.path, [...options.nodeFlags, __filename, CHILD, String(options.pairs), String(options.count)],
      { maxBuffer: 1 << 20 }, (err, out, errOut) => (err ? reject(new Error(`the run failed: ${errOut || err.message}`)) : resolve(out)))
  })
  const run = JSON.parse(stdout)
  const units = Object.entries(run.figures).map(([unit, { off, on }]) => {
    const added = off.map((ns, i) => on[i] - ns)
    const addedRangeNs = [Math.min(...added), Math.max(...added)]
    return { unit, offNs: median(off), onNs: median(on), addedNs: median(added), addedRangeNs }
  })
  const { pairs, count } = options
  const result = { schema: 1, node: run.node, execArgv: run.execArgv, pairs, count, units }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    return
  }
  const flags = run.execArgv.length ? ` (${run.execArgv.join(' ')})` : ''
  process.stdout.write(`Node.js ${run.node}${flags}: ns a unit, the context off -> on (medians of ${options.pairs} pairs)\n`)
  for (const u of units) {
    const range = `pairs ${u.addedRangeNs[0].toFixed(1)} to ${u.addedRangeNs[1].toFixed(1)}`
    process.stdout.write(`  ${u.unit.padEnd(9)} ${u.offNs.toFixed(1)} -> ${u.onNs.toFixed(1)} ns  (${signed(u.addedNs)}; ${range})\n`)
  }
}

if (process.argv[2] === CHILD) {
  child(Number(process.argv[3]), Number(process.argv[4])).catch((err) => {
    process.stderr.write(`${err.stack}\n`)
    process.exitCode = 1
  })
} else if (require.main === module) {
  runScript('context-propagation', parseArguments, main)
}

module.exports = { parseArguments }
