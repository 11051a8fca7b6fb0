'use strict'

const fs = require('node:fs/promises')
const path = require('node:path')
const { escapeMarkdown } = require('@nodebench/breakdown')
const { summarize } = require('./cells/data')
const { headline } = require('./cells/tables')
const cells = require('./cells')
const { answerSection } = require('./owners')
const { studySection, htmlVsJsonSection } = require('./study')
const { timeShareCharts } = require('./owners/charts')
const { latencyCharts, throughputCharts } = require('./cells/charts')
const { htmlVsJsonCharts } = require('./study/charts')
const { baselinesSection } = require('./baselines')
const { sweepSection } = require('./sweeps')
const { scaleOutSection } = require('./scale-out')
const { processesSection } = require('./processes')
const { databaseSection } = require('./database')
const { htmlPage } = require('../render/page')

// The report of `nodebench bench`: report.html (self-contained, charts as inline SVG), report.md and what the
// terminal shows, from a results.json. A report is a list of sections, one module per subject owning its
// figures, sentences, tables and charts:
//   cells/       the app's cells: what this shows and what limits it, latency and throughput, the cells'
//                table, each cell's breakdown, the machine (cells/data.js: summarize, the summary all read)
//   owners/      where the time goes: the function that owns each operation's time (the answer, first)
//   study/       the run beside its workload's reference (the study's findings, Table 1, HTML against JSON)
//   baselines/   the servers measured side by side (the ladder from bare node:http to the traced app)
//   sweeps/      response time against the varied values
//   scale-out/   nginx beside node:cluster, --find-max, the elasticity runs
//   processes/   each process's CPU and memory
//   database.js  the app's database and its collections' sizes
// A section is `{ id, nav, of(report) | key, html(value), markdown?(value), text?(value), app? }`: `of` picks
// its value from the report (`{ results, summary }`), or `key` from results.json; a null value leaves it out.
// The passes run after the matrix (flame's, the browser's) bring theirs (`sections`), shown before the machine.
// `app`: about the app's cells, left out of a run of other servers only.

const SECTIONS = Object.freeze([
  answerSection, cells.findingsSection, cells.limitsSection, baselinesSection, sweepSection,
  cells.latencySection, cells.throughputSection, htmlVsJsonSection, cells.cellsSection, studySection,
  scaleOutSection, cells.breakdownsSection, processesSection, databaseSection
])

/** The charts of the app's sections, in page order (each section draws its own). */
function chartsOf (summary) {
  return [timeShareCharts, latencyCharts, throughputCharts, htmlVsJsonCharts].flatMap((charts) => charts(summary))
}

/** The report's sections that have something to show, each with its value, in page order. */
function sectionsOf (results, passSections = []) {
  const report = { results, summary: summarize(results) }
  // A run of other servers only (a workload without the app): none of the app's sections has anything to show.
  const serversOnly = report.summary.allCells.length === 0 && baselinesSection.of(report) !== null
  const shown = []
  for (const section of [...SECTIONS, ...passSections, cells.machineSection]) {
    if (serversOnly && section.app) continue
    const value = section.of ? section.of(report) : results[section.key]
    if (value !== undefined && value !== null) shown.push({ section, value })
  }
  return { report, shown }
}

/** The bench report as one self-contained HTML page; `sections`: the passes' (flame's, the browser's). */
async function renderHtml (results, { sections = [] } = {}) {
  const { report, shown } = sectionsOf(results, sections)
  const { config } = report.summary
  const parts = []
  for (const { section, value } of shown) {
    parts.push({ id: section.id, nav: section.nav, html: await section.html(value) })
  }
  return htmlPage({
    title: `nodebench bench report: ${config.app || config.cmd || config.url || 'the app'}`,
    headline: headline(report.summary),
    nav: parts.map(({ id, nav }) => ({ id, title: nav })),
    body: parts.map((part) => part.html).join('\n')
  })
}

/** The bench report as Markdown: report.html's sections without the charts. */
function renderMarkdown (results, { sections = [] } = {}) {
  const { report, shown } = sectionsOf(results, sections)
  const parts = shown.filter(({ section }) => section.markdown).map(({ section, value }) => section.markdown(value))
  return ['# nodebench bench report\n', `${escapeMarkdown(headline(report.summary))}\n`, ...parts].join('\n')
}

/** What `nodebench bench` prints on stdout after a run (without --json): each section's `text`. */
function renderText (results, { sections = [] } = {}) {
  return sectionsOf(results, sections).shown.filter(({ section }) => section.text)
    .map(({ section, value }) => section.text(value)).join('')
}

/**
 * Writes report.html and report.md for `results` into `outDir` (created if needed).
 * @returns {Promise<{ html: string, markdown: string }>} the files' paths
 */
async function writeReport (results, outDir, { sections = [] } = {}) {
  await fs.mkdir(outDir, { recursive: true })
  const html = path.join(outDir, 'report.html')
  const markdown = path.join(outDir, 'report.md')
  await fs.writeFile(html, await renderHtml(results, { sections }))
  await fs.writeFile(markdown, renderMarkdown(results, { sections }))
  return { html, markdown }
}

module.exports = { summarize, chartsOf, renderMarkdown, renderHtml, renderText, writeReport }
