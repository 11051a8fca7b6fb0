'use strict'

const path = require('node:path')
const { workloadFileOf, loadWorkload } = require('../workload')
const { commandOptions } = require('../command-options')
const { defaultApp } = require('../default-app')
const { NETWORK_PRESETS } = require('./network')
const { usageError, parse, wholeNumber, baseUrl } = commandOptions('browser')

// `nodebench browser` options -> a frozen configuration. The front ends and pages are the workload's
// (workload-browser.js: the study's server-rendered pages and its single-page port for examples/mongo-admin);
// a page may also be given as a path of the app's.

const CACHES = Object.freeze(['cold', 'warm'])
const DEFAULT_RUNS = 5
const DEFAULT_TIMEOUT_SEC = 30

function listOf (text, name, known, { paths = false } = {}) {
  const items = [...new Set(String(text).split(',').map((item) => item.trim()).filter(Boolean))]
  if (items.length === 0) throw usageError(`--${name} is empty; expected a comma-separated list of ${known.join(', ')}`)
  for (const item of items) {
    if (paths && item.startsWith('/')) continue
    if (!known.includes(item)) {
      throw usageError(`unknown ${name.replace(/s$/, '').replace(/-/, ' ')} '${item}'; expected one of ${known.join(', ')}${paths ? ', or a path such as /db/nodebench' : ''}`)
    }
  }
  return items
}

const OPTIONS = {
  app: { type: 'string' },
  url: { type: 'string' },
  workload: { type: 'string' },
  'front-ends': { type: 'string' },
  pages: { type: 'string' },
  runs: { type: 'string' },
  cache: { type: 'string', default: 'cold,warm' },
  network: { type: 'string', default: 'none' },
  timeout: { type: 'string' },
  quick: { type: 'boolean', default: false },
  out: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' }
}

/**
 * Parses `nodebench browser` arguments. Throws NB_ERR_USAGE (exit 2) for anything not understood.
 * @returns {{ command: 'help' } | { command: 'browser', config: object }}
 */
function parseBrowserArguments (argv, { now = new Date() } = {}) {
  const values = parse(argv, OPTIONS)
  if (values.help) return { command: 'help' }
  return { command: 'browser', config: browserConfig(values, { now }) }
}

/** The configuration from parseArgs' `values` (also what `bench --browser` builds its pass from). */
function browserConfig (values, { now = new Date(), outDir } = {}) {
  if (values.app !== undefined && values.url !== undefined) throw usageError('--app excludes --url: either nodebench starts the app, or you say where it runs')
  const url = values.url === undefined ? null : baseUrl(values.url)
  const app = url === null ? (values.app !== undefined ? path.resolve(values.app) : defaultApp()) : null
  if (app === null && url === null) throw usageError('no app to load: give --app <dir> or --url <base>')
  const workload = loadWorkload(workloadFileOf(values.workload, app))
  const browser = workload.browser
  if (browser === null) throw usageError(`workload ${path.basename(workload.file)} has no browser part (front ends and pages) to load`)
  const frontEnds = values['front-ends'] ? listOf(values['front-ends'], 'front-ends', Object.keys(browser.frontEnds)) : Object.keys(browser.frontEnds)
  const pages = values.pages ? listOf(values.pages, 'pages', Object.keys(browser.pages), { paths: true }) : [...browser.defaultPages]
  const caches = listOf(values.cache, 'cache', CACHES)
  if (!Object.hasOwn(NETWORK_PRESETS, values.network)) {
    throw usageError(`--network must be one of ${Object.keys(NETWORK_PRESETS).join(', ')}; received '${values.network}'`)
  }
  const runs = values.runs !== undefined ? wholeNumber(values.runs, 'runs', 1, 100) : values.quick ? 2 : DEFAULT_RUNS
  const timeoutSec = values.timeout !== undefined ? wholeNumber(values.timeout, 'timeout', 1, 600) : DEFAULT_TIMEOUT_SEC
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return Object.freeze({
    app,
    url,
    cmd: null,
    workload,
    frontEnds,
    pages,
    caches,
    network: values.network,
    runs,
    timeoutSec,
    outDir: outDir ?? path.resolve(values.out ?? path.join('runs', `browser-${stamp}`)),
    json: Boolean(values.json)
  })
}

module.exports = { parseBrowserArguments, browserConfig, CACHES }
