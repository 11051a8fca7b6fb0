'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { renderComparisonHtml } = require('../flame/render-comparison')
const { renderSegmentsHtml } = require('../flame/render-segments')
const { summarize } = require('./report-data')
const { renderCharts } = require('./report-charts')
const tables = require('./report-tables')
const { STYLE, htmlTable, section } = require('./report-page')
const { renderBrowserHtml, renderBrowserCharts } = require('../browser/report')
const scaleOutTables = require('./report-scaleout')

// report.html: one self-contained page (inline CSS and SVG; no script, font or request leaves the file).
// Every string from the results is escaped here; the charts' SVG comes from Vega, which escapes its text.

const CHART_GROUPS = Object.freeze([
  { kind: 'latency', id: 'latency', title: 'Latency percentiles', about: 'Per operation and format: each percentile of latency as autocannon measured it, one line per process count.' },
  { kind: 'throughput', id: 'throughput', title: 'Requests per second by processes', about: 'Per operation: HTML and JSON requests/s against the number of processes.' },
  { kind: 'html-vs-json', id: 'html-vs-json', title: 'HTML against JSON', about: 'Per operation and process count: requests/s and mean latency of each format side by side.' },
  { kind: 'time-share', id: 'time-share', title: 'Where the time goes', about: 'Per operation and format: each segment\'s share of response time in the app, in path order, then unattributed; one bar per process count.' }
])

const SECTIONS = Object.freeze([
  ['findings', 'What this shows'],
  ['limits', 'What limits these figures'],
  ...CHART_GROUPS.map((group) => [group.id, group.title]),
  ['cells', 'Cells'],
  ['study', 'Comparison with the study'],
  ['scale-out', 'Scale-out'],
  ['breakdowns', 'Breakdowns'],
  ['flame', 'Flamegraphs'],
  ['browser', 'Browser'],
  ['machine', 'Machine and configuration']
])

/** `bench --flame`: links to the flamegraphs and the HTML-against-JSON table of each scenario. */
function flameSection (flame) {
  return flame.map((profile) => {
    const heading = `<h3>${escapeHtml(profile.scenario)}</h3>`
    if (profile.failure) return `${heading}<p class="failed"><strong>failed</strong>: ${escapeHtml(profile.failure)}</p>`
    const links = profile.flamegraphs.map((f) => `<a href="${escapeHtml(f.html)}">${escapeHtml(f.format)} flamegraph</a> ` +
      `(${escapeHtml(f.samples.toLocaleString('en-US'))} samples, nodebench itself ${escapeHtml((f.nodebenchShare * 100).toFixed(1))}%)`).join(' · ')
    const profiler = profile.profiler === 'v8' ? 'V8\'s sampling profiler' : profile.profiler
    const segments = profile.flamegraphs.filter((f) => f.analysis)
      .map((f) => renderSegmentsHtml(f, { scenario: profile.scenario, profiler: profile.profiler })).join('\n')
    return `${heading}<p>${links}; ${escapeHtml(String(profile.durationSec))} s of load sampled` +
      `${profile.warmupSec ? ` after ${escapeHtml(String(profile.warmupSec))} s of warm-up` : ''}, ` +
      `${escapeHtml(String(profile.connections))} connections, one process, ${escapeHtml(profiler)}.</p>\n` + segments +
      (profile.comparison ? renderComparisonHtml(profile.comparison, { scenario: profile.scenario }) : '')
  }).join('\n')
}

function leftOutCaption (chart) {
  if (chart.leftOut.length === 0) return ''
  const reasons = chart.leftOut.map((cell) => (cell.failed ? `${cell.title} (failed: ${cell.failure})` : `${cell.title} (no figures)`))
  return `<figcaption class="left-out">Not drawn, and in no average: ${escapeHtml(reasons.join('; '))}.</figcaption>`
}

function chartSection (group, charts) {
  const mine = charts.filter((chart) => chart.kind === group.kind)
  const figures = mine.map((chart) => `<figure class="chart" data-kind="${escapeHtml(chart.kind)}" data-scenario="${escapeHtml(chart.scenario)}"` +
    `${chart.format ? ` data-format="${escapeHtml(chart.format)}"` : ''} aria-label="${escapeHtml(chart.title)}">\n${chart.svg}\n${leftOutCaption(chart)}</figure>`)
  const body = figures.length ? `<div class="charts">\n${figures.join('\n')}\n</div>` : '<p class="left-out">No measured cell to draw.</p>'
  return section(group.id, group.title, `<p>${escapeHtml(group.about)}</p>\n${body}`)
}

function breakdownSection (summary) {
  return summary.allCells.map((cell) => {
    const title = `<h3>${escapeHtml(cell.title)}</h3>`
    if (cell.failed) return `${title}<p class="left-out"><strong>failed</strong>: ${escapeHtml(cell.failure)}</p>`
    if (!cell.operation) return `${title}<p>No breakdown of this operation was recorded.</p>`
    const others = tables.otherOperations(cell)
    return `${title}<p>${escapeHtml(tables.operationLine(cell))}</p>\n${htmlTable(tables.segmentTable(cell.operation), { bars: true })}` +
      (others.length ? `<p class="study">Also in this snapshot: ${escapeHtml(others.join('; '))}.</p>` : '')
  }).join('\n')
}

function notesList (notes) {
  if (notes.length === 0) return '<p>Nothing: every cell finished with 2xx responses only.</p>'
  return '<ul class="notes">\n' + notes.map((note) => (note.kind === 'failed'
    ? `<li class="failed"><strong>failed</strong>: ${escapeHtml(note.text)}</li>`
    : `<li class="${escapeHtml(note.kind)}">${escapeHtml(note.text)}</li>`)).join('\n') + '\n</ul>'
}

