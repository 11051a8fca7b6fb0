#!/usr/bin/env node
'use strict'

// What a variant makes survive the young generation's collections, counted over a fixed number of requests
// rather than a time window: the bytes each scavenge copied (survived) and moved to the old generation (promoted),
// read from V8's own trace (--trace-gc-nvp) of the app, per request, bare and traced. cpu-split.js reads the same
// from v8.GCProfiler over 8 seconds beside a bare app; there the figure moves with the machine's load and with how
// far into the process's life the window falls (issue 51, benchmarks/LOG.md "What survives a scavenge, counted").
//
// Each round runs every app of the plan one at a time (bare first, then the variant, then the other way round in
// the next round), each in a fresh process: `--warmup` requests, then `--requests` counted ones, each batch from
// autocannon with `--connections` connections.
//
//   node benchmarks/cpu-split-promoted.js --node 24 [--variants real-breakdown] [--rounds 3] [--warmup 20000]
//                                         [--requests 60000] [--connections 50] [--semi-space default,64]
//                                         [--single-threaded-gc] [--json]

const path = require('node:path')
const { parseArgs } = require('node:util')
const autocannon = require('autocannon')
const { spawnServer, stopServer } = require('./child-server')
const { median, positiveInteger, nodeUnderTest, runScript } = require('./harness')

const APP_SCRIPT = path.join(__dirname, 'app.js')
const ROUTE = '/api/items/42'
const BASELINE_OF = Object.freeze({
  'real-breakdown': 'real-bare',
  'real-clock': 'real-bare',
  'nodebench-breakdown': 'bare',
  'bare-clock': 'bare'
})
// V8 prints a collection's line once it is over; the counted batch's last lines may follow autocannon's end.
const SETTLE_MS = 300
const MAX_SEMI_SPACE_MB = 1024

const USAGE = `Usage: node benchmarks/cpu-split-promoted.js [options]

  --variants <list>       of ${Object.keys(BASELINE_OF).join(', ')} (default real-breakdown); each counted with
                          its app bare (real-bare, bare)
  --semi-space <list>     young generation sizes, each a configuration: default (V8's own sizing) or MB fixed with
                          --min- and --max-semi-space-size (default: default,64)
  --rounds <n>            rounds (default 3)
  --warmup <n>            requests before the counted ones (default 20000; V8 grows the young generation over
                          the first ones, and what survives while it grows is no steady state)
  --requests <n>          counted requests (default 60000)
  --connections <n>       autocannon connections (default 50)
  --single-threaded-gc    the apps' collections on the main thread only (V8's --single-threaded-gc)
  --node <version>        the apps' Node.js (24, 24.22.3; from the npm registry, cached)
  --json                  results as JSON on stdout
  -h, --help              show this help`

/** Turns argv into validated options; throws a TypeError naming the bad argument. */
function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      variants: { type: 'string', default: 'real-breakdown' },
      'semi-space': { type: 'string', default: 'default,64' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '20000' },
      requests: { type: 'string', default: '60000' },
      connections: { type: 'string', default: '50' },
      'single-threaded-gc': { type: 'boolean', default: false },
      node: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false }
    }
  })
  const variants = values.variants.split(',').map((name) => name.trim())
  for (const variant of variants) {
    if (!(variant in BASELINE_OF)) {
      throw new TypeError(`--variants takes ${Object.keys(BASELINE_OF).join(', ')}; received ${JSON.stringify(variant)}`)
    }
  }
  const semiSpaces = values['semi-space'].split(',').map((size) => {
    if (size === 'default') return null
    const mb = Number(size)
    if (!Number.isInteger(mb) || mb < 1 || mb > MAX_SEMI_SPACE_MB) {
      throw new TypeError(`--semi-space takes default or MB from 1 to ${MAX_SEMI_SPACE_MB}; received ${JSON.stringify(size)}`)
    }
    return mb
  })
  const connections = positiveInteger('connections', values.connections)
  const warmup = positiveInteger('warmup', values.warmup)
  const requests = positiveInteger('requests', values.requests)
  if (warmup < connections || requests < connections) {
    throw new TypeError(`--warmup and --requests must be at least --connections (${connections}); received ${warmup} and ${requests}`)
  }
  return Object.freeze({
    variants,
    semiSpaces,
    rounds: positiveInteger('rounds', values.rounds),
    warmup,
    requests,
    connections,
    singleThreadedGc: values['single-threaded-gc'],
    node: values.node ?? null,
    json: values.json,
    help: values.help
  })
}

/** One line of --trace-gc-nvp (`name=value` pairs) as an object, or null for any other line. */
function parseNvpLine (line) {
  if (!line.includes(' gc=')) return null
  const fields = {}
  for (const pair of line.split(' ')) {
    const equals = pair.indexOf('=')
    if (equals > 0) fields[pair.slice(0, equals)] = pair.slice(equals + 1)
  }
  return fields
}

/**
 * The counted collections per request: scavenges and full collections per 1,000 requests, bytes a request that
 * the scavenges found allocated, copied (survived) and promoted, and the median a scavenge (KB).
 */
