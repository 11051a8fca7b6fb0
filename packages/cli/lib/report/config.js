'use strict'

const path = require('node:path')
const { parseSince } = require('@nodebench/collector')
const { usageError } = require('../usage-error')
const { commandOptions } = require('../command-options')

// `nodebench report`'s configuration from its command line: where the breakdown comes from (--source jaeger,
// prometheus or app, each with its own address option), the window, the output. `--url` is the app's expose
// endpoint; Prometheus's address is `--prometheus` (`--url` with --source prometheus still works, with a notice).

function quote (value) {
  return `'${value}'`
}

const OPTIONS = Object.freeze({
  source: { type: 'string', default: 'jaeger' },
  jaeger: { type: 'string' },
  service: { type: 'string' },
  since: { type: 'string', default: '10m' },
  url: { type: 'string' },
  prometheus: { type: 'string' },
  header: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  md: { type: 'boolean', default: false },
  out: { type: 'string' },
  trace: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
})

/**
 * `nodebench report --source jaeger [--jaeger <query-url>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source prometheus [--prometheus <url>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source app --url <expose-url> [--header 'name: value']... [--json|--md]`
 * `nodebench report --trace <id> [--jaeger <query-url>]`
 * Each but --trace takes `--out <dir>`, where report.html goes (from Jaeger, by default runs/report-<time>).
 * `notices`: lines for stderr (an old spelling still accepted).
 */
function parseReportArguments (argv, env = process.env, { now = new Date() } = {}) {
  const values = commandOptions('report').parse(argv, OPTIONS)
  if (values.help) return { command: 'help' }
  if (values.json && values.md) throw usageError('report: --json and --md exclude each other; pick one')
  const format = values.json ? 'json' : values.md ? 'md' : 'table'
  const outDir = values.out === undefined ? null : path.resolve(values.out)
  if (values.trace !== undefined) {
    const others = ['service', 'url', 'prometheus', 'header', 'out', 'md'].filter((name) => values[name] !== undefined && values[name] !== false)
    if (values.source !== 'jaeger' || others.length > 0) {
      throw usageError(`report --trace: one trace from Jaeger (--jaeger <query-url>); --${others[0] ?? 'source'} does not go with it`)
    }
    const jaeger = values.jaeger ?? env.JAEGER_QUERY_URL ?? 'http://localhost:16686'
    return { command: 'report', source: 'jaeger', jaeger, trace: values.trace, format: values.json ? 'json' : 'text' }
  }
  if (values.source === 'app') {
    if (!values.url) throw usageError('report --source app: --url is required, e.g. --url http://127.0.0.1:3000/__nodebench')
    return { command: 'report', source: 'app', url: values.url, headers: parseHeaders(values.header || []), format, outDir }
  }
  if (values.header !== undefined) throw usageError('report: --header goes with --source app (the request to the app)')
  if (values.prometheus !== undefined && values.source !== 'prometheus') {
    throw usageError(`report: --prometheus goes with --source prometheus; received --source ${quote(values.source)}`)
  }
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
  if (values.source === 'prometheus') return prometheusConfig(values, env, { service, format, outDir })
  if (values.url !== undefined) throw usageError('report --source jaeger: --url goes with --source app; Jaeger\'s address is --jaeger')
  const jaeger = values.jaeger ?? env.JAEGER_QUERY_URL ?? 'http://localhost:16686'
  // Its exemplar traces are drawn on a page: one is written unless told where.
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return { command: 'report', source: 'jaeger', jaeger, service, since: values.since, format, outDir: outDir ?? path.resolve('runs', `report-${stamp}`) }
}

/** --source prometheus: its address from --prometheus (or the old --url, with a notice), else PROMETHEUS_URL. */
function prometheusConfig (values, env, { service, format, outDir }) {
  if (values.jaeger !== undefined) throw usageError('report: --jaeger goes with --source jaeger; Prometheus\'s address is --prometheus')
  if (values.url !== undefined && values.prometheus !== undefined) {
    throw usageError('report --source prometheus: --url is the old spelling of --prometheus; give --prometheus only')
  }
  const notices = values.url === undefined ? [] : ['--url with --source prometheus is deprecated: use --prometheus <url>']
  // null: the `prometheus` service's, when it runs (read when the command runs), else localhost:9090.
  const prometheus = values.prometheus ?? values.url ?? env.PROMETHEUS_URL ?? null
  return { command: 'report', source: 'prometheus', prometheus, service, since: values.since, format, outDir, notices }
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

module.exports = { parseReportArguments }
