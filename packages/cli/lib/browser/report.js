'use strict'

const fs = require('node:fs/promises')
const path = require('node:path')
const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { formatMs, formatCount, formatRatio } = require('../render/format')
const { htmlTable, markdownTable, boxTable } = require('../render/tables')
const { htmlPage, section } = require('../render/page')
const { htmlList, markdownList } = require('../render/findings')
const { chartSpec, renderCharts, chartGrid } = require('../render/charts')

// The browser run in words, tables and charts: what each front end's pages cost to load (load times, heap,
// script and layout time, requests, the page's time split into server, network and client), the function
// profiles, the AngularJS statistics, each beside the study's figures (the workload's `reference.browser`), with
// sentences computed from the figures and what limits them; as browser.md and browser.html (render/page.js),
// a section of the bench report (pass.js), and a table for the terminal.

const MB = 1024 * 1024
const FRONT_END_COLORS = Object.freeze({ domain: ['server-rendered', 'single-page'], range: ['#f58518', '#4c78a8'] })

function mb (bytes) {
  return typeof bytes === 'number' ? (bytes / MB).toFixed(2) : '-'
}

function of (summary, page, frontEnd, cache) {
  return summary.find((row) => row.page === page && row.frontEnd === frontEnd && row.cache === cache) ?? null
}

/** The two front ends the study compared, where both ran: the port (single-page) and the pages. */
function pairs (results) {
  const rows = []
  const pages = [...new Set(results.summary.map((row) => row.page))]
  for (const page of pages) {
    for (const cache of results.config.caches) {
      const server = of(results.summary, page, 'server-rendered', cache)
      const spa = of(results.summary, page, 'single-page', cache)
      if (server && spa && server.loadMs !== null && spa.loadMs !== null) rows.push({ page, cache, server, spa })
    }
  }
  return rows
}

/** Sentences from the figures, each beside the study's where it has one. */
function browserFindings (results) {
  const reference = results.workload.reference ?? {}
  const sentences = []
  for (const { page, cache, server, spa } of pairs(results)) {
    if (cache !== results.config.caches[0]) continue
    const spaShown = spa.readyMs ?? spa.loadMs
    const later = spa.loadMs - server.loadMs
    const study = reference.loadLaterMs?.[page]
    sentences.push(`${page} (${cache} cache): the single-page port fired load ${formatMs(Math.abs(later))} ms ${later >= 0 ? 'after' : 'before'} ` +
      `the server-rendered page (${formatMs(spa.loadMs)} against ${formatMs(server.loadMs)} ms) and showed its data at ${formatMs(spaShown)} ms, ` +
      `${formatMs(Math.abs(spaShown - server.loadMs))} ms ${spaShown >= server.loadMs ? 'after' : 'before'} the server-rendered page had loaded` +
      (study ? `; the study: about ${study} ms later, ${later > 0 ? 'the same direction' : 'unlike here'}.` : '.'))
    const ratio = spa.heapUsedAfterGcBytes / server.heapUsedAfterGcBytes
    const studyRatio = reference.heapRatio?.[page]
    sentences.push(`${page}: the port's JS heap after a forced collection is ${formatRatio(ratio)} the server-rendered page's ` +
      `(${mb(spa.heapUsedAfterGcBytes)} against ${mb(server.heapUsedAfterGcBytes)} MB)` +
      (studyRatio
        ? `; the study: ${reference.heapText?.[page] ?? formatRatio(studyRatio)} (${formatRatio(studyRatio)}), ` +
        `${(ratio > 1) === (studyRatio > 1) ? 'the same direction' : 'unlike here'}.`
        : '.'))
    if (spa.angular) {
      const ng = reference.angular?.[page]
      sentences.push(`${page}: AngularJS ${spa.angular.version} counted ${spa.angular.scopes} scopes and ${spa.angular.watchers} watchers in ` +
        `the running page, a digest cycle ${formatMs(spa.angular.digestMeanMs)} ms` +
        (ng ? ` (the study: ${ng.scopes} scopes, ${ng.watchers} watchers, ${ng.digestMeanMs} ms).` : '.'))
    }
  }
  return sentences
}

