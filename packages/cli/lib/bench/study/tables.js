'use strict'

const { isNumber, formatRate, formatMs, formatShare, formatPercent, formatRatio, formatBytes } = require('../../render/format')

// The tables of the study beside the run as rows of text (render/tables.js lays them out).

/** JSON against HTML per operation and process count. */
function throughputTable (summary) {
  const head = ['operation', 'processes', 'HTML req/s', 'JSON req/s', 'JSON ÷ HTML req/s', 'HTML mean ms', 'JSON mean ms', 'HTML ÷ JSON latency']
  const rows = summary.htmlVsJson.map((row) => {
    const start = [row.label, String(row.processes)]
    if (row.jsonOverHtml === null) {
      const side = (format) => (row[format] ? formatRate(row[format].requestsPerSec) : row.missing.includes(`${format} failed`) ? 'failed' : 'not measured')
      return { cells: [...start, side('html'), side('json'), '-', '-', '-', '-'], failed: true }
    }
    return {
      warn: row.jsonOverHtml <= 1,
      cells: [
        ...start,
        formatRate(row.html.requestsPerSec), formatRate(row.json.requestsPerSec), formatRatio(row.jsonOverHtml),
        formatMs(row.html.latencyMeanMs), formatMs(row.json.latencyMeanMs), formatRatio(row.htmlOverJsonLatency)
      ]
    }
  })
  return { head, rows }
}

/** The study's Table 1 beside the same share here, a row each, for every process count of either. */
function table1Table (summary) {
  const counts = [...new Set([...summary.studyProcesses, ...summary.processes])].sort((a, b) => a - b)
  const head = ['function', 'operation', 'format', 'source', ...counts.map((n) => `${n} proc`)]
  const rows = []
  for (const row of summary.table1) {
    const start = [row.function, row.label, row.format]
    rows.push({
      cells: [...start, 'here', ...counts.map((n) => {
        if (row.failed.includes(n)) return 'failed'
        if (!(n in row.here)) return '-'
        const top = row.top[n]
        const other = top && top.name !== row.function ? ` (${top.name} leads: ${formatShare(top.share)})` : ''
        return formatPercent(row.here[n]) + other
      })]
    })
    rows.push({ study: true, cells: [...start, 'study', ...counts.map((n) => formatPercent(row.study[n]))] })
  }
  return { head, rows }
}

/**
 * Beside Table 1: what the study's function waited on, per measured cell. A column per system its calls name
 * (in the order of the longest waited on), each the part of the function's time spent waiting on it, with its
 * calls; then the rest: the function's own code (rendering a page, serialising JSON) and its wait for the CPU.
 */
function functionWaitsTable (summary) {
  const systems = [...new Set(summary.functionWaits.flatMap((row) => Object.keys(row.systems)))]
  const head = ['function', 'operation', 'format', 'processes', 'share of response time',
    ...systems.map((system) => `of it ${system}`), 'of it the rest', 'calls']
  const rows = summary.functionWaits.map((row) => ({
    cells: [row.function, row.label, row.format, String(row.processes), formatShare(row.share),
      ...systems.map((system) => formatShare(row.systems[system]?.share ?? 0)), formatShare(row.rest),
      Object.entries(row.systems).flatMap(([system, { calls }]) => calls.map((call) =>
        `${[system, call.operation, call.target].filter(Boolean).join(' ')} ${formatShare(call.part)} (${call.count} ${call.count === 1 ? 'call' : 'calls'})`))
        .join(', ') || '-']
  }))
  return { head, rows }
}

/** Which function owns each measured cell's time, here and in the study. */
function dominanceTable (summary) {
  const head = ['operation', 'format', 'processes', 'largest share here', 'share', "study's function", 'its share here', 'study (Table 1)', 'same function']
  const rows = summary.dominance.map((row) => ({
    warn: !row.matches,
    cells: [row.label, row.format, String(row.processes), row.hereFunction, formatShare(row.hereShare), row.studyFunction || '-',
      formatShare(row.studyFunctionShare), formatPercent(row.studyPercent), row.studyFunction === null ? '-' : row.matches ? 'yes' : 'no']
  }))
  return { head, rows }
}

function responseSizeTable (summary) {
  const head = ['operation', 'format', 'bytes/response here', 'study', 'here ÷ study']
  const rows = summary.responseSizes.map((row) => ({
    cells: [row.label, row.format, formatBytes(row.bytes) + (row.varies ? ' (varies by process count)' : ''), formatBytes(row.studyBytes),
      row.studyBytes ? formatRatio(row.bytes / row.studyBytes) : '-']
  }))
  for (const ratio of summary.sizeRatios) {
    rows.push({ cells: [ratio.label, 'HTML ÷ JSON', formatRatio(ratio.here), formatRatio(ratio.study), isNumber(ratio.study) ? formatRatio(ratio.here / ratio.study) : '-'] })
  }
  return { head, rows }
}

module.exports = { throughputTable, table1Table, functionWaitsTable, dominanceTable, responseSizeTable }
