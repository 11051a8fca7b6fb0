#!/usr/bin/env node
'use strict'

// Where the CPU a traced app spends over its bare self goes. Each round runs every variant beside a fresh bare
// app of the same kind (paired, as overhead.js --paired: started, warmed up and measured at the same time, each
// driven by its own autocannon process), for each young-generation size asked, in an order rotated from round to
// round. Over the measured window of each app (cpu-split-probe.js opens and closes it) it reads:
//
// - the CPU of every thread, from /proc/<pid>/task/*/stat and comm, by kind: the main thread, V8's workers
//   (V8Worker: concurrent marking, parallel scavenging, compiling in the background; "node" before Node.js 24),
//   libuv's pool (libuv-worker), the others, and threads that exited in the window; each user and system; and the
//   process's page faults;
// - with --profile, the main thread sampled by V8's profiler, split into the collector, nodebench's own functions
//   (middleware/lib, packages/*/lib), the app's packages (node_modules), the benchmark app's own code, Node.js's
//   internals (node:*), native functions, V8's unattributed work ("(program)") and idle;
// - every collection (kind, count, ms; for scavenges the bytes that survived and the bytes promoted);
// - with --deopts, V8's deoptimizations (--trace-deopt), by function and reason.
//
// Each figure is given per request and per timed segment as the variant's less the bare app's beside it, round by
// round, then the median.
//
//   node benchmarks/cpu-split.js --node 24 [--rounds 3] [--duration 8] [--warmup 15] [--connections 50]
//                                [--variants real-breakdown,real-clock] [--semi-space default,16,64]
//                                [--profile] [--deopts] [--json]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { spawnServer, stopServer } = require('./child-server')
const { median, positiveInteger, nodeUnderTest, runScript } = require('./harness')
const { loadTestInChild } = require('./overhead')
const {
  THREAD_KINDS, readThreads, cpuByKind, faultsBetween, profileCpu, splitProfile, countDeopts, readFrom, fileSize
} = require('./cpu-split-read')

const APP_SCRIPT = path.join(__dirname, 'app.js')
const PROBE_SCRIPT = path.join(__dirname, 'cpu-split-probe.js')
// overhead.js's route of the Express apps (the benchmark app's and the real stack's JSON route).
const ROUTE = Object.freeze({ path: '/api/items/42', headers: {} })
const PROBE_TIMEOUT_MS = 20000
// What each variant is measured against, beside it; exporting variants are left out (a span's cost is another
// question, and a sink would take the machine's CPU too).
const BASELINE_OF = Object.freeze({
  'real-breakdown': 'real-bare',
  'real-clock': 'real-bare',
  'real-clock-return': 'real-bare',
  'real-context': 'real-bare',
  'nodebench-breakdown': 'bare',
  'bare-clock': 'bare'
})

const USAGE = `Usage: node benchmarks/cpu-split.js [options]

  --variants <list>     of ${Object.keys(BASELINE_OF).join(', ')} (default real-breakdown,real-clock);
                        each runs beside its app bare (real-bare, bare)
  --semi-space <list>   young generation sizes, each a configuration: default (V8's own sizing), MB fixed with
                        --min- and --max-semi-space-size in both apps, or max<MB>: --max-semi-space-size alone
                        (default: default)
  --rounds <n>          rounds (default 3)
  --duration <s>        measured seconds a run (default 8)
  --warmup <s>          unmeasured seconds before (default 15: in a process's first seconds under load more
                        survives each scavenge, whatever the young generation's size; on the real stack a window
                        after 2 s promoted ~5x the bytes a request of one after 15 s, the breakdown more so)
  --connections <n>     autocannon connections an app (default 50)
  --node <version>      the apps' Node.js (24, 24.22.3; from the npm registry, cached)
  --profile             sample the main thread in the window (V8's profiler, 1 ms) and split it
  --deopts              count deoptimizations in the window (--trace-deopt)
  --json                results as JSON on stdout
  -h, --help            show this help`

