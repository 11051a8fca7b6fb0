'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { htmlPage, section } = require('../render/page')
const { htmlTable, markdownTable, textTable } = require('../render/tables')
const { htmlList, markdownList, textList } = require('../render/findings')
const { chartSpec, renderCharts, chartGrid } = require('../render/charts')
const { isNumber } = require('../render/format')
const {
  headline, regressionLines, verdictLines, movedSegmentLines, listedLines, cellTable, segmentTables, windowTable
} = require('./report-data')

// compare's three files, each written whole or not at all (a temporary file renamed over it): compare.md, short
// enough for a pull request's comment (the verdicts, the segments that moved, then the tables, folded), compare.json
// (the comparison, schema COMPARE_SCHEMA) and compare.html (the same, with each segment's change and interval
// drawn); and the text the command prints.

const VERDICT_COLORS = Object.freeze({
  domain: ['slower', 'faster', 'no significant change', 'larger', 'smaller'],
  range: ['#c0392b', '#2e7d32', '#7f8c8d', '#8e44ad', '#2874a6']
})

function sidesLine (comparison) {
  const { a, b } = comparison.sides
  const describe = (side) => `${side.name} (${side.source}${side.node ? `, Node.js ${side.node}` : ''})`
  return `a: ${describe(a)}; b: ${describe(b)}`
}

/** The chart of each segment's change in mean time, with its interval: one per cell and operation. */
function segmentCharts (comparison) {
  const charts = []
  for (const cell of comparison.cells) {
    for (const operation of cell.operations) {
      const compared = operation.segments.filter((s) => s.meanMs !== null && isNumber(s.meanMs.change?.percent))
      const values = compared.map((s) => ({
        segment: `${s.name} (${s.kind})`,
        percent: s.meanMs.change.percent,
        low: isNumber(s.meanMs.change.low) ? s.meanMs.change.low : s.meanMs.change.percent,
        high: isNumber(s.meanMs.change.high) ? s.meanMs.change.high : s.meanMs.change.percent,
        verdict: s.meanMs.verdict
      }))
      if (values.length === 0) continue
      const title = `${cell.label}: ${operation.key}`
      const y = { field: 'segment', type: 'nominal', sort: null, title: null, axis: { labelLimit: 280 } }
      const color = { field: 'verdict', type: 'nominal', scale: VERDICT_COLORS, title: 'verdict', legend: { labelLimit: 220 } }
      charts.push({
        kind: 'segment-change',
        scenario: cell.scenario,
        format: cell.format,
        title,
        spec: chartSpec({
          title: { text: title, subtitle: 'each segment\'s mean time, b against a: the change and its 95% interval' },
          width: 420,
          height: { step: 22 },
          data: { values },
          layer: [
            { mark: { type: 'rule', color: '#999', strokeDash: [3, 3] }, encoding: { x: { datum: 0, type: 'quantitative' } } },
            { mark: { type: 'rule', strokeWidth: 2 }, encoding: { y, x: { field: 'low', type: 'quantitative', title: 'change in mean time (%)' }, x2: { field: 'high' }, color } },
            { mark: { type: 'point', filled: true, size: 60 }, encoding: { y, x: { field: 'percent', type: 'quantitative' }, color, tooltip: [{ field: 'segment' }, { field: 'percent', format: '.1f' }, { field: 'low', format: '.1f' }, { field: 'high', format: '.1f' }] } }
          ]
        })
      })
    }
  }
  return charts
}

/** compare.md: the verdicts, the segments that moved, then the tables (folded, for a pull request's comment). */
function renderMarkdown (comparison) {
  const out = [`## nodebench compare: ${escapeMarkdown(comparison.workload)}`, '', `**${escapeMarkdown(headline(comparison))}**`, '']
  const regressions = regressionLines(comparison)
  if (comparison.failOn !== null) {
    out.push(regressions.length === 0
      ? `No regression beyond --fail-on ${comparison.failOn}%.`
      : `**${regressions.length} regression${regressions.length === 1 ? '' : 's'} beyond --fail-on ${comparison.failOn}%:**`, '')
    if (regressions.length > 0) out.push(markdownList(regressions))
  }
  out.push('### Verdicts', '', markdownList(verdictLines(comparison)))
  const moved = movedSegmentLines(comparison)
  out.push('### Segments that moved', '', moved.length === 0 ? 'No segment\'s mean time changed significantly.\n' : markdownList(moved))
  const listed = listedLines(comparison)
  if (listed.length > 0) out.push('### On one side only, and what limits this comparison', '', markdownList(listed))
  out.push(`<sub>${escapeMarkdown(sidesLine(comparison))}. ${escapeMarkdown(comparison.method.text)}.</sub>`, '')
  out.push('<details><summary>Tables: every cell and segment</summary>', '', markdownTable(cellTable(comparison)))
  const windows = windowTable(comparison)
  if (windows !== null) out.push('Windows under callgrind:', '', markdownTable(windows))
  for (const { cell, operation, table } of segmentTables(comparison)) out.push(`**${escapeMarkdown(cell)}: ${escapeMarkdown(operation)}**`, '', markdownTable(table))
  out.push('</details>', '')
  return out.join('\n')
}

