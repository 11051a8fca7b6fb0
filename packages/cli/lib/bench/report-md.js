'use strict'

const { escapeMarkdown } = require('@nodebench/breakdown')
const { summarize } = require('./report-data')
const { scaleOutOf } = require('./report-scale-out')
const { targetsSummary } = require('./report-targets')
const { processesSummary } = require('./report-processes')
const { sweepSummary } = require('./report-sweep')
const { ladderSentence } = require('./report-findings')
const tables = require('./report-tables')
const { markdownTable } = require('../render/tables')
const { markdownList } = require('../render/findings')
const { processesText } = require('../render/format')

// report.md: the bench report as Markdown, the same sections as report.html without the charts (the passes'
// sections too: `sections`, report.js).

/** Topologies, the TU Berlin study's figures, --find-max and the elasticity runs (charts in report.html). */
function scaleOutMarkdown (scaleOut) {
  const parts = [markdownList(scaleOut.findings), ...(scaleOut.notes.length ? [markdownList(scaleOut.notes)] : []),
    '### Requests per second by topology\n', markdownTable(tables.topologyTable(scaleOut))]
  if (scaleOut.study.length) parts.push('### Instances behind nginx, here and in the TU Berlin study\n', markdownTable(tables.studyTable(scaleOut)))
  if (scaleOut.findMax.length) parts.push('### Throughput at 0% errors (--find-max)\n', markdownTable(tables.findMaxTable(scaleOut)))
  if (scaleOut.elasticity.length) {
    parts.push('### Instances added and killed mid-run\n', markdownTable(tables.elasticityTable(scaleOut)),
      '#### Requests per instance (nginx\'s log)\n', markdownTable(tables.instanceTable(scaleOut)))
  }
  return parts
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

/** The servers measured side by side (report-targets.js), as in report.html without its charts. */
function targetsMarkdown (targets) {
  const parts = ['## Servers side by side\n']
  if (targets.reference !== null && targets.reference.findings.length) {
    parts.push(`The study found (${escapeMarkdown(targets.reference.source)}):\n`, markdownList(targets.reference.findings))
  }
  parts.push(markdownTable(tables.targetTable(targets)))
  const ladders = targets.groups.filter((group) => group.ladder !== null)
  if (ladders.length) {
    parts.push('### From bare Node.js to the traced app\n', 'Each step\'s cost per request is 1 / requests per second, what a request costs ' +
      'the server at saturation; the steps add up to the gap between bare node:http and the traced app.\n')
    for (const group of ladders) {
      const sentence = ladderSentence(group, group.ladder)
      parts.push(markdownList([sentence]), markdownTable(tables.ladderTable(group.ladder)))
    }
  }
  const reference = targets.reference === null ? null : tables.targetReferenceTable(targets)
  if (reference !== null) {
    parts.push(`### ${escapeMarkdown(targets.reference.table ?? 'The study')} beside this run\n`,
      `${escapeMarkdown(`${targets.reference.source}${targets.reference.setup ? `: ${targets.reference.setup}` : ''}. Here: ${tables.targetGroupTitle(reference.group)}.`)}\n`,
      markdownTable(reference))
  }
  if (targets.notes.length) parts.push(markdownList(targets.notes))
  for (const group of targets.groups) parts.push(`### ${escapeMarkdown(tables.targetGroupTitle(group))}\n`, markdownTable(tables.targetGroupTable(group)))
  return parts
}

/** Response time against each varied value, the study's comparisons beside it, what the cores can show. */
function sweepMarkdown (sweep) {
  if (sweep === null) return []
  const parts = ['## Sweeps: response time against the varied values\n', markdownList(sweep.limits)]
  for (const group of sweep.groups) {
    parts.push(`### Response time against ${escapeMarkdown(group.over)} (mean ms per request)\n`, markdownTable(tables.sweepGroupTable(group)))
  }
  if (sweep.comparisons.length) {
    parts.push(`### The study beside this run${sweep.source ? ` (${escapeMarkdown(sweep.source)})` : ''}\n`,
      'Ratio: this run\'s response time over the other\'s; gain: how much faster (the other\'s time over this one\'s). ' +
      'A figure that needs more cores than this machine has is shown, not claimed.\n', markdownTable(tables.sweepComparisonTable(sweep)))
  }
  if (sweep.resources.length) parts.push('### Per-process load beside the study\'s tables\n', markdownTable(tables.sweepResourceTable(sweep)))
  return parts
}

/** Every process of every cell while its load ran (report-processes.js). */
function processesMarkdown (entries) {
  if (entries.length === 0) return []
  return ['## CPU and memory by process\n', ...entries.flatMap((entry) => [
    `### ${escapeMarkdown(entry.title)}\n`, `${escapeMarkdown(tables.samplingLine(entry))}\n`, markdownTable(tables.processResourceTable(entry))
  ])]
}

/** The bench report as Markdown; `sections`: the passes' (report.js), each shown when `results` holds its key. */
function renderMarkdown (results, { sections = [] } = {}) {
  const summary = summarize(results)
  const scaleOut = scaleOutOf(summary)
  const present = sections.filter((s) => results[s.key] !== undefined && results[s.key] !== null)
  const targets = targetsSummary(results)
  const processes = processesMarkdown(processesSummary(results))
  const sweep = sweepSummary(summary, results)
  if (summary.allCells.length === 0 && targets !== null) {
    // A run of other servers only (a workload without the app): none of the app's sections has anything to show.
    return [
      '# nodebench bench report\n',
      `${escapeMarkdown(tables.headline(summary))}\n`,
      ...(targets === null ? [] : targetsMarkdown(targets)),
      ...processes,
      '## Machine\n',
      markdownTable(tables.machineTable(summary)),
      '## Configuration\n',
      markdownTable(tables.configTable(summary))
    ].join('\n')
  }
  const owners = tables.ownerTable(summary)
  return [
    '# nodebench bench report\n',
    `${escapeMarkdown(tables.headline(summary))}\n`,
    '## Where the time goes\n',
    owners.rows.length === 0
      ? 'No measured cell has a breakdown of its operation: which function owns the time is not known.\n'
      : `The function that owns each operation's response time (the largest share), at ${processesText(owners.processes)}; ` +
        'the time-share charts are in report.html beside this file.\n\n' + markdownTable(owners),
    '## What this shows\n',
    markdownList(summary.findings),
    ...(summary.reference.findings.length === 0
      ? []
      : [`${escapeMarkdown(summary.reference.intro)}\n`, markdownList(summary.reference.findings)]),
    '## What limits these figures\n',
    markdownList(summary.notes) || 'Nothing: every cell finished with 2xx responses only.\n',
    ...(sweep === null ? [] : [markdownList(sweep.limits)]),
    ...sweepMarkdown(sweep),
    ...(targets === null ? [] : targetsMarkdown(targets)),
    '## Cells\n',
    markdownTable(tables.cellTable(summary)),
    ...(summary.hasReference
      ? [
          '## Comparison with the study\n',
          ...(summary.comparesFormats ? ['### JSON against HTML\n', markdownTable(tables.throughputTable(summary))] : []),
          '### Table 1: the share of response time of the study\'s longest-running function\n',
          markdownTable(tables.table1Table(summary)),
          '### Which function owns the time\n',
          markdownTable(tables.dominanceTable(summary)),
          '### Response sizes\n',
          markdownTable(tables.responseSizeTable(summary))
        ]
      : []),
    ...(scaleOut.present ? ['## Scale-out: topologies, throughput at 0% errors, elasticity\n', ...scaleOutMarkdown(scaleOut)] : []),
    '## Where the time goes, cell by cell\n',
    'Share = the segment\'s time / the operation\'s response time in the app; *unattributed* is Express\'s own routing, ' +
      'the gaps between layers and the socket flush.\n',
    breakdowns(summary),
    ...processes,
    ...present.map((extra) => extra.markdown(results[extra.key])),
    '## Machine\n',
    markdownTable(tables.machineTable(summary)),
    '## Configuration\n',
    markdownTable(tables.configTable(summary))
  ].join('\n')
}

module.exports = { renderMarkdown }
