'use strict'

// nodebench's own work per timed segment in CPU instructions, counted by valgrind's callgrind: segment-path.js
// (real router layers, records, the breakdown; no HTTP) run for two numbers of requests after the same warm-up,
// bare and with nodebench. The difference between the two runs of a variant is the instructions of the requests
// between them, start-up and warm-up cancelled exactly; the difference between the variants is nodebench's.
//
//   node benchmarks/segment-instructions.js [--node 24] [--layers 11] [--warmup 30000] [--requests 20000,60000]
//                                          [--keep-dumps dir] [--semi-space MB] [--json]
//
// Every figure is split as instructions.js splits them: garbage collection and compiling apart from the
// program's own work (the mutator), since one more scavenge in a window moves a total by 5-10%. The four runs go
// two at a time; under callgrind each takes a few minutes. --semi-space fixes the young generation at that size
// in every run (as instructions.js's): unfixed, V8 sizes it by what survived, and a variant that allocates less can
// still run more scavenges in the window than one that allocates more.
//
// --keep-dumps keeps each run's dump and V8's code map (<dir>/<variant>-<requests>/), described for functions.js
// as one window of the requests between the two runs, so that nodebench's own functions are read one by one:
//   node benchmarks/functions.js --dumps dir --variant nodebench-60000 --baseline nodebench-20000
// (the larger run over the smaller: one request's self cost by function, start-up and warm-up cancelled).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { execFile } = require('node:child_process')
const { callgrindCounts } = require('@nodebench/services')
const { callgrindTools, runScript } = require('./harness')

const SEGMENT_PATH = path.join(__dirname, 'segment-path.js')
const RUN_TIMEOUT_MS = 60 * 60 * 1000

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      node: { type: 'string' },
      layers: { type: 'string', default: '11' },
      warmup: { type: 'string', default: '30000' },
      requests: { type: 'string', default: '20000,60000' },
      'keep-dumps': { type: 'string' },
      'semi-space': { type: 'string' },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  const whole = (name, text, min) => {
    const value = Number(text)
    if (!Number.isInteger(value) || value < min) throw new TypeError(`--${name} must be a whole number of at least ${min}; received ${text}`)
    return value
  }
  const requests = values.requests.split(',').map((text) => whole('requests', text, 1))
  if (requests.length !== 2 || requests[0] >= requests[1]) {
    throw new TypeError(`--requests must be two request counts, the smaller first (e.g. 20000,60000); received ${values.requests}`)
  }
  const keepDumps = values['keep-dumps'] === undefined ? null : path.resolve(values['keep-dumps'])
  const semiSpace = values['semi-space'] === undefined ? null : whole('semi-space', values['semi-space'], 1)
  return {
    node: values.node ?? null, layers: whole('layers', values.layers, 1), warmup: whole('warmup', values.warmup, 0), requests, keepDumps, semiSpace, json: values.json
  }
}

/** One callgrind run of segment-path.js; resolves to its dump's { total, gc, compile }. */
function countRun (valgrind, nodePath, { variant, layers, warmup, requests, keepDumps, semiSpace, window }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-segment-'))
  const outFile = path.join(dir, 'callgrind.out')
  const args = ['--tool=callgrind', `--callgrind-out-file=${outFile}`, '--dump-instr=no', '--cache-sim=no', '--branch-sim=no',
    nodePath, '--single-threaded', ...(keepDumps === null ? [] : ['--perf-basic-prof']),
    ...(semiSpace === null ? [] : [`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`]), SEGMENT_PATH, '--variant', variant, '--layers', String(layers), '--requests', String(requests),
    '--warmup', String(warmup)]
  return new Promise((resolve, reject) => {
    const child = execFile(valgrind, args, { timeout: RUN_TIMEOUT_MS, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const codeMap = `/tmp/perf-${child.pid}.map`
      if (err) {
        fs.rmSync(dir, { recursive: true, force: true })
        fs.rmSync(codeMap, { force: true })
        return reject(new Error(`segment-path.js --variant ${variant} --requests ${requests} under callgrind failed: ${err.message} ${stderr.slice(-400)}`))
      }
      if (keepDumps !== null) keepRun(outFile, codeMap, path.join(keepDumps, `${variant}-${requests}`), { variant, layers, window })
      callgrindCounts(outFile).then(resolve, reject).finally(() => {
        fs.rmSync(dir, { recursive: true, force: true })
        fs.rmSync(codeMap, { force: true })
      })
    })
  })
}