/** compare.html: the same with the charts of each segment's change. */
async function renderHtml (comparison) {
  const charts = await renderCharts(segmentCharts(comparison))
  const regressions = regressionLines(comparison)
  const body = []
  const verdicts = [
    ...(comparison.failOn === null
      ? []
      : regressions.length === 0
        ? [`No regression beyond --fail-on ${comparison.failOn}%.`]
        : regressions.map((text) => ({ text, kind: 'failed' }))),
    ...verdictLines(comparison)
  ]
  body.push(section('verdicts', 'Verdicts', htmlList(verdicts, 'findings')))
  const moved = movedSegmentLines(comparison)
  body.push(section('moved', 'Segments that moved', moved.length === 0 ? '<p>No segment\'s mean time changed significantly.</p>' : htmlList(moved, 'findings')))
  body.push(section('segment-charts', 'Each segment\'s change', chartGrid(charts)))
  const listed = listedLines(comparison)
  if (listed.length > 0) body.push(section('one-side', 'On one side only, and what limits this comparison', htmlList(listed, 'notes')))
  const windows = windowTable(comparison)
  body.push(section('cells', 'Cells', htmlTable(cellTable(comparison)) + (windows === null ? '' : `<h3>Windows under callgrind</h3>\n${htmlTable(windows)}`)))
  body.push(section('segments', 'Segments', segmentTables(comparison).map(({ cell, operation, table }) =>
    `<h3>${escapeHtml(cell)}: ${escapeHtml(operation)}</h3>\n${htmlTable(table)}`).join('\n')))
  body.push(section('method', 'How this was compared', `<p>${escapeHtml(sidesLine(comparison))}.</p>\n<p>${escapeHtml(comparison.method.text)}.</p>`))
  return htmlPage({
    title: `nodebench compare: ${comparison.workload}`,
    headline: headline(comparison),
    nav: [{ id: 'verdicts', title: 'Verdicts' }, { id: 'moved', title: 'Segments that moved' }, { id: 'segment-charts', title: 'Charts' }, { id: 'cells', title: 'Cells' }, { id: 'segments', title: 'Segments' }, { id: 'method', title: 'Method' }],
    body: body.join('\n')
  })
}

/** What the command prints: the headline, regressions, verdicts, segments that moved, what is on one side. */
function renderText (comparison) {
  const out = [`${headline(comparison)}\n`]
  const regressions = regressionLines(comparison)
  if (regressions.length > 0) out.push(`regressions beyond --fail-on ${comparison.failOn}%:\n${textList(regressions)}`)
  out.push(`verdicts:\n${textList(verdictLines(comparison))}`)
  const moved = movedSegmentLines(comparison)
  out.push(moved.length === 0 ? 'segments that moved: none\n' : `segments that moved:\n${textList(moved)}`)
  const listed = listedLines(comparison)
  if (listed.length > 0) out.push(`on one side only, and what limits this comparison:\n${textList(listed)}`)
  const windows = windowTable(comparison)
  if (windows !== null) out.push(textTable(windows))
  out.push(`${comparison.method.text}.\n`)
  return out.join('')
}

/** Writes `text` to `file` whole: a temporary file beside it, renamed over it. */
function writeWhole (file, text) {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  try {
    fs.writeFileSync(temporary, text)
    fs.renameSync(temporary, file)
  } catch (err) {
    fs.rmSync(temporary, { force: true })
    throw err
  }
}

/**
 * Writes compare.json, compare.md and compare.html for `comparison` into `outDir`: every file rendered before
 * the first is written, each written whole. Resolves to their paths.
 */
async function writeComparison (comparison, outDir) {
  const files = { json: path.join(outDir, 'compare.json'), markdown: path.join(outDir, 'compare.md'), html: path.join(outDir, 'compare.html') }
  const texts = { json: JSON.stringify(comparison, null, 2) + '\n', markdown: renderMarkdown(comparison), html: await renderHtml(comparison) }
  fs.mkdirSync(outDir, { recursive: true })
  for (const key of Object.keys(files)) writeWhole(files[key], texts[key])
  return files
}

module.exports = { renderMarkdown, renderHtml, renderText, writeComparison, writeWhole }