/** What limits these figures: one machine, the study's jQuery, how the time split counts. */
function browserLimits (results) {
  const machine = results.machine ?? {}
  return [
    `One machine: Chromium ${machine.chromium ?? '(unknown version)'} and the app share it and talk over loopback` +
      (results.config.network === 'none' ? ', with no network emulation: what counts as network is loopback and Chromium\'s own handling of the requests (connecting, queueing)' : `, under the ${results.config.network} network preset`) +
      '; the study loaded the pages from another machine, in Chrome DevTools.',
    'The study\'s Mongo-Express pages loaded jQuery; these server-rendered pages load no script at all, and the port is AngularJS ' +
      '1.8.3 (the study\'s was older): figures of its jQuery ("completed") have nothing to compare with here.',
    'The time split counts each moment of the page once: server while the app worked on any of its requests (nodebench\'s ' +
      'Server-Timing), network while a request was otherwise in flight, client while none was. The browser may run scripts while ' +
      'a request is in flight: that time is counted as the request\'s.'
  ]
}

function spreadText (spread) {
  return spread === null ? '-' : `${(spread * 100).toFixed(1)}%`
}

/** Every page, front end and cache: the medians over the runs. */
function loadTable (results) {
  const head = ['page', 'front end', 'cache', 'runs', 'DOMContentLoaded ms', 'load ms', 'ready ms', 'heap MB', 'heap after GC MB',
    'spread', 'script ms', 'layout ms', 'style ms', 'requests', 'KB', 'server ms', 'network ms', 'client ms']
  const rows = results.summary.map((row) => {
    const start = [row.page, row.frontEnd, row.cache, `${row.runs - row.failed}/${row.runs}`]
    if (row.loadMs === null) return { cells: [...start, 'failed'], failed: true, message: row.failures[0] ?? 'no load' }
    return {
      warn: row.failed > 0,
      cells: [...start, formatMs(row.domContentLoadedMs), formatMs(row.loadMs), row.readyMs === null ? '-' : formatMs(row.readyMs),
        mb(row.heapUsedBytes), mb(row.heapUsedAfterGcBytes), spreadText(row.heapAfterGcSpread),
        formatMs(row.scriptMs), formatMs(row.layoutMs), formatMs(row.styleMs), formatCount(row.requests),
        formatCount(row.bytes / 1024),
        formatMs(row.split.serverMs), formatMs(row.split.networkMs), formatMs(row.split.clientMs)]
    }
  })
  return { head, rows }
}

/** The study's figures beside the run's (the first cache mode). */
function studyTable (results) {
  const reference = results.workload.reference ?? {}
  const head = ['page', 'figure', 'here', 'the study']
  const rows = []
  for (const { page, cache, server, spa } of pairs(results)) {
    if (cache !== results.config.caches[0]) continue
    rows.push({ cells: [page, 'the port\'s load after the pages\' (ms)', formatMs(spa.loadMs - server.loadMs), reference.loadLaterMs?.[page] ? `~${reference.loadLaterMs[page]}` : '-'] })
    rows.push({ cells: [page, 'heap after GC, port ÷ pages', formatRatio(spa.heapUsedAfterGcBytes / server.heapUsedAfterGcBytes), reference.heapRatio?.[page] ? formatRatio(reference.heapRatio[page]) : '-'] })
    if (spa.angular) {
      const ng = reference.angular?.[page] ?? {}
      rows.push({ cells: [page, 'AngularJS scopes', String(spa.angular.scopes), ng.scopes === undefined ? '-' : String(ng.scopes)] })
      rows.push({ cells: [page, 'AngularJS watchers', String(spa.angular.watchers), ng.watchers === undefined ? '-' : String(ng.watchers)] })
      rows.push({ cells: [page, 'mean digest cycle (ms)', formatMs(spa.angular.digestMeanMs), ng.digestMeanMs === undefined ? '-' : String(ng.digestMeanMs)] })
    }
    for (const [name, studyMs] of Object.entries(reference.functions?.[page] ?? {})) {
      const profiled = results.loads.find((load) => load.page === page && load.frontEnd === 'single-page' && load.functions)
      const fn = profiled?.functions.byTotal.find((f) => f.name === name)
      rows.push({ cells: [page, `${name} total time (ms)`, fn ? formatMs(fn.totalMs) : 'not sampled', String(studyMs)] })
    }
  }
  return { head, rows }
}

