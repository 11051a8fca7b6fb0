'use strict'

// What nodebench allocates, in bytes a request and a segment, counted rather than timed: the young generation is
// made large enough (--min-/--max-semi-space-size) that no scavenge falls into a window of requests, and the heap's
// used size is read before and after it (v8.getHeapSpaceStatistics()). A window in which the collector ran anyway
// (v8.GCProfiler says so) is not counted. Bare and traced, in processes of their own; what nodebench adds is the
// difference. The count does not move with the machine's load.
//
//   node benchmarks/allocation.js [--app segment-path|bench|real] [--node 24] [--requests 2000] [--windows 5]
//                                 [--warmup 3000] [--semi-space 128] [--sites 20] [--node-flag --flag ...] [--layer]
//                                 [--json]
//
// --app segment-path: segment-path.js's requests (11 router layers, records, the breakdown; no HTTP) in one
// process. --app bench / real: the benchmark app (app.js's createApp) or the real stack (real-app.js), each
// breakdown-only (`exporter: 'none'`) against bare, served over HTTP to one keep-alive connection from this
// process, one request at a time: only the server's process is counted.
//
// --layer (bench, real): a third process with a middleware that only calls next() in nodebench's place, the
// bytes Express itself spends on one more layer in the stack (nodebench's middleware is one).
//
// --sites N: V8's sampling heap profiler over one more window in each process, every object kept in the profile
// (collected or not), bytes a request by allocation site over bare's at the same site: the N largest, and
// nodebench's own.
// Optimized code reports what it inlined under its caller's name: `--node-flag=--no-turbo-inlining
// --node-flag=--no-maglev-inlining` names each function (its allocations may then differ: no escape analysis
// across calls).

const v8 = require('node:v8')
const http = require('node:http')
const { fork } = require('node:child_process')
const { parseArgs } = require('node:util')
const { median, nodeFlags, nodeUnderTest, runScript } = require('./harness')

const APPS = Object.freeze(['segment-path', 'bench', 'real'])
const SEGMENTS = Object.freeze({ 'segment-path': 11, bench: 11, real: 9 })
const CHILD_TIMEOUT_MS = 10 * 60 * 1000
// Sampling every object would stop V8 allocating inline; a site's bytes are estimated from samples this far apart.
const SAMPLING_INTERVAL = 64
// The young generation's spaces: what a request's short-lived objects take.
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space'])

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      app: { type: 'string', default: 'segment-path' },
      node: { type: 'string' },
      requests: { type: 'string', default: '2000' },
      windows: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '3000' },
      'semi-space': { type: 'string', default: '128' },
      sites: { type: 'string' },
      'node-flag': { type: 'string', multiple: true, default: [] },
      layer: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  const whole = (name, min, max = Infinity) => {
    const value = Number(values[name])
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new TypeError(`--${name} must be a whole number from ${min}${max === Infinity ? '' : ` to ${max}`}; received ${values[name]}`)
    }
    return value
  }
  if (!APPS.includes(values.app)) throw new TypeError(`--app must be one of ${APPS.join(', ')}; received ${values.app}`)
  if (values.layer && values.app === 'segment-path') throw new TypeError('--layer needs an app served over HTTP (--app bench or real)')
  return {
    app: values.app,
    node: values.node ?? null,
    requests: whole('requests', 1),
    windows: whole('windows', 1),
    warmup: whole('warmup', 0),
    semiSpace: whole('semi-space', 1, 256),
    sites: values.sites === undefined ? 0 : whole('sites', 1),
    nodeFlags: nodeFlags(values['node-flag']),
    layer: values.layer,
    json: values.json
  }
}

/** The heap's used bytes now: the young generation's, and all spaces'. */
function heapUsed () {
  let young = 0
  for (const space of v8.getHeapSpaceStatistics()) {
    if (YOUNG_SPACES.has(space.space_name)) young += space.space_used_size
  }
  return { young, heap: v8.getHeapStatistics().used_heap_size }
}

/** A window's measure, opened now: `close()` answers the bytes allocated since, or null when the collector ran. */
function openWindow () {
  const profiler = new v8.GCProfiler()
  profiler.start()
  const before = heapUsed()
  return {
    close () {
      const after = heapUsed()
      const collections = profiler.stop().statistics.length
      if (collections > 0) return null
      return { young: after.young - before.young, heap: after.heap - before.heap }
    }
  }
}

/** V8's sampling heap profiler, every object kept: `stop()` answers bytes by allocation site. */
async function startSites () {
  const { Session } = require('node:inspector')
  const session = new Session()
  session.connect()
  const post = (method, params) => new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)))
  })
  await post('HeapProfiler.enable')
  await post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
  return {
    async stop () {
      const { profile } = await post('HeapProfiler.stopSampling')
      session.disconnect()
      const bySite = new Map()
      const visit = (node) => {
        if (node.selfSize > 0) {
          const frame = node.callFrame
          const site = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^file:\/\//, '')}:${frame.lineNumber + 1}`
          bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize)
        }
        for (const child of node.children) visit(child)
      }
      visit(profile.head)
      return [...bySite].map(([site, bytes]) => ({ site, bytes })).sort((a, b) => b.bytes - a.bytes)
    }
  }
}