/** Topologies, the TU Berlin study's figures, --find-max and the elasticity runs, with their charts. */
function scaleOutSection (scaleOut, charts) {
  const figures = (kind) => {
    const mine = charts.filter((chart) => chart.kind === kind)
    if (mine.length === 0) return ''
    return '<div class="charts">\n' + mine.map((chart) => `<figure class="chart" data-kind="${escapeHtml(chart.kind)}" ` +
      `data-scenario="${escapeHtml(chart.scenario)}" aria-label="${escapeHtml(chart.title)}">\n${chart.svg}\n</figure>`).join('\n') + '\n</div>'
  }
  const parts = [
    '<ul class="findings">\n' + scaleOut.findings.map((f) => `<li>${escapeHtml(f)}</li>`).join('\n') + '\n</ul>',
    scaleOut.notes.length ? '<ul class="notes">\n' + scaleOut.notes.map((n) => `<li class="warn">${escapeHtml(n)}</li>`).join('\n') + '\n</ul>' : '',
    '<h3>Requests per second by topology</h3>', htmlTable(scaleOutTables.topologyTable(scaleOut)), figures('topology')
  ]
  if (scaleOut.study.length) parts.push('<h3>Instances behind nginx, here and in the TU Berlin study</h3>', htmlTable(scaleOutTables.studyTable(scaleOut)))
  if (scaleOut.findMax.length) {
    parts.push('<h3>Throughput at 0% errors (--find-max)</h3>', '<p>Connections doubled step by step until the first failure; ' +
      'the best step is the highest requests/s without one. The breakdown of such a cell covers every step.</p>',
    htmlTable(scaleOutTables.findMaxTable(scaleOut)))
  }
  if (scaleOut.elasticity.length) {
    parts.push('<h3>Instances added and killed mid-run</h3>', htmlTable(scaleOutTables.elasticityTable(scaleOut)), figures('elasticity'),
      '<h4>Requests per instance (nginx\'s log)</h4>', htmlTable(scaleOutTables.instanceTable(scaleOut)))
  }
  return parts.filter(Boolean).join('\n')
}

/** The bench report as one self-contained HTML page, charts rendered to inline SVG. */
async function renderHtml (results) {
  const summary = summarize(results)
  const charts = await renderCharts(summary)
  const scaleOut = scaleOutTables.scaleOutOf(summary)
  const browser = results.browser && !results.browser.failure ? results.browser : null
  const browserSection = browser === null
    ? (results.browser ? section('browser', 'The browser: the study\'s client-side half', `<p class="left-out">The browser pass could not run: ${escapeHtml(results.browser.failure)}</p>`) : null)
    : renderBrowserHtml(browser, await renderBrowserCharts(browser))
  const app = summary.config.app || summary.config.cmd || summary.config.url || 'the app'
  const body = [
    section('findings', 'What this shows', '<ul class="findings">\n' + summary.findings.map((f) => `<li>${escapeHtml(f)}</li>`).join('\n') + '\n</ul>\n' +
      (summary.reference.findings.length === 0
        ? ''
        : `<p class="study">${escapeHtml(summary.reference.intro)}</p><ul class="study">\n` + summary.reference.findings.map((f) => `<li>${escapeHtml(f)}</li>`).join('\n') + '\n</ul>')),
    section('limits', 'What limits these figures', notesList(summary.notes)),
    ...CHART_GROUPS.map((group) => chartSection(group, charts)),
    section('cells', 'Cells', htmlTable(tables.cellTable(summary))),
    section('study', 'Comparison with the study', [
      '<h3>JSON against HTML</h3>', htmlTable(tables.throughputTable(summary)),
      '<h3>Table 1: the share of response time of the study\'s longest-running function</h3>', htmlTable(tables.table1Table(summary)),
      '<h3>Which function owns the time</h3>', htmlTable(tables.dominanceTable(summary)),
      '<h3>Response sizes</h3>', htmlTable(tables.responseSizeTable(summary))
    ].join('\n')),
    ...(scaleOut.present ? [section('scale-out', 'Scale-out: topologies, throughput at 0% errors, elasticity', scaleOutSection(scaleOut, charts))] : []),
    section('breakdowns', 'Breakdowns', '<p>Share = the segment\'s time / the operation\'s response time in the app; <em>unattributed</em> is ' +
      'Express\'s own routing, the gaps between layers and the socket flush.</p>\n' + breakdownSection(summary)),
    ...(Array.isArray(results.flame) ? [section('flame', 'Flamegraphs: CPU beside time per segment, HTML against JSON', flameSection(results.flame))] : []),
    ...(browserSection === null ? [] : [browserSection]),
    section('machine', 'Machine and configuration', htmlTable(tables.machineTable(summary)) + '\n' +
      htmlTable(tables.configTable(summary)))
  ]
  const nav = SECTIONS.filter(([id]) => (id !== 'flame' || Array.isArray(results.flame)) && (id !== 'scale-out' || scaleOut.present) &&
    (id !== 'browser' || browserSection !== null)).map(([id, title]) => `<a href="#${id}">${escapeHtml(title)}</a>`).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>nodebench bench report: ${escapeHtml(app)}</title>
<style>${STYLE}</style></head><body><main>
<header><h1>nodebench bench report: ${escapeHtml(app)}</h1>
<p class="headline">${escapeHtml(tables.headline(summary))}</p></header>
<nav>${nav}</nav>
${body.join('\n')}
</main></body></html>
`
}

module.exports = { renderHtml }
