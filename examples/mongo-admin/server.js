#!/usr/bin/env node
'use strict'

// node examples/mongo-admin/server.js --port <p> [--processes <n>]
//
// Prints `listening on http://<host>:<port>` on stdout when every process is ready (other tools wait for
// that line). With --processes N > 1, the primary starts the database (when embedded), forks N workers
// sharing the port, and merges their breakdowns: GET /__nodebench answers for the whole app.

const cluster = require('node:cluster')
const { parseServerOptions, UsageError, USAGE } = require('./lib/server-options')
const { startServer } = require('./lib/serve')

function log (message) {
  process.stderr.write(`${message instanceof Error ? message.stack : message}\n`)
}

async function main () {
  let options
  try {
    options = parseServerOptions(process.argv.slice(2))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    log(`mongo-admin: ${err.message}\n\n${USAGE}`)
    process.exitCode = 2
    return
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (cluster.isWorker) return runWorker(options)
  return runPrimary(options)
}

async function runPrimary (options) {
  // Required here, not at the top: a worker never starts or looks for the database itself.
  const { resolveDatabase } = require('@nodebench/services')
  const database = await resolveDatabase({ onProgress: log })
  let stopServers
  try {
    stopServers = options.processes === 1
      ? await runSingle(options, database.uri)
      : await runCluster(options, database.uri)
  } catch (err) {
    await database.stop()
    throw err
  }
  onShutdown(async () => {
    await stopServers()
    await database.stop()
  })
}

/** One process: the app runs here (so a profiler attached to this process sees it). */
async function runSingle (options, uri) {
  const { port, stop } = await startServer({ ...options, uri, log })
  process.stdout.write(`listening on http://${options.host}:${port}\n`)
  return stop
}

async function runCluster (options, uri) {
  let nodebenchCluster = null
  if (options.trace) nodebenchCluster = require('@nodebench/trace').nodebenchPrimary()
  cluster.setupPrimary({ args: process.argv.slice(2) })
  const env = { MONGODB_URI: uri }
  let shuttingDown = false
  let listeningPort = null
  const ready = new Set()

  const allListening = new Promise((resolve, reject) => {
    cluster.on('listening', (worker, address) => {
      ready.add(worker.id)
      listeningPort = address.port
      if (ready.size === options.processes) resolve()
    })
    cluster.on('exit', (worker, code, signal) => {
      if (shuttingDown) return
      if (ready.size < options.processes) {
        reject(new Error(`worker ${worker.process.pid} exited (${signal || `code ${code}`}) before it was listening`))
        return
      }
      log(`mongo-admin: worker ${worker.process.pid} exited (${signal || `code ${code}`}); starting another`)
      cluster.fork(env)
    })
  })
  for (let i = 0; i < options.processes; i++) cluster.fork(env)
  try {
    await allListening
  } catch (err) {
    shuttingDown = true
    await stopWorkers()
    throw err
  }
  process.stdout.write(`listening on http://${options.host}:${listeningPort}\n`)
  log(`mongo-admin: ${options.processes} worker processes`)

  async function stopWorkers () {
    const workers = Object.values(cluster.workers)
    await Promise.all(workers.map((worker) => new Promise((resolve) => {
      if (worker.isDead()) return resolve()
      const timer = setTimeout(() => worker.process.kill('SIGKILL'), 10000)
      worker.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      worker.process.kill('SIGTERM')
    })))
  }

  return async () => {
    shuttingDown = true
    await stopWorkers()
    if (nodebenchCluster !== null) await nodebenchCluster.close()
  }
}

async function runWorker (options) {
  const { stop } = await startServer({ ...options, uri: process.env.MONGODB_URI, log })
  onShutdown(stop)
}

/**
 * SIGINT/SIGTERM stop the servers (and the embedded database), flushing spans; a second signal forces exit, except
 * in a worker: a signal to the whole process group (Ctrl-C, nodebench stopping the app) reaches it twice, once
 * from its primary, and forcing a worker is its primary's to do.
 */
function onShutdown (shutdown) {
  let stopping = false
  const handler = (signal) => {
    if (stopping) {
      if (cluster.isWorker) return
      process.exit(130)
    }
    stopping = true
    shutdown().then(() => process.exit(0), (err) => {
      log(`mongo-admin: error while stopping (${signal}): ${err.message}`)
      process.exit(1)
    })
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}

main().catch((err) => {
  log(`mongo-admin: ${err.code ? err.message : (err.stack || err)}`)
  process.exit(1)
})
