'use strict'

const { escapeMarkdown } = require('@nodebench/breakdown')
const { renderComparisonMarkdown } = require('../flame/render-comparison')
const { renderSegmentsMarkdown } = require('../flame/render-segments')
const { renderBrowserMarkdown } = require('../browser/report')
const { summarize } = require('./report-data')
const tables = require('./report-tables')
const { markdownTable } = require('./report-page')
const scaleOutTables = require('./report-scaleout')

// report.md: the bench report as Markdown, the same sections as report.html without the charts.

/** Topologies, the TU Berlin study's figures, --find-max and the elasticity runs (charts in report.html). */
function scaleOutMarkdown (scaleOut) {
  const parts = [list(scaleOut.findings), ...(scaleOut.notes.length ? [list(scaleOut.notes)] : []),
    '### Requests per second by topology\n', markdownTable(scaleOutTables.topologyTable(scaleOut))]
  if (scaleOut.study.length) parts.push('### Instances behind nginx, here and in the TU Berlin study\n', markdownTable(scaleOutTables.studyTable(scaleOut)))
  if (scaleOut.findMax.length) parts.push('### Throughput at 0% errors (--find-max)\n', markdownTable(scaleOutTables.findMaxTable(scaleOut)))
  if (scaleOut.elasticity.length) {
    parts.push('### Instances added and killed mid-run\n', markdownTable(scaleOutTables.elasticityTable(scaleOut)),
      '#### Requests per instance (nginx\'s log)\n', markdownTable(scaleOutTables.instanceTable(scaleOut)))
  }
  return parts
}

function list (items) {
  return items.map((item) => `- ${escapeMarkdown(item)}`).join('\n') + '\n'
}

function breakdowns (summary) {
  let out = ''
  for (const cell of summary.allCells) {
    out += `### ${escapeMarkdown(cell.title)}\n\n`
    if (cell.failed) {
      out += `**failed**: ${escapeMarkdown(cell.failure)}\n\n`
      continue
    }
    if (!cell.operation) {
      out += 'No breakdown of this operation was recorded.\n\n'
      continue
    }
    out += `${escapeMarkdown(tables.operationLine(cell))}\n\n${markdownTable(tables.segmentTable(cell.operation))}\n`
    const others = tables.otherOperations(cell)
    if (others.length) out += `Also in this snapshot: ${escapeMarkdown(others.join('; '))}.\n\n`
  }
  return out
}

function flameMarkdown (flame) {
  return flame.map((profile) => {
    if (profile.failure) return `### ${escapeMarkdown(profile.scenario)}\n\n**failed**: ${escapeMarkdown(profile.failure)}\n`
    const links = profile.flamegraphs.map((f) => `[${f.format} flamegraph](${f.html}) (${f.samples} samples, nodebench itself ${(f.nodebenchShare * 100).toFixed(1)}%)`).join(', ')
    // The comparison brings its own title (# ...): nest it under this section.
    // Required here: flame/render-comparison uses this file's escaping, so a top-level require would be circular.
    const table = profile.comparison ? renderComparisonMarkdown(profile.comparison, { scenario: profile.scenario }).replace(/^(#+) /gm, '$1## ') : ''
    const segments = profile.flamegraphs.filter((f) => f.analysis)
      .map((f) => renderSegmentsMarkdown(f, { scenario: profile.scenario, profiler: profile.profiler }).replace(/^(#+) /gm, '$1# ')).join('\n')
    return `${links}\n\n${segments}\n${table}`
  }).join('\n')
}

/** The bench report as Markdown. */
function renderMarkdown (results) {
  const summary = summarize(results)
  const scaleOut = scaleOutTables.scaleOutOf(summary)
  const notes = summary.notes.map((note) => (note.kind === 'failed' ? `**failed**: ${escapeMarkdown(note.text)}` : escapeMarkdown(note.text)))
  return [
    '# nodebench bench report\n',
    `${escapeMarkdown(tables.headline(summary))}\n`,
    'The charts (latency percentiles, requests/s by processes, HTML vs JSON, time shares) are in report.html beside this file.\n',
    '## What this shows\n',
    list(summary.findings),
    ...(summary.reference.findings.length === 0
      ? []
      : [`${escapeMarkdown(summary.reference.intro)}\n`, list(summary.reference.findings)]),
    '## What limits these figures\n',
    notes.length ? notes.map((note) => `- ${note}`).join('\n') + '\n' : 'Nothing: every cell finished with 2xx responses only.\n',
    '## Cells\n',
    markdownTable(tables.cellTable(summary)),
    '## Comparison with the study\n',
    '### JSON against HTML\n',
    markdownTable(tables.throughputTable(summary)),
    '### Table 1: the share of response time of the study\'s longest-running function\n',
    markdownTable(tables.table1Table(summary)),
    '### Which function owns the time\n',
    markdownTable(tables.dominanceTable(summary)),
    '### Response sizes\n',
    markdownTable(tables.responseSizeTable(summary)),
    ...(scaleOut.present ? ['## Scale-out: topologies, throughput at 0% errors, elasticity\n', ...scaleOutMarkdown(scaleOut)] : []),
    '## Where the time goes, cell by cell\n',
    'Share = the segment\'s time / the operation\'s response time in the app; *unattributed* is Express\'s own routing, ' +
      'the gaps between layers and the socket flush.\n',
    breakdowns(summary),
    ...(Array.isArray(results.flame) ? ['## Flamegraphs: CPU beside time per segment, HTML against JSON\n', flameMarkdown(results.flame)] : []),
    ...(results.browser
      ? [results.browser.failure ? `## The browser\n\nThe browser pass could not run: ${escapeMarkdown(results.browser.failure)}\n` : renderBrowserMarkdown(results.browser)]
      : []),
    '## Machine\n',
    markdownTable(tables.machineTable(summary)),
    '## Configuration\n',
    markdownTable(tables.configTable(summary))
  ].join('\n')
}

module.exports = { renderMarkdown }
