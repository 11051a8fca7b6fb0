'use strict'

const path = require('node:path')
const { parseArgs } = require('node:util')
const { parseSince } = require('@nodebench/collector')
const { usageError } = require('../usage-error')
const { optionErrorMessage } = require('../suggest')
const { runReport, runTrace } = require('../api')
const { renderReport } = require('../report/render')
const { waterfallText } = require('../render/waterfall')
const { displayPath } = require('../kernel/paths')

// `nodebench report --source jaeger|prometheus|app`: the options, then runReport (lib/api.js), and the
// breakdown's tables on stdout (or the snapshot with --json); report.html (from Jaeger by default, else with
// --out) with each operation's exemplar requests drawn as waterfalls. `report --trace <id>`: one trace's
// waterfall as text.

function quote (value) {
  return `'${value}'`
}

const OPTIONS = Object.freeze({
  source: { type: 'string', default: 'jaeger' },
  jaeger: { type: 'string' },
  service: { type: 'string' },
  since: { type: 'string', default: '10m' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  md: { type: 'boolean', default: false },
  out: { type: 'string' },
  trace: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
})

/**
 * `nodebench report --source jaeger [--jaeger <query-url>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source prometheus [--url <prometheus>] --service <name> [--since 10m] [--json|--md]`
 * `nodebench report --source app --url <expose-url> [--header 'name: value']... [--json|--md]`
 * `nodebench report --trace <id> [--jaeger <query-url>]`
 * Each but --trace takes `--out <dir>`, where report.html goes (from Jaeger, by default runs/report-<time>).
 */
function parseReportArguments (argv, env = process.env, { now = new Date() } = {}) {
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }))
  } catch (err) {
    throw usageError(`report: ${optionErrorMessage(err, OPTIONS)}`)
  }
  if (values.help) return { command: 'help' }
  if (values.json && values.md) throw usageError('report: --json and --md exclude each other; pick one')
  const format = values.json ? 'json' : values.md ? 'md' : 'table'
  const outDir = values.out === undefined ? null : path.resolve(values.out)
  if (values.trace !== undefined) {
    const others = ['service', 'url', 'header', 'out', 'md'].filter((name) => values[name] !== undefined && values[name] !== false)
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
    return { command: 'report', source: 'prometheus', url, service, since: values.since, format, outDir }
  }
  if (values.url !== undefined) throw usageError('report --source jaeger: --url goes with --source app or prometheus; Jaeger\'s address is --jaeger')
  const jaeger = values.jaeger ?? env.JAEGER_QUERY_URL ?? 'http://localhost:16686'
  // Its exemplar traces are drawn on a page: one is written unless told where.
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return { command: 'report', source: 'jaeger', jaeger, service, since: values.since, format, outDir: outDir ?? path.resolve('runs', `report-${stamp}`) }
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

async function runReportCommand (parsed, { stdout, stderr, env }) {
  const onProgress = (message) => stderr.write(`nodebench report: ${message}\n`)
  if (parsed.trace !== undefined) {
    onProgress(`reading trace ${parsed.trace} from Jaeger at ${parsed.jaeger}`)
    const waterfall = await runTrace(parsed)
    stdout.write(parsed.format === 'json' ? JSON.stringify(waterfall, null, 2) + '\n' : waterfallText(waterfall))
    return 0
  }
  const { snapshot, jaegerUi, page } = await runReport(parsed, { env, onProgress })
  stdout.write(parsed.format === 'json' ? JSON.stringify(snapshot, null, 2) + '\n' : renderReport(snapshot, { ...parsed, jaegerUi, page }))
  if (page !== null) stderr.write(`nodebench report: ${displayPath(page)}\n`)
  return 0
}

module.exports = { parseReportArguments, runReportCommand }