function summarizeNvp (collections, requests) {
  const scavenges = collections.filter((fields) => fields.gc === 's')
  const sum = (name) => scavenges.reduce((total, fields) => total + Number(fields[name] ?? 0), 0)
  const kilobytes = (name) => median(scavenges.map((fields) => Number(fields[name] ?? 0) / 1024))
  return {
    requests,
    scavengesPer1000: scavenges.length * 1000 / requests,
    fullPer1000: collections.filter((fields) => fields.gc === 'mc').length * 1000 / requests,
    allocatedBytes: sum('allocated') / requests,
    survivedBytes: sum('new_space_survived') / requests,
    promotedBytes: sum('promoted') / requests,
    survivedKbAScavenge: kilobytes('new_space_survived'),
    promotedKbAScavenge: kilobytes('promoted'),
    // Node.js 24's V8 prints each semi-space's capacity; Node.js 20's does not.
    semiSpaceMB: scavenges.length === 0 || scavenges.at(-1).new_space_capacity === undefined
      ? null
      : Number(scavenges.at(-1).new_space_capacity) / 1048576
  }
}

function load (url, amount, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url: url + ROUTE, connections, amount }, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

/** One app in a fresh process: the warm-up, then the counted requests and the collections V8 traced in them. */
async function countApp (variant, semiSpace, options, context) {
  const execArgv = ['--trace-gc-nvp']
  if (semiSpace !== null) execArgv.push(`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`)
  if (options.singleThreadedGc) execArgv.push('--single-threaded-gc')
  const collections = []
  const onLine = (line) => {
    const fields = parseNvpLine(line)
    if (fields !== null) collections.push(fields)
  }
  const env = { ...process.env }
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_')) delete env[key]
  const handle = spawnServer(APP_SCRIPT, ['--variant', variant, '--port', '0'], {
    env, execArgv, name: `app ${variant}`, log: context.log, nodePath: context.nodePath, onLine
  })
  try {
    const url = await handle.listening
    await load(url, options.warmup, options.connections)
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
    const from = collections.length
    const result = await load(url, options.requests, options.connections)
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`app ${variant}: ${result.non2xx} answers not 2xx, ${result.errors} errors`)
    return summarizeNvp(collections.slice(from), result.requests.total)
  } finally {
    await stopServer(handle, context.log)
  }
}

const FIGURES = ['promotedBytes', 'survivedBytes', 'allocatedBytes', 'scavengesPer1000', 'fullPer1000', 'promotedKbAScavenge', 'survivedKbAScavenge', 'semiSpaceMB']

/** Per configuration and variant: each figure's median (and range) over the rounds, bare's and the variant's. */
function summarize (runs) {
  const rows = []
  for (const key of new Set(runs.map((run) => `${run.semiSpace}|${run.pairedWith}`))) {
    const mine = runs.filter((run) => `${run.semiSpace}|${run.pairedWith}` === key)
    const variant = mine[0].pairedWith
    const figures = {}
    for (const name of FIGURES) {
      const of = (app) => mine.filter((run) => run.app === app).map((run) => run.counts[name])
      const bare = of(BASELINE_OF[variant])
      const own = of(variant)
      figures[name] = {
        bare: median(bare),
        variant: median(own),
        over: median(own) - median(bare),
        bareRange: [Math.min(...bare), Math.max(...bare)],
        variantRange: [Math.min(...own), Math.max(...own)]
      }
    }
    const rounds = mine.length / 2
    rows.push({ semiSpace: mine[0].semiSpace, variant, baseline: BASELINE_OF[variant], rounds, figures })
  }
  return rows
}

const format = (value, digits = 1) => (value === null || value === undefined ? '-' : value.toFixed(digits))

/** The report: per configuration and variant, every figure bare and variant (median, range over the rounds). */
function render (rows, options) {
  const lines = [`${options.requests} counted requests after ${options.warmup}, ${options.connections} connections` +
    `${options.singleThreadedGc ? ', --single-threaded-gc' : ''}`]
  for (const row of rows) {
    const config = row.semiSpace === null ? 'V8 default young generation' : `semi-spaces fixed at ${row.semiSpace} MB`
    lines.push(`${row.variant} and ${row.baseline}, ${config}: ${row.rounds} rounds`)
    lines.push('  figure                  bare (range)                  variant (range)               over bare')
    for (const [name, { bare, variant, over, bareRange, variantRange }] of Object.entries(row.figures)) {
      const withRange = (value, [low, high]) => `${format(value)} (${format(low)}-${format(high)})`.padEnd(30)
      lines.push(`  ${name.padEnd(22)}  ${withRange(bare, bareRange)}${withRange(variant, variantRange)}${format(over).padStart(9)}`)
    }
    lines.push('')
  }
  lines.push('Bytes a request (allocated: what the scavenges found allocated), collections per 1,000 requests, KB a ' +
    'scavenge (median); from V8\'s --trace-gc-nvp.')
  return lines.join('\n')
}

async function main (options) {
  if (options.help) {
    process.stdout.write(`${USAGE}\n`)
    return null
  }
  const log = (line) => process.stderr.write(`${line}\n`)
  const node = await nodeUnderTest(options.node, log)
  const context = { log, nodePath: node.path }
  const runs = []
  for (let round = 1; round <= options.rounds; round++) {
    for (const semiSpace of options.semiSpaces) {
      for (const variant of options.variants) {
        const apps = round % 2 === 1 ? [BASELINE_OF[variant], variant] : [variant, BASELINE_OF[variant]]
        for (const app of apps) {
          log(`round ${round}/${options.rounds}: ${app}, young generation ${semiSpace ?? 'default'}`)
          const counts = await countApp(app, semiSpace, options, context)
          runs.push({ round, semiSpace, pairedWith: variant, app, counts })
        }
      }
    }
  }
  const rows = summarize(runs)
  const report = { node: node.version, options, rows, runs }
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  else process.stdout.write(`Node.js ${node.version}\n${render(rows, options)}\n`)
  return report
}

if (require.main === module) runScript('cpu-split-promoted', parseArguments, main)

module.exports = { parseArguments, parseNvpLine, summarizeNvp, summarize, render, main }
