'use strict'

// What nodebench costs in CPU instructions per request, counted by valgrind's callgrind: repeatable to <1% on
// a shared machine, where requests/s moves by 10%.
//
//   node benchmarks/instructions.js [--checkpoints 10000,30000,50000] [--variants bare,nodebench-breakdown,...]
//                                   [--node 24] [--jobs 2] [--keep-dumps dir] [--semi-space 16] [--cache-sim]
//                                   [--json]
//
// Each variant's app (fixed-requests.js: the benchmark app and a client in one process; `client`: the client
// alone) runs once under callgrind and pauses at each checkpoint (requests served), where this script dumps
// callgrind's counters (callgrind_control --dump, which also zeroes them). The instructions between two
// checkpoints over the requests between them are one request's, server and client together, in that window.
// Start-up and V8's tiering-up fall in the first windows; the report shows every window, so a window where the
// figure no longer moves (the next one gives the same) can be chosen. Node runs with --single-threaded, so compiling
// and garbage collection happen on the counted thread; each window is also shown without them
// (@nodebench/services' callgrindCounts finds them by the functions that enter them, each counted once).
//
// --node runs a given Node.js (a line or exact version, from the npm registry, cached per user; see
// @nodebench/services nodeBinary). Instructions are not time: cache misses and GC memory traffic weigh in
// overhead.js, not here. Under valgrind a request takes ~3-20 ms (Node.js 24 to 20).
//
// --keep-dumps keeps each variant's callgrind dumps (<dir>/<variant>/callgrind.out.<n>, one per window) and
// V8's map of its generated code (perf.map, from --perf-basic-prof), to read function by function with
// callgrind_annotate: JavaScript shows there as addresses, which perf.map names.
//
// --semi-space <MB> gives every variant's young generation that size from the start (V8's --min- and
// --max-semi-space-size). Unset, V8 grows it from 1 MB only when enough survives a scavenge, and where it settles
// depends on the start-up: on Node.js 24.22.3 the benchmark app's breakdown ends with twice the young generation of
// bare, sampleRatio 0, 0.1 and 1, and 12 scavenges in requests 2,000-4,000 where sampleRatio 0.1 has 85, which the
// whole process's count then shows as the spans' cost (benchmarks/LOG.md, "An exported span in the whole process").
//
// --cache-sim turns on callgrind's cache and branch simulation (--cache-sim=yes --branch-sim=yes): each dump
// then also holds D1 and LL read and write misses and mispredicted branches, by function (callgrind_annotate
// --show=D1mr,D1mw,DLmr,DLmw,Bcm,Bim). The instruction counts are the same; a run takes ~2x as long. valgrind
// takes the last-level cache from the machine's (on a VM, its whole L3: 480 MB here, where hardly anything
// misses); --cache-ll 2097152,16,64 simulates a core's L2 as the last level instead (valgrind's --LL).
//
// --jobs runs that many variants at once (default: one per core, at most one per variant): a count does not
// depend on what else the machine runs, so only the wall time changes.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { spawn, execFile } = require('node:child_process')
const { callgrindCounts } = require('@nodebench/services')
const { callgrindTools, runScript } = require('./harness')

const VARIANTS = Object.freeze([
  'bare', 'nodebench-breakdown', 'nodebench-0', 'nodebench-0.1', 'nodebench-1', 'nodebench-metrics', 'nest-bare', 'nest-breakdown',
  'client', 'real-bare', 'real-breakdown', 'real-0', 'real-0.1', 'real-1', 'real-clock', 'real-clock-return',
  'nodebench-1-down', 'real-1-down', 'real-context'
])
// Each variant against its app bare: the Express app's with bare, the NestJS example's with nest-bare. `client`
// (the client alone, the app in a process valgrind does not follow) is the client's share of every Express
// variant's count: with it, the report also gives each one's server alone.
const NEST_VARIANTS = new Set(['nest-bare', 'nest-breakdown'])