/**
 * A run's dump and code map in `target`, with the windows.json functions.js reads: both runs of a variant are
 * described as the same window (the requests between them), which the larger run's dump less the smaller's is.
 */
function keepRun (outFile, codeMap, target, { variant, layers, window }) {
  fs.mkdirSync(target, { recursive: true })
  fs.copyFileSync(outFile, path.join(target, 'callgrind.out'))
  if (fs.existsSync(codeMap)) fs.copyFileSync(codeMap, path.join(target, 'perf.map'))
  const described = {
    variant,
    segmentsPerRequest: variant === 'bare' ? null : layers,
    spansPerRequest: null,
    windows: [{ file: 'callgrind.out', from: 0, to: window }]
  }
  fs.writeFileSync(path.join(target, 'windows.json'), JSON.stringify(described, null, 2) + '\n')
}

/** Per request and per segment, for each variant and nodebench's difference: all, mutator, gc, compile. */
function summarize ({ layers, requests: [from, to] }, counts) {
  const perRequest = (variant) => {
    const [a, b] = [counts[`${variant}-${from}`], counts[`${variant}-${to}`]]
    const per = (key) => (b[key] - a[key]) / (to - from)
    return { all: per('total'), mutator: per('total') - per('gc') - per('compile'), gc: per('gc'), compile: per('compile') }
  }
  const bare = perRequest('bare')
  const nodebench = perRequest('nodebench')
  const added = Object.fromEntries(Object.keys(bare).map((key) => [key, nodebench[key] - bare[key]]))
  const perSegment = Object.fromEntries(Object.entries(added).map(([key, value]) => [key, value / layers]))
  return { bare, nodebench, added, perSegment }
}

function render (summary, { layers, requests: [from, to] }, node) {
  const cells = (row) => ['all', 'mutator', 'gc', 'compile'].map((key) => Math.round(row[key]).toLocaleString('en-US').padStart(10)).join('')
  return [
    `Node.js ${node}: instructions per request of ${layers} layers, requests ${from} to ${to}`,
    `${''.padEnd(26)}${['all', 'mutator', 'gc', 'compile'].map((key) => key.padStart(10)).join('')}`,
    `${'bare'.padEnd(26)}${cells(summary.bare)}`,
    `${'nodebench'.padEnd(26)}${cells(summary.nodebench)}`,
    `${'added per request'.padEnd(26)}${cells(summary.added)}`,
    `${'added per segment'.padEnd(26)}${cells(summary.perSegment)}`
  ].join('\n')
}

async function main (options) {
  const log = (message) => process.stderr.write(message + '\n')
  const { valgrind, node } = await callgrindTools(options.node, log)
  const runs = ['bare', 'nodebench'].flatMap((variant) => options.requests.map((requests) => ({ variant, requests })))
  const counts = {}
  // Two at a time: a count does not depend on what else runs, only the wall time does.
  for (let i = 0; i < runs.length; i += 2) {
    const pair = runs.slice(i, i + 2)
    log(`segment-instructions: Node.js ${node.version}, ${pair.map((run) => `${run.variant} ${run.requests}`).join(' and ')} under callgrind`)
    const window = options.requests[1] - options.requests[0]
    const results = await Promise.all(pair.map((run) => countRun(valgrind, node.path, { ...options, ...run, window })))
    pair.forEach((run, index) => { counts[`${run.variant}-${run.requests}`] = results[index] })
  }
  const summary = summarize(options, counts)
  if (options.json) {
    process.stdout.write(JSON.stringify({ schema: 1, node: node.version, layers: options.layers, requests: options.requests, ...summary }, null, 2) + '\n')
  } else {
    process.stdout.write(render(summary, options, node.version) + '\n')
  }
}

if (require.main === module) runScript('segment-instructions', parseArguments, main)

module.exports = { parseArguments, summarize }
