'use strict'

// bench's bare servers, the ceilings beside an app (targets.js): a node:http server and an Express app that do
// nothing but answer every request with one reply, the app's own answer (its status, content type and bytes)
// or "Hello World". Started as an app directory's server.js is:
//
//   node bare-server.js --kind node|express --reply <dir> [--express <path>] --port 0 --processes <n>
//
// `<dir>` holds reply.json ({ status, contentType }) and reply.body; `--express` is the Express to load (the
// app's own when it has one). With more than one process, a node:cluster primary forks them (all on one port),
// as an app directory's server.js does. It prints `listening on http://127.0.0.1:<port>` once every process
// listens, and stops on SIGTERM.

const cluster = require('node:cluster')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { parseArgs } = require('node:util')

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    reply: { type: 'string' },
    express: { type: 'string' },
    port: { type: 'string', default: '0' },
    processes: { type: 'string', default: '1' }
  }
})
const processes = Number(values.processes)

function readReply (dir) {
  const { status, contentType } = JSON.parse(fs.readFileSync(path.join(dir, 'reply.json'), 'utf8'))
  return { status, contentType, body: fs.readFileSync(path.join(dir, 'reply.body')) }
}

/** The server of `kind` answering with `reply`. */
function bareServer (kind, { status, contentType, body }) {
  if (kind === 'node') {
    const headers = { 'content-length': body.length }
    if (contentType) headers['content-type'] = contentType
    return http.createServer((req, res) => {
      req.resume()
      res.writeHead(status, headers)
      res.end(body)
    })
  }
  const express = require(values.express ?? 'express')
  const app = express()
  // One middleware, Express's defaults (ETag, X-Powered-By): what any Express app pays before its own code.
  app.use(function reply (req, res) {
    if (contentType) res.type(contentType)
    res.status(status).send(body)
  })
  return http.createServer(app)
}

function serve () {
  const server = bareServer(values.kind, readReply(values.reply))
  server.listen(Number(values.port), '127.0.0.1', () => {
    if (cluster.isPrimary) process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`)
  })
  process.on('SIGTERM', () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}

if (processes > 1 && cluster.isPrimary) {
  let listening = 0
  cluster.on('listening', (worker, address) => {
    if (++listening === processes) process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`)
  })
  for (let i = 0; i < processes; i++) cluster.fork()
  process.on('SIGTERM', () => {
    cluster.disconnect(() => process.exit(0))
  })
} else {
  serve()
}
