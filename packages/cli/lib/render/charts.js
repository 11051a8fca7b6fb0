'use strict'

const { escapeHtml } = require('@nodebench/breakdown')

// Charts as Vega-Lite specs compiled to Vega and rendered to SVG strings in Node (no browser, no script in the
// page), in one look for every report. A chart is `{ kind, scenario?, format?, title, spec, leftOut? }`; the
// features build the specs (chartSpec gives them the common frame), renderCharts adds each one's `svg`, and
// chartFigure places it in a page.

const CONFIG = Object.freeze({
  font: 'system-ui, -apple-system, "Segoe UI", sans-serif',
  title: { anchor: 'start', fontSize: 13, subtitleFontSize: 11, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#e6e6e6' },
  // Vega-Lite leaves a faceted chart's quantitative labels all drawn: 'greedy' hides (opacity 0) each one that
  // would meet the last one shown, with 6 px between them, since here labels are measured without the page's font.
  axisQuantitative: { labelOverlap: 'greedy', labelSeparation: 6 },
  legend: { labelFontSize: 11, titleFontSize: 11 },
  view: { stroke: '#ddd' }
})

/** `spec` (Vega-Lite) with the reports' background, padding, font and axes. */
function chartSpec (spec) {
  return { background: 'white', padding: 8, config: CONFIG, ...spec }
}

let vegaModules = null

/** vega and vega-lite are ES modules: loaded once, on first use. */
function loadVega () {
  vegaModules = vegaModules || Promise.all([import('vega'), import('vega-lite')])
  return vegaModules
}

/** A Vega-Lite spec rendered to an SVG string, headless (renderer 'none'). */
async function renderSvg (vegaLiteSpec) {
  const [vega, vegaLite] = await loadVega()
  const view = new vega.View(vega.parse(vegaLite.compile(vegaLiteSpec).spec), { renderer: 'none', logLevel: vega.Error })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** Adds each chart's `svg`; resolves to `charts`. */
async function renderCharts (charts) {
  for (const chart of charts) chart.svg = await renderSvg(chart.spec)
  return charts
}

/** A rendered chart as a page's figure (what checkReportInBrowser looks for), `caption` (HTML) under it. */
function chartFigure (chart, caption = '') {
  const data = [['kind', chart.kind], ['scenario', chart.scenario], ['format', chart.format]]
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`).join('')
  return `<figure class="chart"${data} aria-label="${escapeHtml(chart.title)}">\n${chart.svg}\n${caption}</figure>`
}

/** Figures side by side; '' without any. */
function chartGrid (charts, caption = () => '') {
  if (charts.length === 0) return ''
  return `<div class="charts">\n${charts.map((chart) => chartFigure(chart, caption(chart))).join('\n')}\n</div>`
}

module.exports = { chartSpec, renderSvg, renderCharts, chartFigure, chartGrid }
