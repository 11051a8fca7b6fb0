#!/usr/bin/env node
'use strict'

// node examples/climate-split/server.js --port <p> [--backends <k>] [--processes <n>]
//
// The KIT study's platform on one machine: a front-end on --port that reads N documents whole, and with
// --backends K, K back-end processes (backend.js, each on a free loopback port) it splits reads across. With
// --processes N > 1 the front-end itself is N node:cluster workers sharing the port, each reading whole (the
// study's Node Cluster), their breakdowns merged. The database is found once (MONGODB_URI, else the embedded
// FerretDB) and handed to every process. Prints `listening on http://<host>:<port>` on stdout when every process
// is ready; SIGINT/SIGTERM stop them all.

const cluster = require('node:cluster')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { parseProcessOptions, UsageError, USAGE } = require('./lib/process-options')
const { serve } = require('./lib/serve')
const { createFrontendApp } = require('./lib/frontend-app')

const START_TIMEOUT_MS = 60_000

function log (message) {
  process.stderr.write(`${message}\n`)
}

async function main () {
  const options = parseProcessOptions(process.argv.slice(2))
  if (options.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (cluster.isWorker) {
    const { stop } = await startFrontend(options, process.env.MONGODB_URI, JSON.parse(process.env.CLIMATE_BACKENDS))
    onShutdown(stop)
    return
  }
  const { resolveDatabase } = require('@nodebench/services')
  const database = await resolveDatabase({ onProgress: log })
  const backends = []
  const stops = []
  try {
    for (let i = 0; i < options.backends; i++) {
      const backend = await startBackend(options, database.uri)
      backends.push(backend.url)
      stops.push(backend.stop)
    }
    if (options.processes === 1) {
      const frontend = await startFrontend(options, database.uri, backends)
      stops.push(frontend.stop)
      process.stdout.write(`listening on http://${options.host}:${frontend.port}\n`)
    } else {
      stops.push(await startCluster(options, database.uri, backends))
    }
  } catch (err) {
    await Promise.all(stops.map((stop) => stop()))
    await database.stop()
    throw err
  }
  log(`climate-split: a front-end of ${options.processes} process(es), ${backends.length} back-end(s)`)
  onShutdown(async () => {
    // The front-end first, so that nothing sends the back-ends more work while they stop.
    for (const stop of stops.reverse()) await stop()
    await database.stop()
  })
}

function startFrontend (options, uri, backends) {
  return serve({
    ...options, uri, serviceName: 'climate-frontend', createApp: ({ client, trace }) => createFrontendApp({ client, trace, backends })
  })
}

/** A back-end process on a free loopback port: `{ url, stop() }` once it serves. */
function startBackend (options, uri) {
  const args = [path.join(__dirname, 'backend.js'), '--port', '0', '--host', '127.0.0.1', '--exporter', options.exporter,
    '--sample-ratio', String(options.sampleRatio), ...(options.trace ? [] : ['--no-trace'])]
  const child = spawn(process.execPath, args, { env: { ...process.env, MONGODB_URI: uri }, stdio: ['ignore', 'pipe', 'inherit'] })
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`a back-end did not start within ${START_TIMEOUT_MS / 1000} s`))
    }, START_TIMEOUT_MS)
    child.stdout.on('data', (chunk) => {
      output += chunk
      const match = /^listening on (http:\/\/\S+)$/m.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ url: match[1], stop })
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`a back-end exited (${signal || `code ${code}`}) before it served`))
    })
  })
}

/** N front-end workers sharing the port (node:cluster), one breakdown for all; resolves to their stop(). */
async function startCluster (options, uri, backends) {
  const primary = options.trace ? require('@nodebench/trace').nodebenchPrimary() : null
  const env = { MONGODB_URI: uri, CLIMATE_BACKENDS: JSON.stringify(backends) }
  let stopping = false
  const ready = new Set()
  await new Promise((resolve, reject) => {
    cluster.on('listening', (worker, address) => {
      ready.add(worker.id)
      if (ready.size === options.processes) {
        process.stdout.write(`listening on http://${options.host}:${address.port}\n`)
        resolve()
      }
    })
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return
      if (ready.size < options.processes) return reject(new Error(`a front-end worker exited (${signal || `code ${code}`}) before it served`))
      log(`climate-split: front-end worker ${worker.process.pid} exited (${signal || `code ${code}`}); starting another`)
      cluster.fork(env)
    })
    for (let i = 0; i < options.processes; i++) cluster.fork(env)
  })
  return async () => {
    stopping = true
    await Promise.all(Object.values(cluster.workers).map((worker) => new Promise((resolve) => {
      if (worker.isDead()) return resolve()
      const timer = setTimeout(() => worker.process.kill('SIGKILL'), 10_000)
      worker.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      worker.process.kill('SIGTERM')
    })))
    if (primary !== null) await primary.close()
  }
}

function onShutdown (shutdown) {
  let stopping = false
  const handler = () => {
    if (stopping) process.exit(130)
    stopping = true
    shutdown().then(() => process.exit(0), (err) => {
      log(`climate-split: error while stopping: ${err.message}`)
      process.exit(1)
    })
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}

main().catch((err) => {
  log(`climate-split: ${err.message}${err instanceof UsageError ? `\n\n${USAGE}` : ''}`)
  process.exit(err instanceof UsageError ? 2 : 1)
})
