'use strict'

// How every report writes numbers and lists, the same in its sentences, its tables, its Markdown and its HTML.

const thousands = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

function isNumber (value) {
  return typeof value === 'number' && Number.isFinite(value)
}

/** 1476 -> '1,476'. */
function formatCount (value) {
  return isNumber(value) ? thousands.format(value) : '-'
}

/** Requests per second: whole numbers from 100 up, one decimal below (a collection read does ~20/s). */
function formatRate (value) {
  if (!isNumber(value)) return '-'
  return value >= 100 ? thousands.format(value) : value.toFixed(1)
}

/** Milliseconds: three decimals below 1 ms (a middleware takes microseconds), two below 10, one above. */
function formatMs (value) {
  if (!isNumber(value)) return '-'
  return value.toFixed(Math.abs(value) < 1 ? 3 : Math.abs(value) < 10 ? 2 : 1)
}

/** A share (0..1) as a percentage with two decimals, as the study's Table 1 gives them. */
function formatShare (share) {
  return isNumber(share) ? `${(share * 100).toFixed(2)}%` : '-'
}

/** A percentage already in percent (the study's Table 1). */
function formatPercent (percent) {
  return isNumber(percent) ? `${percent.toFixed(2)}%` : '-'
}

function formatRatio (ratio) {
  return isNumber(ratio) ? `${ratio.toFixed(2)}×` : '-'
}

/** A gain as a signed percentage: 1.45 -> '+45%'. */
function formatGain (ratio) {
  if (!isNumber(ratio)) return '-'
  const percent = Math.round((ratio - 1) * 100)
  return `${percent >= 0 ? '+' : ''}${percent}%`
}

function formatBytes (value) {
  return isNumber(value) ? `${thousands.format(value)} B` : '-'
}

function formatMemory (bytes) {
  return isNumber(bytes) ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : '-'
}

function processesText (count) {
  return `${count} process${count === 1 ? '' : 'es'}`
}

/** ['a', 'b', 'c'] -> 'a, b and c'. */
function listText (items) {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** { 302: 500, 500: 3 } -> '302: 500, 500: 3'. */
function statusCodesText (statusCodes) {
  return Object.entries(statusCodes || {}).map(([code, count]) => `${code}: ${formatCount(count)}`).join(', ')
}

/** Failures by class, `{ timeout: 3, 'connection reset': 1 }` -> '3 timeout, 1 connection reset'; 'none'. */
function failuresText (failures) {
  const entries = Object.entries(failures || {}).filter(([, count]) => count > 0)
  return entries.length === 0 ? 'none' : entries.map(([kind, count]) => `${formatCount(count)} ${kind}`).join(', ')
}

module.exports = {
  isNumber,
  failuresText,
  formatCount,
  formatRate,
  formatMs,
  formatShare,
  formatPercent,
  formatRatio,
  formatGain,
  formatBytes,
  formatMemory,
  processesText,
  listText,
  statusCodesText
}
