'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { section } = require('../render/page')
const { htmlTable, markdownTable, textTable } = require('../render/tables')
const { formatCount } = require('../render/format')
const { storeGrowth } = require('../kernel/collection-sizes')

// The app's database in the bench report: which one it was (kernel/database.js: an empty embedded one per run,
// nodebench's kept one, or MONGODB_URI), its collections' sizes before and after each cell, and the warning
// when the store grew enough over the run to move the figures: results.json's `database`
// (kernel/collection-sizes.js databaseOfRun). report.js adds this section to every bench report; the warning is
// also one of "What limits these figures" (cells/data.js).

const TITLE = 'Database: collection sizes before and after each cell'

/** Rows of a cell's collections: name, before, after, added (only those with documents or a change). */
function sizeTable (cells) {
  const rows = []
  for (const cell of cells) {
    for (const { name, before, after } of cell.collections) {
      if (before === 0 && after === 0) continue
      const added = after - before
      rows.push({
        cells: [cell.title, name, formatCount(before), formatCount(after), `${added > 0 ? '+' : ''}${formatCount(added)}`],
        warn: storeGrowth([{ name, before, after }]).length > 0
      })
    }
  }
  return { head: ['cell', 'collection', 'documents before', 'after', 'added'], rows }
}

function describeSource (database) {
  if (database.source === 'MONGODB_URI') return 'MONGODB_URI (the run reads and writes that database as it is)'
  if (database.fresh) return 'the embedded FerretDB, empty at the start of the run (a new data directory, removed after it)'
  if (database.source === 'service') return 'the running `db` service (the workload keeps its database)'
  return 'the embedded FerretDB on nodebench\'s data directory (the workload keeps its database)'
}

function lead (database) {
  return `The app's database: ${describeSource(database)}. Documents per collection, counted right before each ` +
    'cell\'s measured load and right after it.'
}

const databaseSection = Object.freeze({
  key: 'database',
  id: 'database',
  nav: 'Database',
  async html (database) {
    const warning = database.warning === null ? '' : `<p class="warn"><strong>warning</strong>: ${escapeHtml(database.warning)}</p>\n`
    const table = sizeTable(database.cells)
    const body = table.rows.length === 0 ? '<p>No collection held documents.</p>' : htmlTable(table)
    return section('database', TITLE, `${warning}<p>${escapeHtml(lead(database))}</p>\n${body}`)
  },
  markdown (database) {
    const table = sizeTable(database.cells)
    return [
      `## ${TITLE}\n`,
      ...(database.warning === null ? [] : [`**Warning**: ${escapeMarkdown(database.warning)}\n`]),
      `${escapeMarkdown(lead(database))}\n`,
      table.rows.length === 0 ? 'No collection held documents.\n' : markdownTable(table)
    ].join('\n')
  },
  text (database) {
    if (database.grew.length === 0) return ''
    const rows = database.grew.map(({ name, before, after }) => ({
      cells: [name, formatCount(before), formatCount(after)]
    }))
    return `\nThe database grew during the run:\n${textTable({ head: ['collection', 'documents at start', 'at end'], rows })}`
  }
})

/** The report's note ("What limits these figures") when the store grew enough; none otherwise. */
function databaseNotes (results) {
  const warning = results?.database?.warning
  return typeof warning === 'string' ? [{ kind: 'database', text: warning }] : []
}

module.exports = { databaseSection, databaseNotes }
