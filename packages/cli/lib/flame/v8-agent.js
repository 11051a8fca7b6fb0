'use strict'

// Loaded into the profiled app (`nodebench flame --profiler v8`): with `node --require` for an app directory's
// server.js, through NODE_OPTIONS for a --cmd (a shell line, `npm start`: every Node.js process the line starts
// loads it, and the one that listens first is the app). V8's sampling CPU profiler through node:inspector,
// started and stopped when nodebench says so, so that sampling begins after the warm-up and ends before the load
// does. Once its process listens on a port (the app's own; the database runs elsewhere), it connects to the
// socket NODEBENCH_PROFILER_SOCKET names and says which port; nodebench talks to the first process that does.
// Until then, and in processes that never listen (a shell's npm), it costs nothing. The connection never keeps
// the app alive.
//
// Messages, one JSON object a line, all `{ nodebenchProfiler: <type>, ... }`:
//   agent -> nodebench  listening { port, pid }
//   nodebench -> agent  start { id, intervalUs }  stop { id, file }
//   agent -> nodebench  done { id, samples? } | failed { id, error }

const fs = require('node:fs')
const net = require('node:net')
const inspector = require('node:inspector')

function post (session, method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

function profilerCommands () {
  let session = null
  return async function handle (message) {
    if (message.nodebenchProfiler === 'start') {
      session = new inspector.Session()
      session.connect()
      await post(session, 'Profiler.enable')
      await post(session, 'Profiler.setSamplingInterval', { interval: message.intervalUs })
      await post(session, 'Profiler.start')
      return {}
    }
    if (message.nodebenchProfiler === 'stop') {
      if (session === null) throw new Error('the profiler was not started')
      const { profile } = await post(session, 'Profiler.stop')
      session.disconnect()
      session = null
      fs.writeFileSync(message.file, JSON.stringify(profile))
      return { samples: profile.samples.length }
    }
    return null
  }
}

/** Connects to nodebench at `socketPath`, says `port`, and answers its commands. */
function connect (socketPath, port) {
  const handle = profilerCommands()
  const socket = net.connect(socketPath)
  socket.on('error', () => {}) // nodebench gone: nothing to tell
  socket.unref()
  const send = (message) => socket.write(JSON.stringify(message) + '\n')
  send({ nodebenchProfiler: 'listening', port, pid: process.pid })
  let partial = ''
  socket.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    for (const line of lines) {
      let message
      try {
        message = JSON.parse(line)
      } catch {
        continue
      }
      if (message === null || typeof message !== 'object' || typeof message.nodebenchProfiler !== 'string') continue
      handle(message).then(
        (reply) => reply !== null && send({ nodebenchProfiler: 'done', id: message.id, ...reply }),
        (err) => send({ nodebenchProfiler: 'failed', id: message.id, error: err.message }))
    }
  })
}

function watchFirstListen (socketPath) {
  const listen = net.Server.prototype.listen
  let told = false
  net.Server.prototype.listen = function listenAndTell (...args) {
    if (!told) {
      this.once('listening', () => {
        const address = this.address()
        if (told || address === null || typeof address !== 'object') return
        told = true
        connect(socketPath, address.port)
      })
    }
    return listen.apply(this, args)
  }
}

if (process.env.NODEBENCH_PROFILER_SOCKET) watchFirstListen(process.env.NODEBENCH_PROFILER_SOCKET)
