'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { targetsSummary } = require('./data')
const { ladderSentence, costSentence } = require('./findings')
const tables = require('./tables')
const { targetCharts, targetPercentileCharts } = require('./charts')
const { section } = require('../../render/page')
const { htmlTable, markdownTable, textTable } = require('../../render/tables')
const { htmlList, markdownList } = require('../../render/findings')
const { chartGrid, renderCharts } = require('../../render/charts')

// The servers measured side by side (kernel/targets.js: the app untraced, bare Express, bare node:http, Apache,
// --baseline-targets): each group's figures as Apache Bench prints them, the ladder from bare node:http to the
// traced app, the workload's reference beside the run. data.js computes the figures, findings.js says them,
// tables.js and charts.js show them; this is the report's section and the terminal's lines.

const TITLE = 'Servers side by side'
const COST_TITLE = 'What nodebench costs this app'
const COST_TEXT = 'The app traced against the same app started with NODEBENCH=off (nodebenchTrace() then only hands ' +
  'requests on): the added cost per request is the difference of 1 / requests per second, what a request costs the server ' +
  'at saturation.'

/** Each group's sentence on what nodebench costs the app (groups without a ladder, which would say it). */
function costSentences (targets) {
  const measured = targets.groups.filter((group) => group.nodebenchCost !== null)
  return measured.map((group) => costSentence(group, group.nodebenchCost))
}

// The terminal's columns of a group's table.
const TEXT_COLUMNS = Object.freeze(['target', 'req/s', 'time per request ms (ab)', 'failed', '50% ms', '98% ms', '100% ms'])

function referenceTitle (reference) {
  return `${reference.source}${reference.setup ? `: ${reference.setup}` : ''}`
}

const baselinesSection = Object.freeze({
  id: 'targets',
  nav: TITLE,
  of: (report) => targetsSummary(report.results),
  async html (targets) {
    const parts = []
    if (targets.reference !== null && targets.reference.findings.length) {
      parts.push(`<p class="study">The study found (${escapeHtml(targets.reference.source)}):</p>`, htmlList(targets.reference.findings, 'study'))
    }
    parts.push(htmlTable(tables.targetTable(targets)))
    const costs = costSentences(targets)
    if (costs.length) parts.push(`<h3>${COST_TITLE}</h3>`, `<p>${escapeHtml(COST_TEXT)}</p>`, htmlList(costs, 'findings'))
    const ladders = targets.groups.filter((group) => group.ladder !== null)
    if (ladders.length) {
      parts.push('<h3>From bare Node.js to the traced app</h3>', '<p>Each step\'s cost per request is 1 / requests per second, what a ' +
        'request costs the server at saturation; the steps add up to the gap between bare node:http and the traced app.</p>')
      for (const group of ladders) parts.push(htmlList([ladderSentence(group, group.ladder)], 'findings'), htmlTable(tables.ladderTable(group.ladder)))
    }
    const reference = targets.reference === null ? null : tables.targetReferenceTable(targets)
    if (reference !== null) {
      parts.push(`<h3>${escapeHtml(targets.reference.table ?? 'The study')} beside this run</h3>`,
        `<p>${escapeHtml(`${referenceTitle(targets.reference)}. Here: ${tables.targetGroupTitle(reference.group)}.`)}</p>`,
        htmlTable(reference))
    }
    if (targets.notes.length) parts.push(htmlList(targets.notes.map((text) => ({ text, kind: 'warn' })), 'notes'))
    const charts = await renderCharts([...targetCharts(targets), ...targetPercentileCharts(targets)])
    parts.push(chartGrid(charts))
    for (const group of targets.groups) parts.push(`<h3>${escapeHtml(tables.targetGroupTitle(group))}</h3>`, htmlTable(tables.targetGroupTable(group)))
    return section('targets', TITLE, parts.join('\n'))
  },
  markdown (targets) {
    const parts = [`## ${TITLE}\n`]
    if (targets.reference !== null && targets.reference.findings.length) {
      parts.push(`The study found (${escapeMarkdown(targets.reference.source)}):\n`, markdownList(targets.reference.findings))
    }
    parts.push(markdownTable(tables.targetTable(targets)))
    const costs = costSentences(targets)
    if (costs.length) parts.push(`### ${COST_TITLE}\n`, `${COST_TEXT}\n`, markdownList(costs))
    const ladders = targets.groups.filter((group) => group.ladder !== null)
    if (ladders.length) {
      parts.push('### From bare Node.js to the traced app\n', 'Each step\'s cost per request is 1 / requests per second, what a request costs ' +
        'the server at saturation; the steps add up to the gap between bare node:http and the traced app.\n')
      for (const group of ladders) {
        parts.push(markdownList([ladderSentence(group, group.ladder)]), markdownTable(tables.ladderTable(group.ladder)))
      }
    }
    const reference = targets.reference === null ? null : tables.targetReferenceTable(targets)
    if (reference !== null) {
      parts.push(`### ${escapeMarkdown(targets.reference.table ?? 'The study')} beside this run\n`,
        `${escapeMarkdown(`${referenceTitle(targets.reference)}. Here: ${tables.targetGroupTitle(reference.group)}.`)}\n`,
        markdownTable(reference))
    }
    if (targets.notes.length) parts.push(markdownList(targets.notes))
    for (const group of targets.groups) parts.push(`### ${escapeMarkdown(tables.targetGroupTitle(group))}\n`, markdownTable(tables.targetGroupTable(group)))
    return parts.join('\n')
  },
  /** Each group's figures and the ladder from bare node:http to the traced app. */
  text (targets) {
    const parts = []
    for (const group of targets.groups) {
      const table = tables.targetGroupTable(group)
      const indexes = TEXT_COLUMNS.map((name) => table.head.indexOf(name))
      const rows = table.rows.map((row) => (row.message ? row : { ...row, cells: indexes.map((i) => row.cells[i]) }))
      parts.push(`${tables.targetGroupTitle(group)}:\n${textTable({ head: [...TEXT_COLUMNS], rows })}`)
      if (group.ladder !== null) parts.push(`${ladderSentence(group, group.ladder)}\n`)
      if (group.nodebenchCost !== null) parts.push(`${costSentence(group, group.nodebenchCost)}\n`)
    }
    return parts.join('\n') + '\n'
  }
})

module.exports = { baselinesSection }