// ---- the measured process ----

/** segment-path.js's requests, measured in this process: `{ windows, sites }`. */
async function measureSegmentPath ({ variant, requests, windows, warmup, sites }) {
  const { requestPath } = require('./segment-path')
  const { one } = requestPath({ layers: SEGMENTS['segment-path'], variant })
  for (let i = 0; i < warmup; i++) one()
  const counted = []
  for (let w = 0; w < windows; w++) {
    const window = openWindow()
    for (let i = 0; i < requests; i++) one()
    counted.push(window.close())
  }
  let bySite = null
  if (sites > 0) {
    const profiler = await startSites()
    for (let i = 0; i < requests; i++) one()
    bySite = await profiler.stop()
  }
  return { windows: counted, sites: bySite }
}

/** The app served on 127.0.0.1; answers the parent's `open`, `close`, `sites` and `sites-stop` messages. */
function serveApp ({ app: which, variant }) {
  const express = require('express')
  let tracing = null
  if (variant === 'nodebench') tracing = require('@nodebench/trace').nodebenchTrace({ serviceName: 'allocation-bench', exporter: 'none' })
  // In nodebench's place, a middleware that only calls next(): what Express spends on one more layer.
  if (variant === 'layer') tracing = function oneMoreLayer (req, res, next) { next() }
  const app = which === 'real'
    ? require('./real-app').createRealApp(express, tracing)
    : require('./app').createApp(express, tracing)
  const server = http.createServer(app)
  let window = null
  let profiler = null
  process.on('message', (message) => {
    if (message === 'open') {
      window = openWindow()
      process.send({ opened: true })
    } else if (message === 'close') {
      process.send({ counted: window.close() })
    } else if (message === 'sites') {
      startSites().then((started) => {
        profiler = started
        process.send({ opened: true })
      })
    } else if (message === 'sites-stop') {
      profiler.stop().then((bySite) => process.send({ sites: bySite }))
    } else if (message === 'stop') {
      server.close()
      server.closeAllConnections()
      process.disconnect()
    }
  })
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
}

async function childMain () {
  const options = JSON.parse(process.env.NODEBENCH_ALLOCATION)
  if (options.app === 'segment-path') {
    process.send(await measureSegmentPath(options))
    process.disconnect()
  } else {
    serveApp(options)
  }
}

// ---- the measuring process ----

/** The child for `variant` under `node`, its young generation fixed; resolves with it once it answers first. */
function startChild (node, options, variant) {
  const child = fork(__filename, ['--child', variant], {
    execPath: node.path,
    execArgv: [`--min-semi-space-size=${options.semiSpace}`, `--max-semi-space-size=${options.semiSpace}`, ...options.nodeFlags],
    env: { ...process.env, NODEBENCH_ALLOCATION: JSON.stringify({ ...options, variant }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const messages = []
  const waiting = []
  child.on('message', (message) => {
    if (waiting.length > 0) waiting.shift().resolve(message)
    else messages.push(message)
  })
  const failed = new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => {
      const err = new Error(`the ${variant} process exited (code ${code}, signal ${signal}) before it answered`)
      for (const wait of waiting.splice(0)) wait.reject(err)
      reject(err)
    })
  })
  failed.catch(() => {})
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS)
  const next = () => messages.length > 0
    ? Promise.resolve(messages.shift())
    : new Promise((resolve, reject) => waiting.push({ resolve, reject }))
  const ask = (message) => {
    child.send(message)
    return next()
  }
  const stop = () => {
    clearTimeout(timer)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  }
  return { child, next, ask, stop }
}

/** `count` GET requests one after another on `agent`'s one connection; rejects on a status other than 200. */
async function sendRequests (port, agent, count) {
  for (let i = 0; i < count; i++) {
    await new Promise((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: `/api/items/${i % 1000}`, agent }, (response) => {
        response.resume()
        response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))))
      })
      request.on('error', reject)
    })
  }
}

/** One variant's windows (and sites), in a process of its own. */
async function measureVariant (node, options, variant, log) {
  const started = startChild(node, options, variant)
  try {
    if (options.app === 'segment-path') return await started.next()
    const { port } = await started.next()
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      await sendRequests(port, agent, options.warmup)
      const windows = []
      for (let w = 0; w < options.windows; w++) {
        await started.ask('open')
        await sendRequests(port, agent, options.requests)
        windows.push((await started.ask('close')).counted)
        log(`allocation: ${options.app} ${variant}, window ${w + 1} of ${options.windows}`)
      }
      let sites = null
      if (options.sites > 0) {
        await started.ask('sites')
        await sendRequests(port, agent, options.requests)
        sites = (await started.ask('sites-stop')).sites
      }
      started.child.send('stop')
      return { windows, sites }
    } finally {
      agent.destroy()
    }
  } finally {
    started.stop()
  }
}

