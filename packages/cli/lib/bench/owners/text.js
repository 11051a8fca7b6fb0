'use strict'

const { renderTable } = require('@nodebench/breakdown')
const { findNamed, isNamed } = require('./dominant')
const { scenarioLabel } = require('../scenario-label')

// What `nodebench bench` prints of the app's cells when it is done (the reports have the rest): each measured
// operation's time shares, the function that owns its time here and in the workload's reference.

/** The cells of the lowest process count, the study's Table 1 column. */
function lowestProcesses (results) {
  return Math.min(...results.cells.map((c) => c.processes))
}

function operationOf (cell) {
  return cell.breakdown.operations.find((o) =>
    o.method === cell.operation.method && o.route === cell.operation.route && o.format === cell.operation.format)
}

/**
 * Which scenario a table is: its label (and name, when another scenario has the same label), its format and
 * varied values; two scenarios of one route would otherwise read the same.
 */
function scenarioHeading (results, cell) {
  const scenarios = (results.workload && results.workload.scenarios) || {}
  const values = Object.entries(cell.values ?? {}).filter(([name]) => name !== 'processes').map(([name, value]) => `, ${name} ${value}`).join('')
  return `${scenarioLabel(scenarios, cell.scenario)} (${cell.format}${values})`
}

/** What an operation's errors leave out: the answers its scenario expects (`status: 400`), said after its table. */
function expectedErrorsLine (cell, operation) {
  if (!(operation.expectedErrors > 0)) return ''
  return `  (${operation.expectedErrors} answered ${cell.expectedStatus} as the workload expects: not counted as errors)\n`
}

/** The time-share table of each measured operation (the lowest process count), for the terminal. */
function renderTimeShares (results) {
  const lowest = lowestProcesses(results)
  const parts = []
  for (const cell of results.cells) {
    if (cell.processes !== lowest || cell.breakdown === null || cell.status !== 'ok') continue
    const operation = operationOf(cell)
    if (operation === undefined) continue
    const table = renderTable({ ...cell.breakdown, operations: [operation] }, { color: false })
    parts.push(`${scenarioHeading(results, cell)}: ${table.replace('\n', `\n${expectedErrorsLine(cell, operation)}`)}`)
  }
  return parts.join('\n')
}

/**
 * Which function owns each operation's time at the lowest process count, for every scenario: the function
 * with the largest share; for a scenario that names its dominant function, that function's share here and in
 * its reference (the study's Table 1), matched by name, alias or plain name (dominant.js).
 */
function renderOwners (results) {
  const lowest = lowestProcesses(results)
  const scenarios = (results.workload && results.workload.scenarios) || {}
  const withReference = Boolean(results.workload && results.workload.reference)
  const lines = [`The function that owns each operation's time (share of response time), here${withReference ? ' and in the study' : ''} ` +
    `(${lowest} process${lowest === 1 ? '' : 'es'}):`]
  // Each row: the operation, its function, the share, the verdict; the first two padded to the longest.
  const rows = []
  for (const cell of results.cells) {
    if (cell.processes !== lowest || cell.status !== 'ok' || cell.breakdown === null) continue
    const operation = operationOf(cell)
    if (operation === undefined || operation.segments.length === 0) continue
    const described = scenarios[cell.scenario] || {}
    const top = operation.segments.reduce((best, segment) => (segment.share > best.share ? segment : best))
    const name = `${scenarioLabel(scenarios, cell.scenario)} (${cell.format}${cell.topology === 'nginx' ? ', nginx' : ''})`
    const expected = typeof described.dominant === 'string' ? described.dominant : null
    if (expected === null) {
      rows.push([name, top.name, percent(top.share), 'the largest share'])
      continue
    }
    const dominant = findNamed(operation, expected)
    const here = dominant ? percent(dominant.share) : 'not seen'
    const shares = described.reference && described.reference.shares && described.reference.shares[cell.format]
    const study = shares ? shares[lowest] : undefined
    const verdict = isNamed(top, expected) ? 'same function' : `here ${top.name} leads (${percent(top.share)})`
    const studyText = withReference ? `study ${study === undefined ? '   n/a' : `${study.toFixed(2)}%`}   ` : ''
    const shown = dominant && dominant.name !== expected ? `${expected} (${dominant.name})` : expected
    rows.push([name, shown, here, studyText + verdict])
  }
  const width = (column, least) => rows.reduce((most, row) => Math.max(most, row[column].length), least)
  const nameWidth = width(0, 24)
  const functionWidth = width(1, 15)
  for (const [name, shown, share, rest] of rows) {
    lines.push(`  ${name.padEnd(nameWidth)} ${shown.padEnd(functionWidth)} ${share.padStart(8)}   ${rest}`)
  }
  return lines.length > 1 ? lines.join('\n') + '\n' : ''
}

function percent (share) {
  return `${(share * 100).toFixed(2)}%`
}

module.exports = { renderTimeShares, renderOwners }
