'use strict'

const { once } = require('node:events')
const { MongoClient } = require('mongodb')
const { nodebenchTrace } = require('@nodebench/trace')

// One HTTP server of the example (a front-end or a back-end), traced unless told not to, on a connected client.

/** Starts `createApp({ client, trace })` on `port`; resolves to `{ port, stop() }`. */
async function serve ({ uri, port, host, trace: traced, exporter, sampleRatio, serviceName, createApp }) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 })
  await client.connect()
  const trace = traced ? nodebenchTrace({ serviceName, exporter, sampleRatio, expose: '/__nodebench' }) : null
  const server = createApp({ client, trace }).listen(port, host)
  await once(server, 'listening')
  let stopping = null
  const stop = () => (stopping ??= (async () => {
    const closed = new Promise((resolve) => server.close(resolve))
    server.closeIdleConnections()
    const timer = setTimeout(() => server.closeAllConnections(), 2000)
    await closed
    clearTimeout(timer)
    if (trace !== null) await trace.shutdown()
    await client.close().catch(() => {})
  })())
  return { port: server.address().port, stop }
}

module.exports = { serve }
