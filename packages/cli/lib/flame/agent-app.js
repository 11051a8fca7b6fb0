'use strict'

const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { codes, NodebenchError } = require('@nodebench/errors')
const { freeLoopbackPort } = require('@nodebench/services')
const { baseAt, commandLine } = require('../kernel/app-target')
const { outputCollector, startFailure } = require('../kernel/app-output')
const { startProcessGroup } = require('../kernel/process-group')

// The app as flame starts it: with v8-agent.js preloaded (V8's profiler, driven over a local socket), as a
// process group stopped as every app is. An app directory's server.js runs with `node --require`; a --cmd runs
// as bench runs it (a shell line with variables, `npm start`), the agent in every Node.js process it starts
// through NODE_OPTIONS, and the first of them that listens is the app. 0x and clinic run the app's script
// themselves (appArgv).

const AGENT = path.join(__dirname, 'v8-agent.js')
const START_TIMEOUT_MS = 60_000
// How long a --cmd's app may answer before its agent is heard from (the agent says so as the app listens).
const NO_AGENT_MS = 3000

function flameError (message) {
  return new NodebenchError(codes.NB_ERR_FLAME, message)
}

/** The app's script and arguments for one start: {port} a free port, {processes} 1 (a profile is of one process). */
async function appArgv (config) {
  const port = config.argv.some((word) => word.includes('{port}')) ? String(await freeLoopbackPort()) : null
  return config.argv.map((word) => word.replaceAll('{processes}', '1').replaceAll('{port}', port))
}

/** `env` with the agent preloaded into every Node.js process it starts (NODE_OPTIONS, quoted as Node.js reads it). */
function withAgentPreloaded (env) {
  const preload = `--require "${AGENT.replace(/(["\\])/g, '\\$1')}"`
  return { ...env, NODE_OPTIONS: env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ${preload}` : preload }
}

/**
 * Starts the app with the agent preloaded (an app directory's server.js with `--require`, a --cmd through
 * NODE_OPTIONS), as a process group stopped as every app is (kernel/process-group.js); resolves, once it
 * listens, to `{ base, pid, command(message), stop() }`: `pid` the process that listens (under a shell line, not
 * the shell's), `command` asks its agent (start or stop its profiler) and resolves to its answer.
 */
async function startWithAgent (config, { env }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-agent-'))
  const socketPath = path.join(dir, 'agent.sock')
  const channel = net.createServer()
  await new Promise((resolve, reject) => channel.once('error', reject).listen(socketPath, resolve))
  channel.unref()
  const agentEnv = { ...env, NODEBENCH_PROFILER_SOCKET: socketPath }
  const stdio = ['ignore', 'ignore', 'pipe']
  const graceMs = config.target.stopGraceMs
  let group
  // Where a --cmd's app answers when nodebench knows its port: answering there with no agent heard from is an
  // app that is not Node.js (or that NODE_OPTIONS does not reach).
  let knownBase = null
  if (config.target.cmd === null) {
    const argv = await appArgv(config)
    group = startProcessGroup(process.execPath, ['--require', AGENT, ...argv], { env: agentEnv, stdio, graceMs, name: `the app (${argv[0]})` })
  } else {
    const port = config.target.cmd.includes('{port}') ? await freeLoopbackPort() : null
    const command = commandLine(config.target, { port, processes: 1 })
    if (port !== null) knownBase = baseAt(config.target, port)
    group = startProcessGroup(command, [], {
      shell: true, cwd: config.target.cwd, env: withAgentPreloaded(agentEnv), stdio, graceMs, name: `the app (--cmd "${command}")`
    })
  }
  const stderr = outputCollector()
  group.child.stderr.setEncoding('utf8').on('data', (chunk) => stderr.add(chunk))
  const said = () => {
    const excerpt = startFailure(stderr.text())
    return excerpt ? `:\n  ${excerpt.split('\n').join('\n  ')}` : ' (and printed nothing)'
  }
  const waiting = new Map()
  let nextId = 1
  let agent = null
  const stop = async () => {
    try {
      await group.stop()
    } finally {
      channel.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  return new Promise((resolve, reject) => {
    const fail = (failure) => {
      clearTimeout(timer)
      clearInterval(probe)
      reject(failure)
      for (const pending of waiting.values()) pending.reject(failure)
      waiting.clear()
    }
    const timer = setTimeout(() => {
      stop().finally(() => fail(flameError(`the app did not listen within ${START_TIMEOUT_MS / 1000} s${said()}`)))
    }, START_TIMEOUT_MS)
    let answeredAt = null
    const probe = knownBase === null ? null : setInterval(probeApp, 500)
    function probeApp () {
      fetch(knownBase, { signal: AbortSignal.timeout(1000) }).then((response) => response.arrayBuffer()).then(() => {
        answeredAt ??= Date.now()
        if (agent !== null || Date.now() - answeredAt < NO_AGENT_MS) return
        clearInterval(probe)
        stop().finally(() => fail(flameError(`the app answers at ${knownBase}, but no Node.js process of --cmd loaded the ` +
          'profiler (through NODE_OPTIONS): flame profiles a Node.js app; give its start command, e.g. --cmd ' +
          '"PORT={port} node server.js" or "PORT={port} npm start"')))
      }, () => {})
    }
    group.child.once('exit', (code, signal) => {
      const failure = flameError(`the app exited (${signal || `code ${code}`})${said()}`)
      if (agent === null) stop().finally(() => fail(failure))
      else fail(failure)
    })
    channel.on('connection', (socket) => {
      // The first process of the app that listens is the one profiled; any other stays unprofiled.
      if (agent !== null) return socket.destroy()
      agent = socket
      socket.on('error', () => {})
      let partial = ''
      socket.setEncoding('utf8').on('data', (chunk) => {
        const lines = (partial + chunk).split('\n')
        partial = lines.pop()
        for (const line of lines) {
          try {
            answer(JSON.parse(line))
          } catch {} // not the agent's
        }
      })
    })
    function answer (message) {
      if (message === null || typeof message !== 'object') return
      if (message.nodebenchProfiler === 'listening') {
        clearTimeout(timer)
        clearInterval(probe)
        resolve({
          base: baseAt(config.target, message.port),
          pid: message.pid,
          command: (request) => new Promise((resolve, reject) => {
            const id = nextId++
            waiting.set(id, { resolve, reject })
            agent.write(JSON.stringify({ ...request, id }) + '\n')
          }),
          stop
        })
      } else if (waiting.has(message.id)) {
        const pending = waiting.get(message.id)
        waiting.delete(message.id)
        if (message.nodebenchProfiler === 'failed') pending.reject(flameError(`the profiler in the app failed: ${message.error}`))
        else pending.resolve(message)
      }
    }
  })
}

module.exports = { startWithAgent, appArgv }