/** Turns argv into validated options; throws a TypeError naming the bad argument. */
function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      variants: { type: 'string', default: 'real-breakdown,real-clock' },
      'semi-space': { type: 'string', default: 'default' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '15' },
      connections: { type: 'string', default: '50' },
      node: { type: 'string' },
      profile: { type: 'boolean', default: false },
      deopts: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false }
    },
    strict: true
  })
  const variants = values.variants.split(',').map((name) => name.trim()).filter((name) => name !== '')
  if (variants.length === 0) throw new TypeError('--variants must name at least one variant')
  for (const variant of variants) {
    if (BASELINE_OF[variant] === undefined) {
      throw new TypeError(`--variants: ${JSON.stringify(variant)} is not one of ${Object.keys(BASELINE_OF).join(', ')}`)
    }
  }
  // A number fixes the young generation; `max<MB>` only caps it (all NODE_OPTIONS allows), V8 still growing it.
  const semiSpaces = values['semi-space'].split(',').map((size) => size.trim()).map((size) => {
    if (size === 'default') return null
    const capped = size.startsWith('max')
    const mb = Number(capped ? size.slice(3) : size)
    if (!Number.isInteger(mb) || mb < 1 || mb > 256) {
      throw new TypeError(`--semi-space takes "default", whole MB from 1 to 256, or max<MB>; received ${JSON.stringify(size)}`)
    }
    return capped ? `max${mb}` : mb
  })
  if (values.node !== undefined && !/^\d+(\.\d+){0,2}$/.test(values.node)) {
    throw new TypeError(`--node must be a Node.js version or line such as 24 or 24.22.3; received ${JSON.stringify(values.node)}`)
  }
  return {
    variants,
    semiSpaces,
    rounds: positiveInteger('rounds', values.rounds),
    durationSeconds: positiveInteger('duration', values.duration),
    warmupSeconds: Number(values.warmup) === 0 ? 0 : positiveInteger('warmup', values.warmup),
    connections: positiveInteger('connections', values.connections),
    node: values.node ?? null,
    profile: values.profile,
    deopts: values.deopts,
    json: values.json,
    help: values.help
  }
}

/** One app with the probe loaded: its process, and a way to wait for the probe's next line. */
function startApp (variant, tag, semiSpace, options, context) {
  const files = {
    profile: path.join(context.dir, `${tag}.cpuprofile`),
    deopts: path.join(context.dir, `${tag}.deopts.txt`)
  }
  const execArgv = ['--require', PROBE_SCRIPT]
  if (typeof semiSpace === 'number') execArgv.push(`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`)
  if (typeof semiSpace === 'string') execArgv.push(`--max-semi-space-size=${semiSpace.slice(3)}`)
  if (options.deopts) execArgv.push('--trace-deopt', '--redirect-code-traces', `--redirect-code-traces-to=${files.deopts}`)
  const env = { ...process.env, NB_CPU_SPLIT_PROFILE: options.profile ? '1' : '0', NB_CPU_SPLIT_PROFILE_PATH: files.profile }
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_')) delete env[key]
  const waiting = []
  const onLine = (line) => {
    if (!line.startsWith('cpu-split ')) return
    const next = waiting.shift()
    if (next !== undefined) next(line.slice('cpu-split '.length))
  }
  const handle = spawnServer(APP_SCRIPT, ['--variant', variant, '--port', '0'], {
    env, execArgv, name: `app ${variant}`, log: context.log, nodePath: context.nodePath, onLine
  })
  /** Sends SIGUSR2 and resolves with the probe's answer (bounded). */
  handle.signalProbe = () => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app ${variant}: the probe did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS)
    waiting.push((text) => {
      clearTimeout(timer)
      if (text.startsWith('failed')) reject(new Error(`app ${variant}: the probe ${text}`))
      else resolve(text)
    })
    handle.child.kill('SIGUSR2')
  })
  handle.files = files
  return handle
}

