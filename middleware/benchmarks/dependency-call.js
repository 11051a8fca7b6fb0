'use strict'

// nodebench's CPU per dependency call (DESIGN.md, "Cost model": at most 1 µs a call): requests of one segment
// that each make `--calls` MongoDB commands through a driver's Connection.prototype.command (wrapped as
// lib/dependencies/mongodb.js wraps the real driver's; the command itself an already-resolved promise) and as
// many outgoing HTTP calls heard on Node.js's channels (the messages node:http publishes, sent to nodebench's
// subscribers), each record finished, its calls attributed and folded into the breakdown as trace.js does.
// Bare: the same commands unwrapped, the same records, no channel subscribers. The difference over the calls
// is nodebench's cost per call; CPU time (process.cpuUsage), so it moves with the machine's load: run it twice.
//
//   node benchmarks/dependency-call.js [--requests 50000] [--calls 3] [--json]

const { parseArgs } = require('node:util')
const { performance } = require('node:perf_hooks')
const diagnosticsChannel = require('node:diagnostics_channel')
const { EventEmitter } = require('node:events')
const { BreakdownAggregator } = require('@nodebench/breakdown')
const { RequestRecord } = require('../lib/request-record')
const { observeMongoDrivers, unobserveMongoDrivers } = require('../lib/dependencies/mongodb')
const { observeHttpClients, unobserveHttpClients } = require('../lib/dependencies/http-client')
const { enterRequestContext, observeRequests } = require('../lib/dependencies/calls')

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '50000' },
    calls: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false }
  }
})
const REQUESTS = Number(values.requests)
const CALLS = Number(values.calls)

/** A driver's Connection as the real one is shaped for the wrapper: command(ns, cmd) on its prototype. */
class Connection {
  constructor () {
    this.address = '127.0.0.1:27017'
  }

  command (ns, cmd) {
    return Promise.resolve({ ok: 1 })
  }
}
const NS = { db: 'shop', collection: 'users' }
const FIND = { find: 'users', filter: { name: 'ada' } }
const INFO = { key: 'handler listUsers app.js:1', name: 'listUsers', kind: 'handler', file: '/app.js', line: 1 }
const RESPONSE = { statusCode: 200, getHeader: () => 'application/json' }
const start = diagnosticsChannel.channel('http.client.request.start')
const finish = diagnosticsChannel.channel('http.client.response.finish')

function outgoing () {
  return { protocol: 'http:', host: 'api.example', method: 'GET', path: '/v1/items?page=2', getHeader: () => 'api.example:8080' }
}

async function run (instrumented) {
  const aggregator = new BreakdownAggregator()
  const connection = new Connection()
  const begin = performance.now()
  const cpu = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) {
    const record = new RequestRecord('GET', performance.now())
    enterRequestContext(record)
    record.openEntry(INFO)
    for (let c = 0; c < CALLS; c++) {
      await connection.command(NS, FIND)
      const request = outgoing()
      if (start.hasSubscribers) start.publish({ request })
      // The response as node:http's IncomingMessage: an emitter whose body ends after its head.
      const response = new EventEmitter()
      response.statusCode = 200
      if (finish.hasSubscribers) finish.publish({ request, response })
      response.emit('end')
    }
    record.route = '/users'
    record.finish(RESPONSE, false)
    aggregator.recordRequest(record)
  }
  const used = process.cpuUsage(cpu)
  return { cpuUs: used.user + used.system, wallMs: performance.now() - begin }
}

async function main () {
  await run(false) // warm-up, bare
  const bare = await run(false)
  // The requests' async context on (an AsyncLocalStorage entered once a request), nothing observed yet: what
  // the context costs the app's promises, apart from the calls.
  observeRequests()
  await run(false)
  const context = await run(false)
  // The wrapper as the real driver gets it: found in require.cache under mongodb/lib/cmap/connection.js.
  const cache = { '/app/node_modules/mongodb/lib/cmap/connection.js': { exports: { Connection } } }
  observeMongoDrivers(cache)
  observeHttpClients()
  await run(true)
  const nodebench = await run(true)
  unobserveMongoDrivers()
  unobserveHttpClients()
  const calls = REQUESTS * CALLS * 2
  const perCallNs = Math.round((nodebench.cpuUs - context.cpuUs) * 1000 / calls)
  const contextPerRequestNs = Math.round((context.cpuUs - bare.cpuUs) * 1000 / REQUESTS)
  const result = {
    node: process.version,
    requests: REQUESTS,
    callsPerRequest: CALLS * 2,
    perCallNs,
    contextPerRequestNs,
    cpuMs: { bare: bare.cpuUs / 1000, context: context.cpuUs / 1000, nodebench: nodebench.cpuUs / 1000 }
  }
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n')
  else {
    process.stdout.write(`${process.version}: ${CALLS * 2} calls a request (${CALLS} MongoDB, ${CALLS} HTTP), ${REQUESTS} requests: ` +
      `nodebench adds ${perCallNs} ns of CPU a call; the requests' context ${contextPerRequestNs} ns a request ` +
      `(${CALLS} awaits) (CPU ms: bare ${Math.round(result.cpuMs.bare)}, context ${Math.round(result.cpuMs.context)}, ` +
      `calls ${Math.round(result.cpuMs.nodebench)})\n`)
  }
}

main()