function baselineOf (variant) {
  if (variant === 'client') return 'client'
  if (variant.startsWith('real-')) return 'real-bare'
  return NEST_VARIANTS.has(variant) ? 'nest-bare' : 'bare'
}
const DEFAULT_CHECKPOINTS = '10000,30000,50000'
// Generous: a checkpoint can take minutes to reach under valgrind.
const RUN_TIMEOUT_MS = 3 * 60 * 60 * 1000

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      checkpoints: { type: 'string', default: DEFAULT_CHECKPOINTS },
      variants: { type: 'string', default: 'bare,nodebench-breakdown' },
      node: { type: 'string' },
      jobs: { type: 'string' },
      'keep-dumps': { type: 'string' },
      'semi-space': { type: 'string' },
      'cache-sim': { type: 'boolean', default: false },
      'cache-ll': { type: 'string' },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  const checkpoints = values.checkpoints.split(',').map(Number)
  const badCheckpoint = (n, i) => !Number.isInteger(n) || n < 4 || n % 4 !== 0 || (i > 0 && n <= checkpoints[i - 1])
  if (checkpoints.length < 2 || checkpoints.some(badCheckpoint)) {
    throw new TypeError(`--checkpoints must be at least two increasing multiples of 4 (requests served); received ${values.checkpoints}`)
  }
  const variants = values.variants.split(',').filter(Boolean)
  const unknown = variants.filter((variant) => !VARIANTS.includes(variant))
  const missing = [...new Set(variants.map(baselineOf))].filter((baseline) => !variants.includes(baseline))
  if (unknown.length > 0 || missing.length > 0 || variants.length === 0) {
    throw new TypeError(`--variants must list bare (nest-bare for the NestJS ones) and any of ${VARIANTS.filter((v) => v !== 'bare').join(', ')}; received ${values.variants}`)
  }
  if (values.node !== undefined && !/^\d+(\.\d+){0,2}$/.test(values.node)) {
    throw new TypeError(`--node must be a Node.js version or line such as 24 or 24.21.0; received ${values.node}`)
  }
  const jobs = values.jobs === undefined
    ? Math.max(1, Math.min(os.availableParallelism(), variants.length))
    : Number(values.jobs)
  if (!Number.isInteger(jobs) || jobs < 1) throw new TypeError(`--jobs must be a whole number of at least 1; received ${values.jobs}`)
  const keepDumps = values['keep-dumps'] === undefined ? null : path.resolve(values['keep-dumps'])
  const semiSpace = values['semi-space'] === undefined ? null : Number(values['semi-space'])
  if (semiSpace !== null && !(Number.isInteger(semiSpace) && semiSpace >= 1 && semiSpace <= 256)) {
    throw new TypeError(`--semi-space must be a whole number of MB from 1 to 256; received ${values['semi-space']}`)
  }
  const options = { checkpoints, variants, node: values.node ?? null, jobs, keepDumps, json: values.json }
  if (semiSpace !== null) options.semiSpace = semiSpace
  if (values['cache-sim']) options.cacheSim = true
  if (values['cache-ll'] !== undefined) {
    if (!values['cache-sim'] || !/^\d+,\d+,\d+$/.test(values['cache-ll'])) {
      throw new TypeError(`--cache-ll takes <size>,<associativity>,<line size> in bytes (valgrind's --LL) beside --cache-sim; received ${values['cache-ll']}`)
    }
    options.cacheLl = values['cache-ll']
  }
  return options
}

function dumpCounters (pid) {
  return new Promise((resolve, reject) => {
    execFile('callgrind_control', ['--dump', String(pid)], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`callgrind_control --dump ${pid} failed: ${err.message} ${stderr}`))
      else resolve()
    })
  })
}

/**
 * One callgrind run of `variant`: resolves to the instructions counted between consecutive checkpoints,
 * `[{ from, to, instructions }]` (the first from 0: start-up included), with `segmentsPerRequest` and
 * `spansPerRequest` (what fixed-requests.js printed at its end; null for bare) on the array.
 */
