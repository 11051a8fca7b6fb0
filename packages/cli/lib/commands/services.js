'use strict'

const { commandServices } = require('../service-table')

// `nodebench services start|stop|status [name]`. Progress goes to stderr; stdout carries the results, and
// for `start` ends with the variables that reach the services (MONGODB_URI=...), so that
// `export $(nodebench services start db | tail -n 1)` works.

function describeStatus (status) {
  if (!status.running) return `${status.name}: not running`
  const owner = status.owner === null ? '' : `, stops with pid ${status.owner}`
  const answering = status.answering ? '' : ', NOT answering'
  return `${status.name}: running, pid ${status.pid}, ${status.uri}, since ${status.startedAt}${owner}${answering}`
}

function describeStart (started) {
  if (started.alreadyRunning) {
    const owner = started.owner === null ? '' : `, started by pid ${started.owner} and stops with it`
    return `nodebench: ${started.name} already running (pid ${started.pid}, since ${started.startedAt}${owner})`
  }
  return `nodebench: ${started.name} started (pid ${started.pid}, log ${started.logFile}); ` +
    `stop it with \`nodebench services stop ${started.name}\``
}

function describeStop (stopped) {
  return stopped.wasRunning ? `${stopped.name}: stopped (pid ${stopped.pid})` : `${stopped.name}: not running`
}

const ACTIONS = Object.freeze({
  async start (names, { stdout, stderr, env }, settings) {
    const variables = []
    for (const name of names) {
      const started = await commandServices().startService(name, { env, settings, onProgress: (message) => stderr.write(`${message}\n`) })
      stderr.write(`${describeStart(started)}\n`)
      variables.push(...Object.entries(started.env).map(([key, value]) => `${key}=${value}`))
    }
    stdout.write(variables.map((line) => `${line}\n`).join(''))
  },
  async stop (names, { stdout, env }) {
    for (const name of names) stdout.write(`${describeStop(await commandServices().stopService(name, { env }))}\n`)
  },
  async status (names, { stdout, env }) {
    for (const name of names) stdout.write(`${describeStatus(await commandServices().serviceStatus(name, { env }))}\n`)
  }
})

/** Runs `{ action, services, settings }` from parseArguments; resolves to the exit code. */
async function runServicesCommand ({ action, services, settings = {} }, streams) {
  await ACTIONS[action](services, streams, settings)
  return 0
}

module.exports = { runServicesCommand, describeStatus, describeStart, describeStop }
