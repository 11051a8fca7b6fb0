'use strict'

const path = require('node:path')
const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { formatCount, formatShare } = require('../render/format')
const { htmlTable, markdownTable, textTable } = require('../render/tables')
const { displayPath } = require('../kernel/paths')
const { CATEGORY_MEANINGS } = require('./categories')

// The HTML-against-JSON comparison of compareProfiles() as Markdown, an HTML fragment and terminal text.
// The tables are built once as text cells ({ head, numeric, rows }); render/tables.js escapes and lays out.

/** A difference of shares in percentage points: 0.1234 -> '+12.34 pp', 0 -> '0.00 pp'. */
function formatPoints (difference) {
  const points = Math.abs(difference * 100).toFixed(2)
  if (Number(points) === 0) return `${points} pp`
  return `${difference > 0 ? '+' : '-'}${points} pp`
}

/** A script as a reader finds it: inside a package from the package's name, else as the CLI shows paths. */
function shortFile (file) {
  if (!file) return '-'
  const inPackage = /^.*[\\/]node_modules[\\/](.+)$/.exec(file)
  if (inPackage) return inPackage[1]
  return path.isAbsolute(file) ? displayPath(file) : file
}

function categoryTable (comparison) {
  return {
    head: ['category', 'HTML', 'JSON', 'HTML - JSON'],
    numeric: [false, true, true, true],
    rows: comparison.rows.map((row) => ({
      cells: [row.category, formatShare(row.html.share), formatShare(row.json.share), formatPoints(row.difference)]
    }))
  }
}

function functionTable (functions) {
  return {
    head: ['#', 'function', 'where', 'category', 'samples', 'share'],
    numeric: [true, false, false, false, true, true],
    rows: functions.map((fn, i) => ({
      cells: [String(i + 1), fn.name, `${shortFile(fn.file)}${fn.line ? `:${fn.line}` : ''}`, fn.category,
        formatCount(fn.samples), formatShare(fn.share)]
    }))
  }
}

function checkScenario (scenario) {
  if (scenario !== undefined && typeof scenario !== 'string') throw new TypeError(`scenario must be a string; received ${typeof scenario}`)
}

/** What a side's samples hold apart: the profiler's own work and compiling, as shares of the samples not idle. */
function apartText (side, label) {
  const known = (value) => value !== null && value !== undefined
  const profiler = known(side.profilerShare)
    ? `the profiler's own work ${formatShare(side.profilerShare)}`
    : side.source === 'cpuprofile'
      ? 'the profiler\'s own work not in the samples (V8\'s sampling profiler runs on a thread of its own)'
      : 'the profiler\'s own work not told apart (these samples have no V8 states)'
  const compile = known(side.compileShare) ? `compiling ${formatShare(side.compileShare)}` : 'compiling not told apart'
  return `${label}, ${profiler}, ${compile}`
}

/** The words around the tables, the same in every format. */
function texts (comparison, scenario) {
  const side = ({ samples, idleSamples }) => `${formatCount(samples)} samples on CPU (${formatCount(idleSamples)} idle, left out)`
  const { nodebench } = comparison
  return {
    title: `Where the CPU goes${scenario ? ` in ${scenario}` : ''}: HTML against JSON`,
    about: `Self time, as a share of the samples on CPU: HTML ${side(comparison.html)}, JSON ${side(comparison.json)}. ` +
      'Each sample counts for the JavaScript function on top of its stack (builtins and C++ for the JavaScript that ' +
      'called them) and for the category of the first frame down the stack that has one; garbage collection counts ' +
      'as V8 / GC, while compiling and the profiler\'s own work are counted apart (below), like idle samples.' +
      ` Apart: ${apartText(comparison.html, 'HTML')}; ${apartText(comparison.json, 'JSON')}.` +
      ([comparison.html, comparison.json].some((s) => s.source === 'ticks')
        ? ' These samples carry no V8 state (clinic flame keeps none): garbage collection and compilation count for ' +
          'the code they interrupted, and idle is a sample holding only the event loop\'s wait.'
        : ''),
    nodebench: `nodebench's own overhead: ${formatShare(nodebench.html.share)} of the CPU serving HTML, ` +
      `${formatShare(nodebench.json.share)} serving JSON.`,
    categories: 'By category',
    htmlFunctions: 'Hottest functions serving HTML',
    jsonFunctions: 'Hottest functions serving JSON',
    legend: 'What the categories hold',
    meanings: comparison.rows.map((row) => `${row.category}: ${CATEGORY_MEANINGS[row.category]}.`)
  }
}

/** The comparison as a Markdown document. */
function renderComparisonMarkdown (comparison, { scenario } = {}) {
  checkScenario(scenario)
  const words = texts(comparison, scenario)
  return [
    `# ${escapeMarkdown(words.title)}\n`,
    `${escapeMarkdown(words.about)}\n`,
    `${escapeMarkdown(words.nodebench)}\n`,
    `## ${words.categories}\n`,
    markdownTable(categoryTable(comparison)),
    `## ${words.htmlFunctions}\n`,
    markdownTable(functionTable(comparison.topFunctions.html)),
    `## ${words.jsonFunctions}\n`,
    markdownTable(functionTable(comparison.topFunctions.json)),
    `## ${words.legend}\n`,
    words.meanings.map((meaning) => `- ${escapeMarkdown(meaning)}\n`).join('')
  ].join('\n')
}

/** The comparison as an HTML fragment (a section; every string escaped), for a report page. */
function renderComparisonHtml (comparison, { scenario } = {}) {
  checkScenario(scenario)
  const words = texts(comparison, scenario)
  return [
    `<section class="flame-comparison"${scenario ? ` data-scenario="${escapeHtml(scenario)}"` : ''}>`,
    `<h2>${escapeHtml(words.title)}</h2>`,
    `<p>${escapeHtml(words.about)}</p>`,
    `<p>${escapeHtml(words.nodebench)}</p>`,
    `<h3>${escapeHtml(words.categories)}</h3>`,
    htmlTable(categoryTable(comparison)),
    `<h3>${escapeHtml(words.htmlFunctions)}</h3>`,
    htmlTable(functionTable(comparison.topFunctions.html)),
    `<h3>${escapeHtml(words.jsonFunctions)}</h3>`,
    htmlTable(functionTable(comparison.topFunctions.json)),
    `<h3>${escapeHtml(words.legend)}</h3>`,
    `<ul>${words.meanings.map((meaning) => `<li>${escapeHtml(meaning)}</li>`).join('')}</ul>`,
    '</section>\n'
  ].join('\n')
}

/** The comparison as plain text for a terminal. */
function renderComparisonText (comparison, { scenario } = {}) {
  checkScenario(scenario)
  const words = texts(comparison, scenario)
  return [
    words.title,
    `${words.about}\n${words.nodebench}\n`,
    textTable(categoryTable(comparison)),
    `${words.htmlFunctions}:`,
    textTable(functionTable(comparison.topFunctions.html)),
    `${words.jsonFunctions}:`,
    textTable(functionTable(comparison.topFunctions.json))
  ].join('\n')
}

module.exports = {
  renderComparisonMarkdown,
  renderComparisonHtml,
  renderComparisonText,
  formatPoints,
  shortFile,
  apartText,
  functionTable
}
