'use strict'

const { parseArgs } = require('node:util')
const { commandServices } = require('./service-table')
const { usageError } = require('./usage-error')
const { parseSince } = require('@nodebench/collector')
const { parseBenchArguments } = require('./bench/config')
const { parseFlameArguments } = require('./flame/config')
const { parseBrowserArguments } = require('./browser/config')

const SERVICE_ACTIONS = Object.freeze(['start', 'stop', 'status'])

function quote (value) {
  return `'${value}'`
}

function parseOptions (argv) {
  try {
    return parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(err.message)?.[1] ?? err.message
      throw usageError(`unknown option ${quote(option)}; expected --help`)
    }
    throw usageError(err.message)
  }
}

/**
 * `services <start|stop|status> [name] [options]`: options are those of the named service's `start`
 * (Prometheus: --target, --targets-file, --scrape-interval).
 */
function parseServices ([action, ...rest]) {
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
  try {
    const args = rest.slice(name === undefined ? 0 : 1)
    const withHelp = { ...options, help: { type: 'boolean', short: 'h' } }
    ;({ values } = parseArgs({ args, options: withHelp, allowPositionals: false, strict: true }))
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw usageError(`services ${action}: unexpected ${quote(/'([^']+)'/.exec(err.message)?.[1] ?? err.message)}; expected at most one service name`)
    }
    const accepted = [...Object.keys(options).map((option) => `--${option}`), '--help']
    const option = /'([^']+)'/.exec(err.message)?.[1]
    const problem = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option ? `unknown option ${quote(option)}` : err.message
    throw usageError(`services ${action}${name === undefined ? '' : ` ${name}`}: ${problem}; expected ${accepted.join(', ')}`)
  }
  if (values.help) return { command: 'help' }
  const { help, ...given } = values
  return { command: 'services', action, services: name === undefined ? known : [name], settings: parseOptions(given) }
}

/** `nodebench demo [--out <dir>]`: `nodebench bench --quick --browser` on the example app. */
function parseDemo (argv) {
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true }))
  } catch (err) {
    throw usageError(`demo: ${err.message}; expected --out <dir>`)
  }
  if (values.help) return { command: 'help' }
  return parseBenchArguments(['--quick', '--browser', ...(values.out === undefined ? [] : ['--out', values.out])])
}

/**
 * `nodebench report --source jaeger [--jaeger <query-url>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source prometheus [--url <prometheus>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source app --url <expose-url> [--header 'name: value']... [--json|--md]`
 */
function parseReport (argv, env) {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        source: { type: 'string', default: 'jaeger' },
        jaeger: { type: 'string' },
        service: { type: 'string' },
        since: { type: 'string', default: '10m' },
        url: { type: 'string' },
        header: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        md: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' }
      },
      allowPositionals: false,
      strict: true
    }))
  } catch (err) {
    throw usageError(`report: ${err.message}`)
  }
  if (values.help) return { command: 'help' }
  if (values.json && values.md) throw usageError('report: --json and --md exclude each other; pick one')
  const format = values.json ? 'json' : values.md ? 'md' : 'table'
  if (values.source === 'app') {
    if (!values.url) throw usageError('report --source app: --url is required, e.g. --url http://127.0.0.1:3000/__nodebench')
    return { command: 'report', source: 'app', url: values.url, headers: parseHeaders(values.header || []), format }
  }
  if (values.header !== undefined) throw usageError('report: --header goes with --source app (the request to the app)')
  if (values.source !== 'jaeger' && values.source !== 'prometheus') {
    throw usageError(`report: --source must be jaeger, prometheus or app; received ${quote(values.source)}`)
  }
  const service = values.service ?? env.OTEL_SERVICE_NAME
  if (!service) throw usageError(`report --source ${values.source}: --service is required (or OTEL_SERVICE_NAME), e.g. --service mongo-admin`)
  try {
    parseSince(values.since)
  } catch (err) {
    throw usageError(`report: ${err.message}`)
  }
  if (values.source === 'prometheus') {
    if (values.jaeger !== undefined) throw usageError('report: --jaeger goes with --source jaeger; Prometheus\'s address is --url')
    // null: the `prometheus` service's, when it runs (read when the command runs), else localhost:9090.
    const url = values.url ?? env.PROMETHEUS_URL ?? null
    return { command: 'report', source: 'prometheus', url, service, since: values.since, format }
  }
  if (values.url !== undefined) throw usageError('report --source jaeger: --url goes with --source app or prometheus; Jaeger\'s address is --jaeger')
  const jaeger = values.jaeger ?? env.JAEGER_QUERY_URL ?? 'http://localhost:16686'
  return { command: 'report', source: 'jaeger', jaeger, service, since: values.since, format }
}

/** `--header 'x-nodebench-token: s3cret'` (repeatable) -> `{ 'x-nodebench-token': 's3cret' }`. */
function parseHeaders (headers) {
  const parsed = {}
  for (const header of headers) {
    const colon = header.indexOf(':')
    const name = colon === -1 ? '' : header.slice(0, colon).trim().toLowerCase()
    if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) {
      throw usageError(`report: --header must be 'name: value', e.g. --header 'x-nodebench-token: ...'; received ${quote(header)}`)
    }
    parsed[name] = header.slice(colon + 1).trim()
  }
  return parsed
}

/**
 * `nodebench <command> ...` -> `{ command: 'help' }`, `{ command: 'services', action, services }`,
 * `{ command: 'bench', config }` (also for `demo`, which is `bench --quick`) or `{ command: 'report', ... }`.
 * Throws NB_ERR_USAGE for anything else.
 */
function parseArguments (argv, env = process.env) {
  if (argv[0] === 'demo') return parseDemo(argv.slice(1))
  if (argv[0] === 'report') return parseReport(argv.slice(1), env)
  if (argv[0] === 'bench') return parseBenchArguments(argv.slice(1))
  if (argv[0] === 'flame') return parseFlameArguments(argv.slice(1))
  if (argv[0] === 'services') return parseServices(argv.slice(1))
  if (argv[0] === 'browser') return parseBrowserArguments(argv.slice(1))
  const { values, positionals } = parseOptions(argv)
  const [command] = positionals
  if (values.help || command === undefined || command === 'help') return { command: 'help' }
  throw usageError(`unknown command ${quote(command)}; expected bench, browser, demo, flame, report, services or help`)
}

module.exports = { parseArguments }
