'use strict'

// The study's minimal Node.js server (Paliwal, "Performance investigation of Node.js"): node:http answering
// every request with "Hello World", as the PHP page beside it (php/index.php) does under Apache, with the same
// bytes and content type. The entry points of an app directory's server.js, so bench starts it as any app:
//
//   node examples/baseline/node-server.js --port 3000 [--processes 1]
//
// --processes above 1 forks a node:cluster of that many (the study ran one process).

const cluster = require('node:cluster')
const http = require('node:http')
const { parseArgs } = require('node:util')

const { values } = parseArgs({
  options: { port: { type: 'string', default: '3000' }, processes: { type: 'string', default: '1' }, host: { type: 'string', default: '127.0.0.1' } }
})
const processes = Number(values.processes)

if (processes > 1 && cluster.isPrimary) {
  let listening = 0
  cluster.on('listening', (worker, address) => {
    if (++listening === processes) process.stdout.write(`listening on http://${values.host}:${address.port}\n`)
  })
  for (let i = 0; i < processes; i++) cluster.fork()
  process.on('SIGTERM', () => cluster.disconnect(() => process.exit(0)))
} else {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' })
    res.end('Hello World')
  })
  server.listen(Number(values.port), values.host, () => {
    if (cluster.isPrimary) process.stdout.write(`listening on http://${values.host}:${server.address().port}\n`)
  })
  process.on('SIGTERM', () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
