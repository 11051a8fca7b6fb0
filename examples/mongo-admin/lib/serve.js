'use strict'

const { once } = require('node:events')
const { MongoClient } = require('mongodb')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp } = require('../app')

// A request waits this long for the database before it is answered 503 (the driver's default is 30 s).
const SERVER_SELECTION_TIMEOUT_MS = 3000

/**
 * Starts one HTTP server of the app (the only one, or one cluster worker) and returns how to stop it.
 * A database that is down at start or goes away later does not stop the app: requests get 503 until it
 * is back, and the driver reconnects by itself.
 */
async function startServer ({
  uri, port, host, trace: traced, exporter, sampleRatio, serverTiming = false, requestLog, log = console.error
}) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS })
  const trace = traced
    ? nodebenchTrace({ serviceName: 'mongo-admin', exporter, sampleRatio, serverTiming, expose: '/__nodebench' })
    : null
  const app = createApp({ client, trace, requestLog, log })
  try {
    await client.connect()
    await app.locals.catalog.refresh()
  } catch (err) {
    log(`mongo-admin: the database at ${redact(uri)} is not answering yet (${err.message}); requests get 503 until it does`)
  }
  const server = app.listen(port, host)
  await once(server, 'listening')

  let stopping = null
  function stop () {
    if (stopping === null) {
      stopping = (async () => {
        const closed = new Promise((resolve) => server.close(resolve))
        server.closeIdleConnections()
        const timer = setTimeout(() => server.closeAllConnections(), 2000)
        await closed
        clearTimeout(timer)
        if (trace !== null) await trace.shutdown()
        await client.close().catch(() => {})
      })()
    }
    return stopping
  }
  return { server, port: server.address().port, trace, stop }
}

/** The URI without its password, for messages. */
function redact (uri) {
  return uri.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@')
}

module.exports = { startServer, redact }
