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
// CPU of async code: the agent puts a registry on globalThis (REGISTRY) before the app loads, where each copy of
// @nodebench/trace the app loads offers its log of async contexts (cpu-context.js). The logs run while the
// profiler does; at its stop each sample gets the context it was taken in (sample-contexts.js), written beside
// the profile (`contexts`: the file to write), so that flame counts a continuation for the segment awaiting it.
//
// Messages, one JSON object a line, all `{ nodebenchProfiler: <type>, ... }`:
//   agent -> nodebench  listening { port, pid }
//   nodebench -> agent  start { id, intervalUs }  stop { id, file, contexts? }
//   agent -> nodebench  done { id, samples?, contexts? } | failed { id, error }

const fs = require('node:fs')
const net = require('node:net')
const inspector = require('node:inspector')
const { sampleContexts } = require('./sample-contexts')

const REGISTRY = Symbol.for('nodebench.cpuContexts')
// The logs of async contexts the app's copies of nodebench offer: { start(), stop() -> log }.
const contextLogs = []

/** Calls `method` of every log; a log that fails is left out, never the profile. */
function eachLog (method) {
  const results = []
  for (const log of contextLogs) {
    try {
      const result = log[method]()
      if (result) results.push(result)
    } catch {}
  }
  return results
}

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
      // The logs first: every sample has its context logged before it.
      eachLog('start')
      try {
        await post(session, 'Profiler.start')
      } catch (err) {
        eachLog('stop')
        throw err
      }
      return {}
    }
    if (message.nodebenchProfiler === 'stop') {
      if (session === null) throw new Error('the profiler was not started')
      let profile
      try {
        profile = (await post(session, 'Profiler.stop')).profile
      } finally {
        session.disconnect()
        session = null
      }
      const logs = eachLog('stop')
      fs.writeFileSync(message.file, JSON.stringify(profile))
      if (typeof message.contexts !== 'string') return { samples: profile.samples.length }
      if (logs.length === 0) {
        fs.rmSync(message.contexts, { force: true })
        return { samples: profile.samples.length, contexts: 0 }
      }
      fs.writeFileSync(message.contexts, JSON.stringify(sampleContexts(profile, logs)))
      return { samples: profile.samples.length, contexts: logs.length }
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

if (process.env.NODEBENCH_PROFILER_SOCKET) {
  globalThis[REGISTRY] = Object.freeze({ offer: (log) => { contextLogs.push(log) } })
  watchFirstListen(process.env.NODEBENCH_PROFILER_SOCKET)
}
