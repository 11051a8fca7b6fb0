'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { appTargetOf, workloadOf } = require('../kernel/app-target')
const { NETWORK_PRESETS } = require('./network')
const { usageError, wholeNumber, listOf } = commandOptions('browser')

// `browser`'s options -> a frozen configuration (what runBrowser takes). The app and its workload are named as
// for every command (kernel/app-target.js); the front ends and pages are the workload's
// (kernel/workload-browser.js: the study's server-rendered pages and its single-page port for
// examples/mongo-admin); a page may also be given as a path of the app's.

const CACHES = Object.freeze(['cold', 'warm'])
const DEFAULT_RUNS = 5
const DEFAULT_TIMEOUT_SEC = 30

/**
 * The configuration of a browser run from option values (parseArgs', or the same names from JavaScript; `quick`:
 * two runs a page). Throws NB_ERR_USAGE for anything not understood. `workload`: one already read (bench's
 * browser pass hands in its own).
 */
function browserConfig (values, { now = new Date(), workload: givenWorkload } = {}) {
  const target = appTargetOf(values, { command: 'browser' })
  const workload = givenWorkload ?? workloadOf(values, target)
  const browser = workload.browser
  if (browser === null) throw usageError(`workload ${path.basename(workload.file)} has no browser part (front ends and pages) to load`)
  const frontEnds = values['front-ends'] ? listOf(values['front-ends'], 'front-ends', Object.keys(browser.frontEnds)) : Object.keys(browser.frontEnds)
  const pages = values.pages ? listOf(values.pages, 'pages', Object.keys(browser.pages), { paths: true }) : [...browser.defaultPages]
  const caches = listOf(values.cache ?? 'cold,warm', 'cache', CACHES)
  const network = values.network ?? 'none'
  if (!Object.hasOwn(NETWORK_PRESETS, network)) {
    throw usageError(`--network must be one of ${Object.keys(NETWORK_PRESETS).join(', ')}; received '${network}'`)
  }
  const runs = values.runs !== undefined ? wholeNumber(values.runs, 'runs', 1, 100) : values.quick ? 2 : DEFAULT_RUNS
  const timeoutSec = values.timeout !== undefined ? wholeNumber(values.timeout, 'timeout', 1, 600) : DEFAULT_TIMEOUT_SEC
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return Object.freeze({
    target,
    workload,
    frontEnds,
    pages,
    caches,
    network,
    runs,
    timeoutSec,
    outDir: path.resolve(values.out ?? path.join('runs', `browser-${stamp}`)),
    json: Boolean(values.json)
  })
}

module.exports = { browserConfig, CACHES }