/** One round's run of `variant` beside its app bare, both with the young generation `semiSpace`. */
async function measurePair (variant, semiSpace, round, options, context) {
  const names = [BASELINE_OF[variant], variant]
  const config = semiSpace === null ? 'default' : `${semiSpace}MB`
  const apps = names.map((name, i) => startApp(name, `r${round}-${config}-${variant}-${i === 0 ? 'bare' : 'variant'}`, semiSpace, options, context))
  const loadAverage = os.loadavg()[0]
  try {
    const urls = await Promise.all(apps.map((app) => app.listening))
    if (options.warmupSeconds > 0) {
      await Promise.all(urls.map((url) => loadTestInChild(url, ROUTE, options.connections, options.warmupSeconds)))
    }
    await Promise.all(apps.map((app) => app.signalProbe()))
    const deoptOffsets = apps.map((app) => fileSize(app.files.deopts))
    const before = apps.map((app) => readThreads(app.child.pid))
    const { connections, durationSeconds } = options
    const results = await Promise.all(urls.map((url) => loadTestInChild(url, ROUTE, connections, durationSeconds)))
    const after = apps.map((app) => readThreads(app.child.pid))
    const probes = await Promise.all(apps.map((app) => app.signalProbe()))
    return names.map((name, i) => {
      const probe = JSON.parse(probes[i])
      const requests = results[i].requests.total
      return {
        variant: name,
        pairedWith: variant,
        round,
        semiSpace,
        loadAverage,
        requests,
        requestsPerSec: results[i].requests.average,
        cpu: before[i] !== null && after[i] !== null ? cpuByKind(before[i], after[i]) : null,
        faults: before[i] !== null && after[i] !== null ? faultsBetween(before[i], after[i]) : null,
        collections: probe.collections,
        profile: probe.profiled ? splitProfile(JSON.parse(fs.readFileSync(apps[i].files.profile, 'utf8'))) : null,
        deopts: options.deopts ? countDeopts(readFrom(apps[i].files.deopts, deoptOffsets[i])) : null
      }
    })
  } finally {
    const stops = await Promise.all(apps.map((app) => stopServer(app, context.log)))
    stops.forEach((stop, i) => {
      if (stop.code !== 0 && !stop.killed) context.log(`  app ${names[i]} exited with code ${stop.code}`)
    })
  }
}

/**
 * One run's figures per request (µs of CPU, ms of collection per 1,000 requests, ...): flat, so that a variant's
 * less its bare app's is taken figure by figure.
 */
function perRequest (run) {
  const figures = {}
  const micros = (seconds) => seconds * 1e6 / run.requests
  if (run.cpu !== null) {
    let total = 0
    for (const kind of THREAD_KINDS) {
      figures[`cpu.${kind}.user`] = micros(run.cpu[kind].user)
      figures[`cpu.${kind}.system`] = micros(run.cpu[kind].system)
      figures[`cpu.${kind}`] = micros(run.cpu[kind].user + run.cpu[kind].system)
      total += run.cpu[kind].user + run.cpu[kind].system
    }
    figures['cpu.total'] = micros(total)
  }
  if (run.faults != null) {
    figures['faults.minor'] = run.faults.minor / run.requests
    figures['faults.major'] = run.faults.major / run.requests
  }
  if (run.profile !== null && run.cpu !== null) {
    const { byGroup, busyShare } = profileCpu(run)
    for (const [group, micros] of Object.entries(byGroup)) figures[`main.${group}`] = micros
    figures['main.sampledBusyShare'] = busyShare
  }
  for (const [kind, { count, ms }] of Object.entries(run.collections.byKind)) {
    figures[`gc.${kind}.per1000`] = count * 1000 / run.requests
    figures[`gc.${kind}.msPer1000`] = ms * 1000 / run.requests
  }
  figures['gc.survivedBytes'] = run.collections.survivedBytes / run.requests
  figures['gc.promotedBytes'] = run.collections.promotedBytes / run.requests
  if (run.collections.youngGenerationBytes != null) figures['gc.youngGenerationMB'] = run.collections.youngGenerationBytes / 1048576
  if (run.deopts !== null) figures['deopts.per1000'] = run.deopts.total * 1000 / run.requests
  return figures
}

