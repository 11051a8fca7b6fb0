'use strict'

// The cost of logging async contexts while nodebench flame samples (lib/cpu-context.js, docs/flame.md): requests
// of one segment whose handler awaits `--awaits` times (each a promise continuation) and once a setImmediate
// callback, run in three states, alternated round by round in one process:
// - off: no request context (an app that observes no dependency, unprofiled);
// - context: the request's AsyncLocalStorage on (an app whose MongoDB driver nodebench observes);
// - log: the context and the log's before/after hooks (every app while flame's V8 profiler samples it).
// CPU time (process.cpuUsage) per request and per continuation, medians of the rounds; it moves with the
// machine's load: run it twice.
//
//   node benchmarks/cpu-context.js [--requests 20000] [--awaits 5] [--rounds 5] [--json]

const { parseArgs } = require('node:util')
const { performance } = require('node:perf_hooks')
const { RequestRecord } = require('../lib/request-record')
const calls = require('../lib/dependencies/calls')

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    awaits: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false }
  }
})
const REQUESTS = Number(values.requests)
const AWAITS = Number(values.awaits)
const ROUNDS = Number(values.rounds)

// What flame's agent puts in the app (packages/cli/lib/flame/v8-agent.js), before nodebench loads.
let log = null
globalThis[Symbol.for('nodebench.cpuContexts')] = { offer: (offered) => { log = offered } }
require('../lib/cpu-context').offerCpuContexts()

const INFO = { key: 'handler login app.js:1', name: 'login', kind: 'handler', file: '/app.js', line: 1 }

async function handler () {
  for (let i = 0; i < AWAITS; i++) await null
  await new Promise((resolve) => setImmediate(resolve))
}

/** One request: its record entered as trace.js enters it, in a callback of its own, its one segment open. */
function request () {
  return new Promise((resolve) => setImmediate(() => {
    const record = new RequestRecord('GET', performance.now())
    calls.enterRequestContext(record)
    record.openEntry(INFO)
    handler().then(() => {
      record.done = true
      resolve()
    })
  }))
}

async function run (state) {
  if (state === 'context') calls.holdRequestContext()
  if (state === 'log') log.start()
  const cpu = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i += 10) await Promise.all(Array.from({ length: 10 }, request))
  const used = process.cpuUsage(cpu)
  if (state === 'context') calls.releaseRequestContext()
  if (state === 'log') log.stop()
  return ((used.user + used.system) * 1000) / REQUESTS
}

function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

async function main () {
  const states = ['off', 'context', 'log']
  const ns = { off: [], context: [], log: [] }
  await run('off') // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const state of states) ns[state].push(await run(state))
  }
  // Continuations a request runs: its own callback, each await's, the setImmediate's and the one after it.
  const continuations = AWAITS + 3
  const result = {
    node: process.version,
    requests: REQUESTS,
    awaits: AWAITS,
    nsPerRequest: Object.fromEntries(states.map((state) => [state, Math.round(median(ns[state]))])),
    logNsPerContinuation: Math.round((median(ns.log) - median(ns.context)) / continuations),
    logAndContextNsPerContinuation: Math.round((median(ns.log) - median(ns.off)) / continuations)
  }
  if (values.json) {
    process.stdout.write(JSON.stringify(result) + '\n')
    return
  }
  process.stdout.write(`Node.js ${result.node}, ${REQUESTS} requests of ${AWAITS} awaits and a setImmediate, CPU per request (median of ${ROUNDS} rounds):\n` +
    `  off ${result.nsPerRequest.off} ns, context ${result.nsPerRequest.context} ns, log ${result.nsPerRequest.log} ns\n` +
    `  the log: ${result.logNsPerContinuation} ns per continuation over the context alone, ` +
    `${result.logAndContextNsPerContinuation} ns over none\n`)
}

main()
