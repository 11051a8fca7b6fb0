'use strict'

const { isNumber } = require('../../render/format')

// The tables of CPU and memory by process as rows of text (render/tables.js lays them out).

function percent (value) {
  return isNumber(value) ? value.toFixed(1) : '-'
}

function mebibytes (bytes) {
  return isNumber(bytes) ? (bytes / 1024 ** 2).toFixed(1) : '-'
}

/** A cell's processes: CPU% and resident memory, mean and max. */
function processResourceTable (entry) {
  const head = ['process', 'pid', 'CPU % mean', 'CPU % max', 'RSS MiB mean', 'RSS MiB max']
  const rows = entry.rows.map((row) => ({
    cells: [row.name, row.pid, percent(row.cpu.mean), percent(row.cpu.max), mebibytes(row.rss.mean),
      mebibytes(row.rss.max)]
  }))
  return { head, rows }
}

/** How a cell was sampled, in one line. */
function samplingLine (entry) {
  return `${entry.samples} samples, one every ${entry.intervalMs / 1000} s over ${entry.durationSec} s of load; CPU % of one core ` +
    '(100 = one core busy), resident memory (a role\'s total counts the pages its processes share once per process)' +
    (entry.error ? `; sampling failed at times: ${entry.error}` : '')
}

module.exports = { processResourceTable, samplingLine }