/**
 * Per configuration and variant: each figure's median over the rounds, bare's and the variant's, and the median
 * of their paired difference (the variant's less the bare app's beside it in the same round); per segment too.
 */
function summarize (runs, segmentsOf) {
  const rows = []
  const keys = new Set(runs.map((run) => `${run.semiSpace}|${run.pairedWith}`))
  for (const key of keys) {
    const pairs = runs.filter((run) => `${run.semiSpace}|${run.pairedWith}` === key)
    const variant = pairs[0].pairedWith
    const rounds = [...new Set(pairs.map((run) => run.round))]
    const bareFigures = []
    const ownFigures = []
    for (const round of rounds) {
      const bare = pairs.find((run) => run.round === round && run.variant !== variant)
      const own = pairs.find((run) => run.round === round && run.variant === variant)
      if (bare !== undefined && own !== undefined) {
        bareFigures.push(perRequest(bare))
        ownFigures.push(perRequest(own))
      }
    }
    const names = [...new Set([...bareFigures, ...ownFigures].flatMap(Object.keys))].sort()
    const figures = {}
    for (const name of names) {
      const bare = bareFigures.map((figure) => figure[name] ?? 0)
      const own = ownFigures.map((figure) => figure[name] ?? 0)
      const over = own.map((value, i) => value - bare[i])
      figures[name] = { bare: median(bare), variant: median(own), over: median(over), overByRound: over }
    }
    const segments = segmentsOf(variant)
    rows.push({
      semiSpace: pairs[0].semiSpace,
      variant,
      baseline: BASELINE_OF[variant],
      rounds: bareFigures.length,
      segmentsPerRequest: segments,
      loadAverages: pairs.filter((run) => run.variant === variant).map((run) => run.loadAverage),
      figures,
      deoptsByFunction: deoptsOver(pairs, variant),
      functions: functionsOver(pairs, variant)
    })
  }
  return rows
}

/**
 * The sampled main thread by function, µs of CPU a request (profileCpu): per function the median over the rounds of
 * the variant's less the bare app's beside it; the 25 that differ most, and nodebench's own functions' sum.
 */
function functionsOver (pairs, variant) {
  const rounds = [...new Set(pairs.map((run) => run.round))]
  const differences = new Map()
  for (const round of rounds) {
    const bare = pairs.find((run) => run.round === round && run.variant !== variant)
    const own = pairs.find((run) => run.round === round && run.variant === variant)
    if (bare?.profile == null || own?.profile == null || bare.cpu === null || own.cpu === null) continue
    const bareFunctions = profileCpu(bare).byFunction
    const ownFunctions = profileCpu(own).byFunction
    for (const name of new Set([...Object.keys(bareFunctions), ...Object.keys(ownFunctions)])) {
      const group = (ownFunctions[name] ?? bareFunctions[name]).group
      const entry = differences.get(name) ?? { group, over: [] }
      entry.over.push((ownFunctions[name]?.micros ?? 0) - (bareFunctions[name]?.micros ?? 0))
      differences.set(name, entry)
    }
  }
  if (differences.size === 0) return null
  // A function sampled in some rounds only counts 0 in the others.
  const medians = [...differences].map(([name, { group, over }]) =>
    ({ name, group, over: median([...over, ...new Array(Math.max(0, rounds.length - over.length)).fill(0)]) }))
  return medians.sort((a, b) => Math.abs(b.over) - Math.abs(a.over)).slice(0, 25)
}

/** Deoptimizations by function summed over the rounds, the variant's and bare's, per 1,000 requests. */
function deoptsOver (pairs, variant) {
  const sums = {}
  for (const run of pairs) {
    if (run.deopts === null) continue
    const side = run.variant === variant ? 'variant' : 'bare'
    for (const [name, count] of Object.entries(run.deopts.byFunction)) {
      const entry = sums[name] ?? (sums[name] = { bare: 0, variant: 0 })
      entry[side] += count * 1000 / run.requests / (pairs.length / 2)
    }
  }
  return Object.entries(sums).sort((a, b) => (b[1].variant + b[1].bare) - (a[1].variant + a[1].bare)).slice(0, 15)
}

