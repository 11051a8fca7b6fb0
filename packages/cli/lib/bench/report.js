'use strict'

const fs = require('node:fs/promises')
const path = require('node:path')
const { summarize } = require('./report-data')
const { renderMarkdown } = require('./report-md')
const { renderHtml } = require('./report-html')
const { databaseSection } = require('./report-database')

// The report of `nodebench bench`: report.md and a self-contained report.html (charts as inline SVG) from a
// results.json, by layer:
//   report-data.js        summarize: the derived figures every renderer shows (report-scale-out.js: the
//                         scale-out section's, report-sweep.js the sweeps', report-targets.js the servers
//                         measured side by side, report-processes.js each process's CPU and memory)
//   report-findings.js    "what this shows" and "what limits these figures", in words computed from them
//   report-tables.js      the tables, as rows of text
//   report-charts.js      the Vega-Lite specs
//   report-md.js, report-html.js  the two renderers (render/: the page, tables, lists and charts they lay out)
// A pass run after the matrix (flame's, the browser's) brings its own section, `{ key, id, nav, html(value),
// markdown(value), text(value) }`, shown when results.json holds `key`; the database's (report-database.js) is one
// too, in every report.

/**
 * Writes report.html and report.md for `results` into `outDir` (created if needed).
 * @returns {Promise<{ html: string, markdown: string }>} the files' paths
 */
async function writeReport (results, outDir, { sections: passSections = [] } = {}) {
  const sections = [databaseSection, ...passSections]
  await fs.mkdir(outDir, { recursive: true })
  const html = path.join(outDir, 'report.html')
  const markdown = path.join(outDir, 'report.md')
  await fs.writeFile(html, await renderHtml(results, { sections }))
  await fs.writeFile(markdown, renderMarkdown(results, { sections }))
  return { html, markdown }
}

module.exports = { summarize, renderMarkdown, renderHtml, writeReport }
