#!/usr/bin/env node
'use strict'

// node examples/climate-split/backend.js --port <p> [--host <h>]: one back-end (MONGODB_URI names the database).
// Prints `listening on http://<host>:<port>` once it serves; SIGTERM stops it.

const { parseProcessOptions, UsageError } = require('./lib/process-options')
const { serve } = require('./lib/serve')
const { createBackendApp } = require('./lib/backend-app')

async function main () {
  const options = parseProcessOptions(process.argv.slice(2))
  if (!process.env.MONGODB_URI) throw new UsageError('MONGODB_URI is not set: server.js starts the back-ends with the database it found')
  const { port, stop } = await serve({
    ...options, uri: process.env.MONGODB_URI, serviceName: 'climate-backend', createApp: createBackendApp
  })
  process.stdout.write(`listening on http://${options.host}:${port}\n`)
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stop().then(() => process.exit(0), () => process.exit(1)))
}

main().catch((err) => {
  process.stderr.write(`climate-split back-end: ${err.message}\n`)
  process.exit(err instanceof UsageError ? 2 : 1)
})