/** The profiled load of each page and front end: its top functions by self time and by total time. */
function functionTables (results) {
  return results.loads.filter((load) => load.functions).map((load) => {
    const where = (fn) => (fn.file ? `${fn.file.split('/').slice(-2).join('/')}:${fn.line}` : '-')
    const table = (list, key) => ({
      head: ['#', 'function', 'where', key === 'selfMs' ? 'self ms' : 'total ms'],
      rows: list.slice(0, 10).map((fn, i) => ({ cells: [String(i + 1), fn.name, where(fn), formatMs(fn[key])] }))
    })
    return {
      title: `${load.page}, ${load.frontEnd} (${load.cache} cache, ${formatMs(load.functions.totalMs)} ms sampled)`,
      bySelf: table(load.functions.bySelf, 'selfMs'),
      byTotal: table(load.functions.byTotal, 'totalMs')
    }
  })
}

/** Vega-Lite specs: load-time bars, heap bars and the time split, per page, of the first cache mode. */
function chartsOf (results) {
  const cache = results.config.caches[0]
  const rows = results.summary.filter((row) => row.cache === cache && row.loadMs !== null)
  if (rows.length === 0) return []
  const base = (title, subtitle, values, spec) => ({
    kind: 'browser',
    title,
    leftOut: [],
    spec: chartSpec({ title: { text: title, subtitle }, data: { values }, ...spec })
  })
  const color = { field: 'front end', type: 'nominal', scale: FRONT_END_COLORS }
  const pageOrder = results.config.pages
  const times = rows.flatMap((row) => [['DOMContentLoaded', row.domContentLoadedMs], ['load', row.loadMs], ['ready', row.readyMs ?? row.loadMs]]
    .map(([moment, ms]) => ({ page: row.page, 'front end': row.frontEnd, moment, ms })))
  const heaps = rows.flatMap((row) => [['after load', row.heapUsedBytes], ['after GC', row.heapUsedAfterGcBytes]]
    .map(([when, bytes]) => ({ page: row.page, 'front end': row.frontEnd, when, MB: bytes / MB })))
  const split = rows.flatMap((row) => [['server', row.split.serverMs], ['network', row.split.networkMs], ['client', row.split.clientMs]]
    .map(([part, ms]) => ({ page: row.page, 'front end': row.frontEnd, part, ms })))
  return [
    base('Page load: DOMContentLoaded, load, data shown', `ms, median of ${results.config.runs} loads, ${cache} cache (the study's Fig 30)`, times, {
      mark: 'bar',
      width: { step: 28 },
      encoding: {
        column: { field: 'page', title: null, sort: pageOrder },
        // Two lines for the long name, and room for each: the labels of neighbouring bars must not meet.
        x: {
          field: 'moment',
          type: 'nominal',
          sort: ['DOMContentLoaded', 'load', 'ready'],
          title: null,
          axis: { labelAngle: 0, labelExpr: "datum.label === 'DOMContentLoaded' ? ['DOMContent-', 'Loaded'] : datum.label" }
        },
        xOffset: { field: 'front end' },
        y: { field: 'ms', type: 'quantitative', title: 'ms' },
        color
      }
    }),
    base('JS heap', `MB after load and after a forced collection, ${cache} cache (the study's Figs 31-32)`, heaps, {
      mark: 'bar',
      width: { step: 36 },
      encoding: {
        column: { field: 'page', title: null, sort: pageOrder },
        x: { field: 'when', type: 'nominal', sort: ['after load', 'after GC'], title: null, axis: { labelAngle: 0 } },
        xOffset: { field: 'front end' },
        y: { field: 'MB', type: 'quantitative', title: 'MB' },
        color
      }
    }),
    base('Where a page\'s time goes', 'ms: the app (Server-Timing), the network, the browser', split, {
      mark: 'bar',
      encoding: {
        row: { field: 'page', title: null, sort: pageOrder },
        y: { field: 'front end', type: 'nominal', title: null },
        x: { field: 'ms', type: 'quantitative', stack: 'zero', title: 'ms' },
        color: { field: 'part', type: 'nominal', sort: ['server', 'network', 'client'], scale: { scheme: 'tableau10' } }
      }
    })
  ]
}

