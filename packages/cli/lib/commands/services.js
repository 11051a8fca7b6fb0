'use strict'

const { parseArgs } = require('node:util')
const { usageError } = require('../usage-error')
const { optionErrorMessage } = require('../suggest')
const { commandServices } = require('../kernel/service-table')

// `nodebench services start|stop|status [name]`. Progress goes to stderr; stdout carries the results, and
// for `start` ends with the variables that reach the services (MONGODB_URI=...), so that
// `export $(nodebench services start db | tail -n 1)` works.

const SERVICE_ACTIONS = Object.freeze(['start', 'stop', 'status'])

function quote (value) {
  return `'${value}'`
}

/**
 * `services <start|stop|status> [name] [options]`: options are those of the named service's `start`
 * (Prometheus: --target, --targets-file, --scrape-interval).
 */
function parseServicesArguments ([action, ...rest]) {
  if (action === undefined) throw usageError(`services: missing action; expected one of ${SERVICE_ACTIONS.join(', ')}`)
  if (!SERVICE_ACTIONS.includes(action)) {
    throw usageError(`services: unknown action ${quote(action)}; expected one of ${SERVICE_ACTIONS.join(', ')}`)
  }
  const name = rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : undefined
  const known = commandServices().serviceNames()
  if (name !== undefined && !known.includes(name)) {
    throw usageError(`unknown service ${quote(name)}; expected one of ${known.join(', ')}`)
  }
  const { options, parseOptions } = action === 'start' && name !== undefined
    ? commandServices().serviceOptions(name)
    : { options: {}, parseOptions: () => ({}) }
  let values
  const args = rest.slice(name === undefined ? 0 : 1)
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } }
  try {
    ;({ values } = parseArgs({ args, options: withHelp, allowPositionals: false, strict: true }))
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw usageError(`services ${action}: unexpected ${quote(/'([^']+)'/.exec(err.message)?.[1] ?? err.message)}; expected at most one service name`)
    }
    const accepted = [...Object.keys(options).map((option) => `--${option}`), '--help']
    const problem = optionErrorMessage(err, withHelp)
    const expected = problem.endsWith('?') ? '' : `; expected ${accepted.join(', ')}`
    throw usageError(`services ${action}${name === undefined ? '' : ` ${name}`}: ${problem}${expected}`)
  }
  if (values.help) return { command: 'help' }
  const { help, ...given } = values
  return { command: 'services', action, services: name === undefined ? known : [name], settings: parseOptions(given) }
}

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

/**
 * What `services start jaeger` says of Jaeger's UI: where it is, or, for a Jaeger built from its Go module (no UI
 * assets: its page is a placeholder), that there is none and where traces are drawn instead.
 */
async function jaegerUiNote (uri) {
  const { JaegerClient } = require('@nodebench/collector')
  if (await new JaegerClient({ url: uri, timeoutMs: 5000 }).hasUi()) return `nodebench: Jaeger's UI: ${uri}\n`
  return `nodebench: this Jaeger has no UI (a build from its Go module: ${uri} shows a placeholder page). To see traces, ` +
    '`nodebench report --source jaeger --service <name>` draws each operation\'s slowest and a median request as waterfalls ' +
    'in report.html, and `nodebench report --trace <id>` prints one; for Jaeger\'s own UI, run the jaegertracing/jaeger image ' +
    '(examples/mongo-admin/docker-compose.yml)\n'
}

/** Said once at `services start db`: the same URI for an app that reads another variable than MONGODB_URI. */
function otherVariablesNote (uri) {
  return `nodebench: an app that reads MONGODB_URL or DATABASE_URL takes the same URI: MONGODB_URL=${uri} ` +
    `(or DATABASE_URL=${uri}); --database <name> names another database\n`
}

const ACTIONS = Object.freeze({
  async start (names, { stdout, stderr, env }, settings) {
    const variables = []
    for (const name of names) {
      const started = await commandServices().startService(name, { env, settings, onProgress: (message) => stderr.write(`${message}\n`) })
      stderr.write(`${describeStart(started)}\n`)
      if (name === 'jaeger') stderr.write(await jaegerUiNote(started.uri))
      if (name === 'db') stderr.write(otherVariablesNote(started.env.MONGODB_URI))
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

module.exports = {
  parseServicesArguments,
  runServicesCommand,
  describeStatus,
  describeStart,
  describeStop,
  jaegerUiNote,
  otherVariablesNote
}