function countWindows (valgrind, nodePath, variant, checkpoints, onProgress, signal, keepDumps = null,
  semiSpace = null, cacheSim = false, cacheLl = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-callgrind-'))
  const outFile = path.join(dir, 'callgrind.out')
  const child = spawn(valgrind, [
    '--tool=callgrind', `--callgrind-out-file=${outFile}`, `--cache-sim=${cacheSim ? 'yes' : 'no'}`,
    `--branch-sim=${cacheSim ? 'yes' : 'no'}`, ...(cacheLl === null ? [] : [`--LL=${cacheLl}`]), '--dump-instr=no',
    '--smc-check=all-non-file', nodePath, '--single-threaded', ...(keepDumps === null ? [] : ['--perf-basic-prof']),
    ...(semiSpace === null ? [] : [`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`]),
    path.join(__dirname, 'fixed-requests.js'), variant, checkpoints.join(','), '--pause'
  ], { stdio: ['pipe', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' })
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000) })
  const reached = []
  let pending = Promise.resolve()
  let buffered = ''
  let segmentsPerRequest = null
  let spansPerRequest = null
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    buffered += chunk
    let newline
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      const timed = /^timed (\d+) segments in (\d+) requests$/.exec(line)
      if (timed !== null) segmentsPerRequest = Number(timed[1]) / Number(timed[2])
      const sunk = /^sink received (\d+) spans/.exec(line)
      if (sunk !== null) spansPerRequest = Number(sunk[1]) / checkpoints[checkpoints.length - 1]
      const match = /^checkpoint (\d+)$/.exec(line)
      if (match === null) continue
      const served = Number(match[1])
      pending = pending.then(async () => {
        await dumpCounters(child.pid)
        reached.push(served)
        onProgress(`instructions: ${variant}: ${served} requests`)
        child.stdin.write('\n')
      })
    }
  })
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(signal !== undefined && signal.aborted ? new Error(`${variant}: stopped, another variant failed`) : err))
    child.once('close', async (code, signal) => {
      clearTimeout(timer)
      try {
        await pending
        if (code !== 0) throw new Error(`valgrind ${variant} exited with ${signal || `code ${code}`}:\n${stderr}`)
        // callgrind writes <out>.<n> for the n-th dump.
        const windows = []
        for (const [i, to] of reached.entries()) {
          const { total, gc, compile } = await callgrindCounts(`${outFile}.${i + 1}`)
          windows.push({ from: i === 0 ? 0 : reached[i - 1], to, instructions: total, gc, compile })
        }
        if (keepDumps !== null) {
          const dumps = windows.map(({ from, to }, i) => ({ file: `callgrind.out.${i + 1}`, from, to }))
          const described = { variant, segmentsPerRequest, spansPerRequest, windows: dumps }
          keep(dir, path.join(keepDumps, variant), child.pid, described)
        }
        resolve(Object.assign(windows, { segmentsPerRequest, spansPerRequest }))
      } catch (err) {
        reject(err)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
        if (keepDumps !== null) fs.rmSync(`/tmp/perf-${child.pid}.map`, { force: true })
      }
    })
  })
}

/**
 * Moves a run's dumps, and V8's code map of the process (written by --perf-basic-prof), to `target`, with
 * `windows.json`: which dump holds which requests (read by functions.js).
 */
function keep (dir, target, pid, described) {
  fs.mkdirSync(target, { recursive: true })
  for (const file of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, file), path.join(target, file))
  fs.writeFileSync(path.join(target, 'windows.json'), JSON.stringify(described, null, 2) + '\n')
  const codeMap = `/tmp/perf-${pid}.map`
  if (fs.existsSync(codeMap)) fs.copyFileSync(codeMap, path.join(target, 'perf.map'))
}

/**
 * Counts every variant, `options.jobs` at a time; resolves to { variant: windows } in the variants' order.
 * When one fails, the others are stopped (through the signal `count` receives) and the first error is thrown.
 */
async function countAll (options, count) {
  const results = new Array(options.variants.length)
  const stop = new AbortController()
  let firstError = null
  let next = 0
  async function worker () {
    while (next < options.variants.length && !stop.signal.aborted) {
      const i = next++
      try {
        results[i] = await count(options.variants[i], stop.signal)
      } catch (err) {
        if (firstError === null) firstError = err
        stop.abort()
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, options.variants.length) }, worker))
  if (firstError !== null) throw firstError
  return Object.fromEntries(options.variants.map((variant, i) => [variant, results[i]]))
}

/**
 * Per variant and window: instructions per request, and the traced variants' excess over bare in the same
 * window; per timed segment (the excess over the segments a request passes), and for a variant that exports
 * spans, per span (its excess over the breakdown's, when the breakdown was counted too, over the spans sent).
 */