const format = (value, digits = 2) => (value === null || value === undefined ? '-' : value.toFixed(digits))

/** The report: per configuration and variant, every figure bare / variant / over bare (a request, a segment). */
function render (rows) {
  const lines = []
  for (const row of rows) {
    const config = row.semiSpace === null
      ? 'V8 default young generation'
      : typeof row.semiSpace === 'string'
        ? `semi-spaces of at most ${row.semiSpace.slice(3)} MB (--max-semi-space-size only)`
        : `semi-spaces fixed at ${row.semiSpace} MB`
    lines.push(`${row.variant} beside ${row.baseline}, ${config}: ${row.rounds} paired rounds, ` +
      `load average ${row.loadAverages.map((load) => load.toFixed(1)).join(', ')}`)
    lines.push('  figure                         bare       variant    over bare  a segment (ns)  by round')
    for (const [name, { bare, variant, over, overByRound }] of Object.entries(row.figures)) {
      const perSegment = name.startsWith('cpu.') || name.startsWith('main.') ? format(over * 1000 / row.segmentsPerRequest, 0) : ''
      lines.push(`  ${name.padEnd(30)} ${format(bare).padStart(10)} ${format(variant).padStart(10)} ${format(over).padStart(10)}  ` +
        `${perSegment.padStart(14)}  ${overByRound.map((value) => format(value, 1)).join(' ')}`)
    }
    if (row.functions !== null) {
      lines.push('  the main thread by function, µs of CPU a request over bare (sampled; median of the rounds):')
      for (const { name, group, over } of row.functions) lines.push(`    ${format(over).padStart(8)}  ${group.padEnd(9)} ${name}`)
    }
    if (row.deoptsByFunction.length > 0) {
      lines.push('  deoptimizations per 1,000 requests (bare / variant):')
      for (const [name, { bare, variant }] of row.deoptsByFunction) lines.push(`    ${format(bare)} / ${format(variant)}  ${name}`)
    }
    lines.push('')
  }
  lines.push('CPU figures are µs a request (cpu.*: /proc, by thread kind; main.*: the main thread sampled), gc.* counts ' +
    'and ms per 1,000 requests, bytes a request; "over bare" is the median of the paired differences.')
  return lines.join('\n')
}

/** The timed segments a request of the variant's app: 9 on the real stack, 11 on the benchmark app. */
function segmentsOf (variant) {
  return variant.startsWith('real-') ? 9 : 11
}

async function main (options) {
  if (options.help) {
    process.stdout.write(`${USAGE}\n`)
    return null
  }
  const log = (line) => process.stderr.write(`${line}\n`)
  const node = await nodeUnderTest(options.node, log)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-cpu-split-'))
  const context = { log, nodePath: node.path, dir }
  const plan = options.semiSpaces.flatMap((semiSpace) => options.variants.map((variant) => ({ semiSpace, variant })))
  const runs = []
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const shift = (round - 1) % plan.length
      for (const { semiSpace, variant } of [...plan.slice(shift), ...plan.slice(0, shift)]) {
        log(`round ${round}/${options.rounds}: ${variant} beside ${BASELINE_OF[variant]}, young generation ${semiSpace ?? 'default'} ` +
          `(load average ${os.loadavg()[0].toFixed(1)})`)
        runs.push(...await measurePair(variant, semiSpace, round, options, context))
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const rows = summarize(runs, segmentsOf)
  const report = { node: node.version, options, rows }
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  else process.stdout.write(`Node.js ${node.version}\n${render(rows)}\n`)
  return report
}

if (require.main === module) runScript('cpu-split', parseArguments, main)

module.exports = {
  parseArguments,
  main,
  summarize,
  perRequest,
  render
}