/** Bytes a request: the median and range over the windows the collector left alone. */
function perRequest (windows, requests, key) {
  const values = windows.filter((window) => window !== null).map((window) => window[key] / requests)
  if (values.length === 0) return null
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), windows: values.length }
}

function summarize (options, measured) {
  const variant = (name) => ({
    young: perRequest(measured[name].windows, options.requests, 'young'),
    heap: perRequest(measured[name].windows, options.requests, 'heap')
  })
  const bare = variant('bare')
  const nodebench = variant('nodebench')
  const segments = SEGMENTS[options.app]
  const added = (key) => bare[key] === null || nodebench[key] === null ? null : nodebench[key].median - bare[key].median
  // A site's bytes a request traced, less bare's at the same site (the app's and Express's own sites are in both).
  let sites = null
  if (measured.nodebench.sites !== null) {
    const bareBytes = new Map(measured.bare.sites.map(({ site, bytes }) => [site, bytes]))
    sites = measured.nodebench.sites
      .map(({ site, bytes }) => ({ site, bytesPerRequest: (bytes - (bareBytes.get(site) ?? 0)) / options.requests }))
      .filter((site) => Math.abs(site.bytesPerRequest) >= 0.5)
      .sort((a, b) => b.bytesPerRequest - a.bytesPerRequest)
  }
  return {
    app: options.app,
    segments,
    requests: options.requests,
    bare,
    nodebench,
    addedPerRequest: { young: added('young'), heap: added('heap') },
    addedPerSegment: { young: added('young') === null ? null : added('young') / segments, heap: added('heap') === null ? null : added('heap') / segments },
    oneMoreLayer: measured.layer === undefined ? null : variant('layer'),
    sites
  }
}

function render (summary, options, nodeVersion) {
  const bytes = (value) => value === null ? 'n/a' : Math.round(value).toLocaleString('en-US')
  const range = (row) => row === null ? 'no window without a collection' : `${bytes(row.median)} (${bytes(row.min)}-${bytes(row.max)}, ${row.windows} windows)`
  const lines = [
    `Node.js ${nodeVersion}, ${summary.app} (${summary.segments} segments a request), young generation ${options.semiSpace} MB, ` +
      `windows of ${summary.requests} requests after ${options.warmup}: bytes allocated a request`,
    `  bare       young ${range(summary.bare.young)}; heap ${range(summary.bare.heap)}`,
    `  nodebench  young ${range(summary.nodebench.young)}; heap ${range(summary.nodebench.heap)}`,
    `  added      young ${bytes(summary.addedPerRequest.young)} a request, ${bytes(summary.addedPerSegment.young)} a segment; ` +
      `heap ${bytes(summary.addedPerRequest.heap)} a request, ${bytes(summary.addedPerSegment.heap)} a segment`
  ]
  if (summary.oneMoreLayer !== null) {
    const young = summary.oneMoreLayer.young
    lines.push(`  one more layer (a middleware calling next() in nodebench's place) young ${range(young)}: ` +
      `${young === null || summary.bare.young === null ? 'n/a' : bytes(young.median - summary.bare.young.median)} over bare`)
  }
  if (summary.sites !== null) {
    const own = (site) => /\/middleware\/lib\/|\/packages\/[^/]+\/lib\//.test(site.site)
    const show = (list) => list.map(({ site, bytesPerRequest }) => `    ${bytes(bytesPerRequest).padStart(7)}  ${site}`)
    lines.push(`  bytes a request by allocation site over bare's (sampled every ${SAMPLING_INTERVAL} bytes), the largest:`)
    lines.push(...show(summary.sites.slice(0, options.sites)))
    lines.push('  nodebench\'s own sites:')
    lines.push(...show(summary.sites.filter(own)))
  }
  return lines.join('\n')
}

async function main (options) {
  const log = (message) => process.stderr.write(message + '\n')
  const node = await nodeUnderTest(options.node, log)
  const measured = {}
  for (const variant of ['bare', 'nodebench', ...(options.layer ? ['layer'] : [])]) {
    log(`allocation: Node.js ${node.version}, ${options.app} ${variant}`)
    measured[variant] = await measureVariant(node, options, variant, log)
  }
  const summary = summarize(options, measured)
  if (options.json) process.stdout.write(JSON.stringify({ schema: 1, node: node.version, semiSpace: options.semiSpace, warmup: options.warmup, ...summary }, null, 2) + '\n')
  else process.stdout.write(render(summary, options, node.version) + '\n')
}

if (require.main === module) {
  if (process.argv.includes('--child')) {
    childMain().catch((err) => {
      process.stderr.write(`allocation (child): ${err && err.stack ? err.stack : err}\n`)
      process.exit(1)
    })
  } else {
    runScript('allocation', parseArguments, main)
  }
}

module.exports = { parseArguments, summarize, heapUsed, openWindow }
