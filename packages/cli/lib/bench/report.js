'use strict'

const fs = require('node:fs/promises')
const path = require('node:path')
const { summarize } = require('./report-data')
const { renderMarkdown } = require('./report-md')
const { renderHtml } = require('./report-html')

// The report of `nodebench bench`: report.md and a self-contained report.html (charts as inline SVG)
// from a results.json. Renderers return strings; writeReport puts them in a directory.
//   report-data.js      summarize: the derived figures both renderers show
//   report-findings.js  "what this shows" and "what limits these figures", in words computed from them
//   report-tables.js    the tables, as rows of text
//   report-charts.js    the Vega-Lite specs and their SVG
//   report-md.js, report-html.js  the two renderers

/**
 * Writes report.html and report.md for `results` into `outDir` (created if needed).
 * @returns {Promise<{ html: string, markdown: string }>} the files' paths
 */
async function writeReport (results, outDir) {
  await fs.mkdir(outDir, { recursive: true })
  const html = path.join(outDir, 'report.html')
  const markdown = path.join(outDir, 'report.md')
  await fs.writeFile(html, await renderHtml(results))
  await fs.writeFile(markdown, renderMarkdown(results))
  return { html, markdown }
}

module.exports = { summarize, renderMarkdown, renderHtml, writeReport }
