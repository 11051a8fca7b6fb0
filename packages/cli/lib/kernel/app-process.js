'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { freeLoopbackPort } = require('@nodebench/services')
const { codes, NodebenchError } = require('@nodebench/errors')
const { commandLine, baseAt, noServerScript } = require('./app-target')
const { outputCollector, startFailure } = require('./app-output')
const { fillValues } = require('./sweep')
const { startProcessGroup } = require('./process-group')

// The app under load (app-target.js names it), started for a bench cell, a browser run: an app directory with
// the example's entry points (`server.js --port <p> --processes <n>`, printing `listening on <url>`), a command
// of the user's (`--cmd`, with {port} and {processes} filled in, ready when it answers), or an app already
// running (`--url` alone, never started or stopped). Whatever form starts it, it runs as a process group of
// its own and is stopped as one (process-group.js): SIGTERM, the target's grace (--stop-grace), SIGKILL.

const START_TIMEOUT_MS = 60_000

function appError (message) {
  return new NodebenchError(codes.NB_ERR_APP_START, message)
}

/**
 * `onNotice(line)` hears each line the app writes to stderr that starts with `nodebench: ` (what nodebench's
 * middleware says in it: no collector answered its exports), for the caller to pass on.
 * Resolves to `{ base, pid, stop(), kill() }` once the app answers: `stop` ends it gracefully, `kill` at once
 * (SIGKILL, an instance dying abruptly); an app at --url alone has neither (pid null). `args`: more
 * arguments for an app directory's server.js (`--server-timing` for nodebench browser). `traced: false`
 * starts it with NODEBENCH=off (the app without nodebench, which an app directory's server.js honours). `values`: a
 * cell's varied values (kernel/sweep.js), filled into --cmd's placeholders and `start` (the workload's `{ args,
 * env }` for an app directory's server.js).
 */
async function startApp (target, options) {
  const { processes, env, args = [], onNotice = () => {}, traced = true, values = {}, start = null } = options
  const graceMs = target.stopGraceMs
  const nodebench = traced ? 'on' : 'off'
  const startEnv = {}
  for (const [name, value] of Object.entries(start?.env ?? {})) startEnv[name] = fillValues(value, values)
  if (target.app !== null) {
    const script = path.join(target.app, 'server.js')
    if (!fs.existsSync(script)) throw appError(noServerScript(target.app))
    const startArgs = (start?.args ?? []).map((arg) => fillValues(arg, values))
    const scriptEnv = { ...env, ...startEnv, NODEBENCH: nodebench }
    return startScript(script, { processes, env: scriptEnv, args: [...args, ...startArgs], onNotice, graceMs, name: `the app (${script})` })
  }
  if (target.cmd !== null) {
    return startCommand(target, { processes, values, env: { ...env, ...startEnv, ...(traced ? {} : { NODEBENCH: 'off' }) }, onNotice, graceMs })
  }
  await waitUntilAnswering(target.url, { deadline: Date.now() + 5000, exited: () => null })
  return { base: target.url, pid: null, stop: async () => {}, kill () {} }
}

/**
 * A Node.js script with an app directory's entry point (`<script> --port 0 --processes <n> [args]`, printing
 * `listening on <url>`), run with this process's Node.js; resolves as startApp. `graceMs`: how long it may take
 * to stop after SIGTERM (process-group.js), `name` what the line saying it did not calls it.
 */
function startScript (script, { processes, env, args = [], onNotice = () => {}, graceMs, name = `'${script}'` }) {
  const argv = [script, '--port', '0', '--processes', String(processes), ...args]
  const group = startProcessGroup(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], graceMs, name })
  const { child, stop } = group
  const output = captureOutput(child, onNotice)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(appError(`the app did not print "listening on" within ${START_TIMEOUT_MS / 1000} s${output.tail()}`))
    }, START_TIMEOUT_MS)
    child.stdout.on('data', () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(output.stdout())
      if (match) {
        clearTimeout(timer)
        resolve({ base: match[1], pid: child.pid, stop, kill: group.kill })
      }
    })
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(appError(`the app could not be started: ${err.message}`))
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      // What it printed last may still be in the pipe: read it to its end (or for half a second).
      const ended = child.stderr.readableEnded ? Promise.resolve() : new Promise((resolve) => { child.stderr.once('end', resolve); setTimeout(resolve, 500) })
      ended.then(() => reject(appError(`the app exited (${signal || `code ${code}`}) before listening${output.tail()}`)))
    })
  })
}

async function startCommand (target, { processes, values = {}, env, onNotice, graceMs }) {
  const port = target.cmd.includes('{port}') ? await freeLoopbackPort() : null
  const command = fillValues(commandLine(target, { port, processes }), values)
  const base = port === null ? target.url : baseAt(target, port)
  // `target.cwd`: where the command runs (a revision's copy of the app, nodebench compare --rev-a/-b). The shell
  // (or npm) is nodebench's child and the app its child: the group holds both.
  const group = startProcessGroup(command, [], {
    shell: true, cwd: target.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], graceMs, name: `the app (--cmd "${command}")`
  })
  const output = captureOutput(group.child, onNotice)
  try {
    const deadline = Date.now() + START_TIMEOUT_MS
    await waitUntilAnswering(base, { deadline, exited: group.exited, tail: output.tail })
  } catch (err) {
    await group.stop()
    throw err
  }
  return { base, pid: group.pid, stop: group.stop, kill: group.kill }
}

/** Polls `base` until it answers HTTP at all (any status). */
async function waitUntilAnswering (base, { deadline, exited, tail = () => '' }) {
  for (;;) {
    if (exited() !== null) throw appError(`the app exited (${exited()}) before ${base} answered${tail()}`)
    try {
      const response = await fetch(base, { signal: AbortSignal.timeout(2000) })
      await response.arrayBuffer()
      return
    } catch (err) {
      if (Date.now() > deadline) {
        const reason = (err.cause && (err.cause.code || err.cause.message)) || err.message
        throw appError(`${base} is not reachable (${reason})${tail()}`)
      }
    }
    await sleep(200)
  }
}

function captureOutput (child, onNotice = () => {}) {
  let stdout = ''
  let partial = ''
  const stderr = outputCollector()
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr.add(chunk)
    const lines = (partial + chunk).split('\n')
    partial = lines.pop().slice(-2000)
    for (const line of lines) if (line.startsWith('nodebench: ')) onNotice(line.slice('nodebench: '.length))
  })
  return {
    stdout: () => stdout,
    // Why it failed, from its first error line (app-output.js).
    tail: () => {
      const said = startFailure(stderr.text())
      return said ? `:\n  ${said.split('\n').join('\n  ')}` : ''
    }
  }
}

module.exports = { startApp, startScript }