/** The browser run as Markdown (a section of report.md, or browser.md). */
function renderBrowserMarkdown (results, { level = 2 } = {}) {
  const h = '#'.repeat(level)
  const parts = [
    `${h} The browser: the study's client-side half\n`,
    markdownList(browserFindings(results)),
    `${h}# What limits these figures\n`, markdownList(browserLimits(results)),
    `${h}# Every page and front end (medians)\n`, markdownTable(loadTable(results)),
    `${h}# Beside the study\n`, markdownTable(studyTable(results)),
    `${h}# Function profiles\n`
  ]
  for (const profile of functionTables(results)) {
    parts.push(`${h}## ${escapeMarkdown(profile.title)}\n`, 'By self time:\n', markdownTable(profile.bySelf), 'By total time:\n', markdownTable(profile.byTotal))
  }
  return parts.join('\n')
}

/** The browser run as an HTML section (of report.html, or browser.html), its charts drawn. */
async function renderBrowserHtml (results) {
  const charts = await renderCharts(chartsOf(results))
  const profiles = functionTables(results).map((profile) => `<h4>${escapeHtml(profile.title)}</h4>\n<div class="charts">` +
    `<div>${htmlTable(profile.bySelf)}</div><div>${htmlTable(profile.byTotal)}</div></div>`).join('\n')
  return section('browser', 'The browser: the study\'s client-side half', [
    htmlList(browserFindings(results), 'findings'),
    '<h3>What limits these figures</h3>', htmlList(browserLimits(results), 'notes'),
    chartGrid(charts),
    '<h3>Every page and front end (medians)</h3>', htmlTable(loadTable(results)),
    '<h3>Beside the study</h3>', htmlTable(studyTable(results)),
    '<h3>Function profiles (one load each; the study\'s Figs 33-36)</h3>', profiles
  ].join('\n'))
}

/** browser.md and browser.html beside browser.json; resolves to their paths. */
async function writeBrowserReport (results, outDir) {
  const markdown = path.join(outDir, 'browser.md')
  const html = path.join(outDir, 'browser.html')
  await fs.writeFile(markdown, `# nodebench browser report\n\n${renderBrowserMarkdown(results)}`)
  await fs.writeFile(html, htmlPage({
    title: 'nodebench browser report',
    headline: `${results.workload.name}: ${results.config.frontEnds.join(' and ')}, ${results.config.pages.join(', ')}; ` +
      `${results.config.runs} runs, ${results.config.caches.join(' and ')} cache, network ${results.config.network}; ${results.createdAt}`,
    body: await renderBrowserHtml(results)
  }))
  return { markdown, html }
}

// The columns a terminal shows (the reports have every one).
const TERMINAL_COLUMNS = Object.freeze(['page', 'front end', 'cache', 'runs', 'load ms', 'ready ms', 'heap after GC MB', 'script ms',
  'server ms', 'network ms', 'client ms'])

/** The medians for a terminal, a line per page, front end and cache; a failed row's reason across its figures. */
function renderBrowserText (results) {
  return boxTable(loadTable(results), TERMINAL_COLUMNS)
}

module.exports = {
  renderBrowserMarkdown,
  renderBrowserHtml,
  writeBrowserReport,
  renderBrowserText,
  chartsOf,
  browserFindings,
  loadTable,
  studyTable
}