function summarize (countsByVariant) {
  const clientWindows = countsByVariant.client ?? null
  const rows = []
  for (const [variant, windows] of Object.entries(countsByVariant)) {
    const isBaseline = variant === baselineOf(variant)
    const bareWindows = countsByVariant[baselineOf(variant)]
    for (const [i, window] of windows.entries()) {
      const requests = window.to - window.from
      const bareWindow = bareWindows[i]
      const perRequest = window.instructions / requests
      const bare = bareWindow.instructions / requests
      const mutator = (window.instructions - window.gc - window.compile) / requests
      const bareMutator = (bareWindow.instructions - bareWindow.gc - bareWindow.compile) / requests
      const segments = windows.segmentsPerRequest ?? null
      const spans = windows.spansPerRequest ?? null
      // A span's cost is over the breakdown alone of the same app (nodebench-breakdown, real-breakdown).
      const breakdownVariant = variant.startsWith('real-') ? 'real-breakdown' : 'nodebench-breakdown'
      const breakdownWindows = countsByVariant[breakdownVariant] ?? null
      const spanVariant = !isBaseline && !NEST_VARIANTS.has(variant) && variant !== breakdownVariant
      const overBreakdown = breakdownWindows !== null && spanVariant
        ? perRequest - breakdownWindows[i].instructions / requests
        : null
      // The server alone: the count less the client's in the same window (Express variants, `client` counted).
      // (Not the real stack's: its responses are not the benchmark app's, nor then the client's work.)
      const client = clientWindows !== null && variant !== 'client' && !NEST_VARIANTS.has(variant) && !variant.startsWith('real-') ? clientWindows[i] : null
      const serverPerRequest = client === null ? null : perRequest - client.instructions / requests
      const clientMutator = client === null ? null : (client.instructions - client.gc - client.compile) / requests
      const serverMutator = client === null ? null : mutator - clientMutator
      const bareServer = client === null ? null : bare - client.instructions / requests
      const bareServerMutator = client === null ? null : bareMutator - clientMutator
      rows.push({
        segmentsPerRequest: segments,
        spansPerRequest: spans,
        perSegment: isBaseline || !segments ? null : (perRequest - bare) / segments,
        mutatorPerSegment: isBaseline || !segments ? null : (mutator - bareMutator) / segments,
        perSpan: overBreakdown === null || !spans ? null : overBreakdown / spans,
        variant,
        from: window.from,
        to: window.to,
        instructionsPerRequest: perRequest,
        gcPerRequest: window.gc / requests,
        compilePerRequest: window.compile / requests,
        mutatorPerRequest: mutator,
        overBare: isBaseline ? null : perRequest - bare,
        overBareShare: isBaseline ? null : (perRequest - bare) / bare,
        mutatorOverBare: isBaseline ? null : mutator - bareMutator,
        mutatorOverBareShare: isBaseline ? null : (mutator - bareMutator) / bareMutator,
        serverPerRequest,
        serverMutatorPerRequest: serverMutator,
        overBareServerShare: isBaseline || client === null ? null : (perRequest - bare) / bareServer,
        mutatorOverBareServerShare: isBaseline || client === null ? null : (mutator - bareMutator) / bareServerMutator
      })
    }
  }
  return rows
}

function signed (value) {
  return `${value >= 0 ? '+' : ''}${Math.round(value)}`
}

function renderRows (rows) {
  const lines = ['instructions per request: all | without GC and compiling (GC, compiling); excess over bare in the same window']
  for (const row of rows) {
    const window = `${row.from}-${row.to}`.padEnd(13)
    const all = String(Math.round(row.instructionsPerRequest)).padStart(9)
    const mutator = String(Math.round(row.mutatorPerRequest)).padStart(9)
    const split = `(${Math.round(row.gcPerRequest)}, ${Math.round(row.compilePerRequest)})`.padEnd(17)
    const extra = row.overBare === null
      ? ''
      : ` ${signed(row.overBare)} (${(row.overBareShare * 100).toFixed(1)}%) | ${signed(row.mutatorOverBare)} (${(row.mutatorOverBareShare * 100).toFixed(1)}%)`
    const perSegment = row.perSegment === null
      ? ''
      : `; per segment ${signed(row.perSegment)} | ${signed(row.mutatorPerSegment)} (${row.segmentsPerRequest.toFixed(1)} a request)`
    const perSpan = row.perSpan === null ? '' : `; per span over the breakdown ${signed(row.perSpan)} (${row.spansPerRequest.toFixed(2)} a request)`
    const server = row.serverPerRequest === null
      ? ''
      : `; server alone ${Math.round(row.serverPerRequest)} | ${Math.round(row.serverMutatorPerRequest)}` +
        (row.overBareServerShare === null
          ? ''
          : ` (over bare's server ${(row.overBareServerShare * 100).toFixed(1)}% | ${(row.mutatorOverBareServerShare * 100).toFixed(1)}%)`)
    lines.push(`${row.variant.padEnd(20)} ${window}${all} |${mutator} ${split}${extra}${perSegment}${perSpan}${server}${row.from === 0 ? ' start-up included' : ''}`.trimEnd())
  }
  return lines.join('\n')
}

async function main (options) {
  const log = (message) => process.stderr.write(message + '\n')
  const { valgrind, node } = await callgrindTools(options.node, log)
  log(`instructions: Node.js ${node.version}, checkpoints ${options.checkpoints.join(', ')}, variants ${options.variants.join(', ')}, ${options.jobs} at a time`)
  const counts = await countAll(options, (variant, signal) =>
    countWindows(valgrind, node.path, variant, options.checkpoints, log, signal, options.keepDumps,
      options.semiSpace ?? null, options.cacheSim ?? false, options.cacheLl ?? null))
  const rows = summarize(counts)
  if (options.json) {
    process.stdout.write(JSON.stringify({ schema: 1, node: node.version, checkpoints: options.checkpoints, rows }, null, 2) + '\n')
  } else {
    process.stdout.write(`Node.js ${node.version}\n${renderRows(rows)}\n`)
  }
}

if (require.main === module) runScript('instructions', parseArguments, main)

module.exports = { parseArguments, countAll, summarize, renderRows }
