'use strict'

const fs = require('node:fs')
const path = require('node:path')
const Table = require('cli-table3')
const { escapeHtml } = require('@nodebench/breakdown')
const { runBrowser } = require('../browser/run')
const { renderBrowserMarkdown, renderBrowserHtml, renderBrowserCharts, loadTable } = require('../browser/report')
const { STYLE } = require('../bench/report-page')

// `nodebench browser`: the study's client-side half. Loads each front end's pages in Chromium, writes
// browser.json (every load), browser.md and browser.html (charts), and prints the medians. Progress on
// stderr; exit 1 when a load failed (its row says why).

/** browser.md and browser.html beside browser.json; resolves to their paths. */
async function writeBrowserReport (results, outDir) {
  const markdown = path.join(outDir, 'browser.md')
  const html = path.join(outDir, 'browser.html')
  fs.writeFileSync(markdown, `# nodebench browser report\n\n${renderBrowserMarkdown(results)}`)
  const body = renderBrowserHtml(results, await renderBrowserCharts(results))
  fs.writeFileSync(html, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>nodebench browser report</title>
<style>${STYLE}</style></head><body><main>
<header><h1>nodebench browser report</h1>
<p class="headline">${escapeHtml(`${results.workload.name}: ${results.config.frontEnds.join(' and ')}, ${results.config.pages.join(', ')}; ` +
  `${results.config.runs} runs, ${results.config.caches.join(' and ')} cache, network ${results.config.network}; ${results.createdAt}`)}</p></header>
${body}
</main></body></html>
`)
  return { markdown, html }
}

// No rule between body rows, no colours: one line per load, the same in a terminal and in a CI log.
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }

// The columns a terminal shows (the reports have every one).
const TERMINAL_COLUMNS = Object.freeze(['page', 'front end', 'cache', 'runs', 'load ms', 'ready ms', 'heap after GC MB', 'script ms',
  'server ms', 'network ms', 'client ms'])

/** loadTable's medians for a terminal; a failed row's reason across its figures. */
function textTable ({ head, rows }) {
  const columns = TERMINAL_COLUMNS.map((name) => head.indexOf(name))
  const table = new Table({ head: [...TERMINAL_COLUMNS], chars: COMPACT, style: { head: [], border: [] } })
  for (const row of rows) {
    if (row.message) {
      const figures = row.cells.length - 1
      table.push([...row.cells.slice(0, figures), { content: `${row.cells[figures]}: ${row.message}`, colSpan: TERMINAL_COLUMNS.length - figures }])
    } else {
      table.push(columns.map((i) => row.cells[i]))
    }
  }
  return table.toString() + '\n'
}

async function runBrowserCommand (parsed, { stdout, stderr, env }) {
  const config = parsed.config
  const onProgress = (message) => stderr.write(`nodebench browser: ${message}\n`)
  const { results, resultsFile } = await runBrowser(config, { env, onProgress })
  const report = await writeBrowserReport(results, config.outDir)
  stdout.write(config.json ? JSON.stringify(results, null, 2) + '\n' : textTable(loadTable(results)))
  const relative = (file) => path.relative(process.cwd(), file) || file
  stderr.write(`nodebench browser: ${results.loads.length} loads in ${Math.round(results.durationSec)} s; results ${relative(resultsFile)}, ` +
    `report ${relative(report.html)} (and ${path.basename(report.markdown)})\n`)
  const failed = results.loads.filter((load) => load.status !== 'ok')
  if (failed.length > 0) {
    stderr.write(`nodebench: ${failed.length} load${failed.length === 1 ? '' : 's'} failed: ${failed[0].page}, ${failed[0].frontEnd}: ${failed[0].failure}\n`)
    return 1
  }
  return 0
}

module.exports = { runBrowserCommand, writeBrowserReport }
