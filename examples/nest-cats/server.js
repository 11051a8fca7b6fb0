#!/usr/bin/env node
// node examples/nest-cats/server.js --port <p> [--processes <n>] [--host <h>]
//
// Compiles the app when its TypeScript changed (build.js), starts it and prints `listening on http://<host>:<port>`
// on stdout once every process is ready (what `nodebench bench --app examples/nest-cats` waits for). With
// --processes N > 1, N node:cluster workers share the port and the primary merges their breakdowns. NODEBENCH=off
// starts it without nodebench; OTEL_SERVICE_NAME names its service (default nest-cats).

import cluster from 'node:cluster'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { buildApp } from './build.js'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const USAGE = 'usage: node examples/nest-cats/server.js [--port <port>] [--processes <n>] [--host <host>]'

function log (line) {
  process.stderr.write(`${line}\n`)
}

function parse (argv) {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string', default: '3000' }, processes: { type: 'string', default: '1' }, host: { type: 'string', default: '127.0.0.1' }, help: { type: 'boolean' } }
  })
  const port = Number(values.port)
  const processes = Number(values.processes)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`--port must be a port number; received ${values.port}`)
  if (!Number.isInteger(processes) || processes < 1) throw new TypeError(`--processes must be a whole number of at least 1; received ${values.processes}`)
  return { port, processes, host: values.host, help: values.help === true }
}

async function main () {
  let options
  try {
    options = parse(process.argv.slice(2))
  } catch (err) {
    log(`nest-cats: ${err.message}\n${USAGE}`)
    process.exitCode = 2
    return
  }
  if (options.help) return process.stdout.write(`${USAGE}\n`)
  const traced = process.env.NODEBENCH !== 'off'
  // The service nodebench names in spans, breakdowns and metrics (else the script's name, `server`).
  process.env.OTEL_SERVICE_NAME ||= 'nest-cats'
  if (cluster.isWorker) return serve(options, traced)
  buildApp(HERE, { log })
  if (options.processes === 1) {
    const { port } = await serve(options, traced)
    process.stdout.write(`listening on http://${options.host}:${port}\n`)
    return
  }
  const primary = traced ? (await import('@nodebench/trace')).nodebenchPrimary() : null
  const ready = new Set()
  let port = null
  let stopping = false
  cluster.on('listening', (worker, address) => {
    ready.add(worker.id)
    port = address.port
    if (ready.size === options.processes) process.stdout.write(`listening on http://${options.host}:${port}\n`)
  })
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    log(`nest-cats: worker ${worker.process.pid} exited (${signal || `code ${code}`})`)
    if (ready.size < options.processes) process.exit(1)
    cluster.fork()
  })
  for (let i = 0; i < options.processes; i++) cluster.fork()
  onSignal(async () => {
    stopping = true
    await Promise.all(Object.values(cluster.workers).map((worker) => new Promise((resolve) => {
      worker.once('exit', resolve)
      worker.process.kill('SIGTERM')
    })))
    if (primary !== null) await primary.close()
  })
}

/** Starts the app in this process; SIGTERM/SIGINT close it (Nest flushes nodebench's spans on close). */
async function serve (options, traced) {
  const { bootstrap } = await import(pathToFileURL(path.join(HERE, 'dist', 'main.js')).href)
  const app = await bootstrap(options.port, { host: options.host, traced })
  onSignal(() => app.close())
  return app
}

function onSignal (stop) {
  let stopping = false
  const handler = () => {
    // A worker hears a signal to its process group twice, once from its primary, whose it is to force it.
    if (stopping) {
      if (cluster.isWorker) return
      process.exit(130)
    }
    stopping = true
    Promise.resolve(stop()).then(() => process.exit(0), (err) => {
      log(`nest-cats: error while stopping: ${err.message}`)
      process.exit(1)
    })
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}

main().catch((err) => {
  log(`nest-cats: ${err.stack || err}`)
  process.exit(1)
})
