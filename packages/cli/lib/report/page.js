'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { htmlPage, section } = require('../render/page')
const { htmlTable } = require('../render/tables')
const { segmentTable, operationText } = require('../render/breakdown')
const { waterfallHtml, WATERFALL_STYLE } = require('../render/waterfall')
const fanOut = require('../render/fan-out')

// report.html: a service's breakdown read back (report/run.js) as one self-contained page: per operation, its
// segments and shares, and (from Jaeger) its slowest and a median request drawn as waterfalls, each at an
// anchor `#trace-<id>` that the command's links point at. No script, nothing fetched: it opens from a file.

const SOURCES = Object.freeze({ jaeger: 'the traces Jaeger holds', prometheus: 'the metrics Prometheus holds', app: 'the app\'s own breakdown' })

function anchorOf (operation) {
  return `operation-${`${operation.method}-${operation.route}-${operation.format}`.replace(/[^A-Za-z0-9_-]+/g, '-')}`
}

/** An operation's fan-out (render/fan-out.js): the processes it called and its critical path. */
function fanOutHtml (calls) {
  return `<h3>${escapeHtml(`Fan-out: ${fanOut.fanOutTitle(calls)}`)}</h3>\n${htmlTable(fanOut.calleeTable(calls), { bars: true })}\n` +
    `<p>${escapeHtml(fanOut.criticalPathText(calls))}</p>\n${htmlTable(fanOut.criticalSegmentTable(calls), { bars: true })}\n` +
    `<p class="study">${escapeHtml(fanOut.FAN_OUT_ABOUT)}</p>`
}

function operationSection (operation, { traces, jaegerUi, jaegerUrl, fanOutOperations = [] }) {
  const parts = [`<p>${escapeHtml(operationText(operation))}</p>`, htmlTable(segmentTable(operation), { bars: true })]
  const sameOperation = (o) => o.method === operation.method && o.route === operation.route &&
    o.format === operation.format
  const calls = fanOutOperations.find(sameOperation)
  if (calls !== undefined) parts.push(fanOutHtml(calls))
  const exemplars = operation.exemplars
  if (exemplars) {
    const shown = exemplars.slowest === exemplars.median
      ? [['The only request', exemplars.slowest]]
      : [['The slowest request', exemplars.slowest], ['A median request', exemplars.median]]
    for (const [title, traceId] of shown) {
      const waterfall = traces[traceId]
      const ui = jaegerUi ? ` (<a href="${escapeHtml(`${jaegerUrl}/trace/${traceId}`)}">in Jaeger's UI</a>)` : ''
      parts.push(waterfall
        ? waterfallHtml(waterfall, { title: `${title}: ${formatTraceTitle(waterfall)}` }) + (ui ? `<p>${ui.trim()}</p>` : '')
        : `<p class="left-out">${escapeHtml(`${title}: trace ${traceId} could not be read.`)}</p>`)
    }
  }
  const title = `${operation.method} ${operation.route} [${operation.format}]`
  return `<section id="${escapeHtml(anchorOf(operation))}"><h2>${escapeHtml(title)}</h2>\n${parts.join('\n')}\n</section>`
}

function formatTraceTitle (waterfall) {
  return `${waterfall.durationMs.toFixed(waterfall.durationMs < 10 ? 2 : 1)} ms`
}

function instancesSection (snapshot) {
  if (!Array.isArray(snapshot.instances)) return ''
  const rows = snapshot.instances.map((instance) => ({
    cells: [instance.id, instance.address ?? '-', instance.host ?? '-', instance.pid === null ? '-' : String(instance.pid), String(instance.requests)]
  }))
  return section('instances', 'Instances', htmlTable({ head: ['instance', 'address', 'host', 'pid', 'requests'], rows }))
}

/** The page of `snapshot` (runReport's), with the exemplar `traces` drawn where the snapshot names them. */
async function renderReportPage (snapshot, { config, traces = {}, jaegerUi = null, now = new Date() }) {
  const where = config.source === 'app' ? config.url : config.source === 'jaeger' ? config.jaeger : config.url ?? 'Prometheus'
  const window = snapshot.window ? `${snapshot.window.since} to ${snapshot.window.until}` : `since ${snapshot.since}`
  const counted = snapshot.operations.reduce((sum, o) => sum + o.count, 0)
  const headline = [`${snapshot.service}`, `from ${SOURCES[config.source] ?? config.source} (${where})`, window,
    `${counted} requests in ${snapshot.operations.length} operation${snapshot.operations.length === 1 ? '' : 's'}`,
    `written ${now.toISOString()}`].join(' · ')
  const about = '<p>Share = the segment\'s time / the operation\'s response time; <em>unattributed</em> is Express\'s own routing, ' +
    'the gaps between layers and the socket flush.' +
    (config.source === 'jaeger'
      ? ' Under each operation, its slowest request and a median one as waterfalls: each span a bar at its start and ' +
        'length, coloured by kind; click a row for its attributes.' +
        (jaegerUi ? '' : ' This Jaeger has no UI of its own (a build from its Go module): this page is where its traces are drawn.')
      : '') + '</p>'
  const operations = snapshot.operations.length === 0
    ? `<p class="left-out">${escapeHtml(`No requests recorded for ${snapshot.service}.`)}</p>`
    : snapshot.operations.map((operation) => operationSection(operation, {
      traces, jaegerUi, jaegerUrl: config.jaeger, fanOutOperations: snapshot.fanOut ? snapshot.fanOut.operations : []
    })).join('\n')
  const dropped = snapshot.dropped && snapshot.dropped.spans
    ? `<p class="left-out">${escapeHtml(`${snapshot.dropped.spans} spans were dropped (exporter queue full or export failed).`)}</p>`
    : ''
  const nav = snapshot.operations.map((operation) => ({ id: anchorOf(operation), title: `${operation.method} ${operation.route} [${operation.format}]` }))
  return htmlPage({
    title: `nodebench report: ${snapshot.service}`,
    headline,
    nav,
    style: WATERFALL_STYLE,
    body: `${about}\n${dropped}${operations}\n${instancesSection(snapshot)}`
  })
}

module.exports = { renderReportPage, anchorOf }
