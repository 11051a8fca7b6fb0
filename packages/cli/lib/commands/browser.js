'use strict'

const path = require('node:path')
const { commandOptions } = require('../command-options')
const { APP_TARGET_OPTIONS } = require('../kernel/app-target')
const { displayPath } = require('../kernel/paths')
const { browserConfig, runBrowser } = require('../api')
const { renderBrowserText } = require('../browser/report')

// `nodebench browser`: the options, then runBrowser (lib/api.js: the loads, browser.json, browser.md and
// browser.html), and the medians on stdout (or the results with --json). Progress on stderr; exit 1 when a load
// failed (its row says why).

const { parseCommand } = commandOptions('browser')

const OPTIONS = Object.freeze({
  ...APP_TARGET_OPTIONS,
  'front-ends': { type: 'string' },
  pages: { type: 'string' },
  runs: { type: 'string' },
  cache: { type: 'string' },
  network: { type: 'string' },
  timeout: { type: 'string' },
  quick: { type: 'boolean' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
})

/** `nodebench browser [options]` -> `{ command: 'browser', config }` (browserConfig's) or `{ command: 'help' }`. */
function parseBrowserArguments (argv, { now = new Date() } = {}) {
  return parseCommand(argv, OPTIONS, (values) => browserConfig(values, { now }))
}

async function runBrowserCommand ({ config }, { stdout, stderr, env }) {
  const onProgress = (message) => stderr.write(`nodebench browser: ${message}\n`)
  const { results, resultsFile, report } = await runBrowser(config, { env, onProgress })
  stdout.write(config.json ? JSON.stringify(results, null, 2) + '\n' : renderBrowserText(results))
  stderr.write(`nodebench browser: ${results.loads.length} loads in ${Math.round(results.durationSec)} s; results ${displayPath(resultsFile)}, ` +
    `report ${displayPath(report.html)} (and ${path.basename(report.markdown)})\n`)
  const failed = results.loads.filter((load) => load.status !== 'ok')
  if (failed.length > 0) {
    stderr.write(`nodebench: ${failed.length} load${failed.length === 1 ? '' : 's'} failed: ${failed[0].page}, ${failed[0].frontEnd}: ${failed[0].failure}\n`)
    return 1
  }
  return 0
}

module.exports = { parseBrowserArguments, runBrowserCommand, OPTIONS }
