'use strict'

// Loaded into the profiled app with `node --require` (`nodebench flame --profiler v8`): V8's sampling CPU
// profiler through node:inspector, started and stopped when nodebench says so over the IPC channel, so that
// sampling begins after the warm-up and ends before the load does. It also tells nodebench the first port
// the app listens on (the app's own; the database runs elsewhere). Until told to start it costs nothing.
//
// Messages, all `{ nodebenchProfiler: <type>, ... }`:
//   agent -> nodebench  listening { port }
//   nodebench -> agent  start { id, intervalUs }  stop { id, file }
//   agent -> nodebench  done { id, samples? } | failed { id, error }

const fs = require('node:fs')
const net = require('node:net')
const inspector = require('node:inspector')

function sendToParent (message) {
  try {
    if (process.connected) process.send(message)
  } catch {}
}

function watchFirstListen () {
  const listen = net.Server.prototype.listen
  let told = false
  net.Server.prototype.listen = function listenAndTell (...args) {
    if (!told) {
      this.once('listening', () => {
        const address = this.address()
        if (told || address === null || typeof address !== 'object') return
        told = true
        sendToParent({ nodebenchProfiler: 'listening', port: address.port })
      })
    }
    return listen.apply(this, args)
  }
}

function post (session, method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

function startAgent () {
  let session = null
  async function handle (message) {
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
  process.on('message', (message) => {
    if (message === null || typeof message !== 'object' || typeof message.nodebenchProfiler !== 'string') return
    handle(message).then(
      (reply) => reply !== null && sendToParent({ nodebenchProfiler: 'done', id: message.id, ...reply }),
      (err) => sendToParent({ nodebenchProfiler: 'failed', id: message.id, error: err.message }))
  })
  // The channel must not keep the app alive, nor change when it exits.
  if (process.channel) process.channel.unref()
}

if (typeof process.send === 'function') {
  watchFirstListen()
  startAgent()
}
