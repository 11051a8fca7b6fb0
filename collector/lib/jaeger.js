'use strict'

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const services = require('@nodebench/services')
const { startLoggedChild } = require('@nodebench/services/components')
const { jaegerBinary } = require('./jaeger-binary')
const { codes, NodebenchError } = require('./errors')

// Jaeger v2 as nodebench runs it: one process (OTLP receivers, in-memory store, query API v3) with
// collector/jaeger.yaml, bound to loopback, from the binary jaeger-binary.js builds.

const CONFIG_FILE = path.join(__dirname, '..', 'jaeger.yaml')
const DEFAULT_PORTS = Object.freeze({ otlpHttp: 4318, otlpGrpc: 4317, query: 16686, queryGrpc: 16685, health: 13133 })
// Starts on ports of its own choosing: a port free when chosen can be taken before Jaeger binds it (another
// process's server, or an outgoing connection given it as its local port), so a start that failed on a taken port
// is tried again on new ones.
const START_ATTEMPTS = 3

/** Whether something listens on the loopback `port`. */
function portInUse (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/** Jaeger's usual ports where they are free (so default OTLP settings reach it), free ones otherwise. */
async function choosePorts ({ preferDefaults }) {
  const ports = {}
  for (const [name, port] of Object.entries(DEFAULT_PORTS)) {
    ports[name] = preferDefaults && !(await portInUse(port)) ? port : await services.freeLoopbackPort()
  }
  return ports
}

/**
 * Starts Jaeger with collector/jaeger.yaml, bound to loopback; resolves once its query API answers.
 * Resolves to `{ pid, queryUrl, otlpHttpEndpoint, otlpGrpcEndpoint, ports, logFile, stop() }`; `ports` can be
 * given back to a later startJaeger to listen where this one did.
 * `detached`: outlives this process (`nodebench services start jaeger`); else it is stopped when this
 * process exits.
 */
async function startJaeger ({
  detached = false, preferDefaultPorts = detached, ports: givenPorts, logFile, maxTraces, onProgress, env = process.env,
  readyTimeoutMs = 60_000
} = {}) {
  const binary = await jaegerBinary({ onProgress, env })
  const log = logFile ?? path.join(services.PROJECT_CACHE_DIR, 'jaeger', 'jaeger.log')
  // `ports`: the same ports as an earlier run (a restarted Jaeger that apps already export to): tried once.
  for (let attempt = 1; ; attempt++) {
    const ports = givenPorts ?? await choosePorts({ preferDefaults: preferDefaultPorts && attempt === 1 })
    const logStart = fileSize(log)
    try {
      return await startOn(binary, ports, { detached, log, maxTraces, env, readyTimeoutMs })
    } catch (err) {
      if (givenPorts !== undefined || attempt === START_ATTEMPTS || !portTaken(log, logStart)) throw err
      onProgress?.(`a port chosen for Jaeger was taken before it started; trying other ports (${attempt + 1}/${START_ATTEMPTS})`)
    }
  }
}

function fileSize (file) {
  try {
    return fs.statSync(file).size
  } catch {
    return 0
  }
}

/** Whether Jaeger's log, from byte `from` on, says it could not bind a port. */
function portTaken (log, from) {
  try {
    const fd = fs.openSync(log, 'r')
    try {
      const buffer = Buffer.alloc(Math.max(0, fs.fstatSync(fd).size - from))
      fs.readSync(fd, buffer, 0, buffer.length, from)
      return buffer.toString('utf8').includes('address already in use')
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

async function startOn (binary, ports, { detached, log, maxTraces, env, readyTimeoutMs }) {
  const childEnv = {
    ...env,
    JAEGER_OTLP_HTTP_PORT: String(ports.otlpHttp),
    JAEGER_OTLP_GRPC_PORT: String(ports.otlpGrpc),
    JAEGER_QUERY_PORT: String(ports.query),
    JAEGER_QUERY_GRPC_PORT: String(ports.queryGrpc),
    JAEGER_HEALTH_PORT: String(ports.health)
  }
  if (maxTraces !== undefined) childEnv.JAEGER_MAX_TRACES = String(maxTraces)
  const { child, exited, stop } = startLoggedChild(binary, ['--config', CONFIG_FILE], { env: childEnv, detached, logFile: log })

  const queryUrl = `http://127.0.0.1:${ports.query}`
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    if (exited() !== null) {
      throw new NodebenchError(codes.NB_ERR_JAEGER_START, `Jaeger exited (${exited()}) before its query API answered; see ${log}`)
    }
    if (await answers(queryUrl)) break
    if (Date.now() > deadline) {
      await stop()
      throw new NodebenchError(codes.NB_ERR_JAEGER_START, `Jaeger's query API did not answer on ${queryUrl} within ${readyTimeoutMs} ms; see ${log}`)
    }
    await sleep(100)
  }
  return {
    pid: child.pid,
    queryUrl,
    otlpHttpEndpoint: `http://127.0.0.1:${ports.otlpHttp}`,
    otlpGrpcEndpoint: `http://127.0.0.1:${ports.otlpGrpc}`,
    ports,
    logFile: log,
    stop
  }
}

/** Whether Jaeger's query API answers at `queryUrl`. */
async function answers (queryUrl) {
  try {
    const response = await fetch(`${queryUrl}/api/v3/services`, { signal: AbortSignal.timeout(2000) })
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

module.exports = { startJaeger, answers, DEFAULT_PORTS }
