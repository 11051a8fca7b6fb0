'use strict'

const Table = require('cli-table3')
const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')

// One table, four layouts: an HTML table for a report page, a Markdown table, plain text columns and a boxed
// terminal table. A table is text cells, built once by the feature that owns the figures:
//   { head: ['page', 'load ms', ...], numeric?: [false, true, ...],
//     rows: [{ cells: ['home', '68.0', ...], failed?, warn?, study?, message?, share? }] }
// A row's `message` (a failed row's reason) runs across the columns its cells leave; `share` (0..1) draws a
// bar in HTML; `numeric` says which columns hold numbers (right-aligned), detected from the cells when absent.
// Every string is escaped here.

const NUMERIC = /^(-|failed|not measured|[-+]?[\d,.]+(%|×| B| GiB| s)?( \(.*\))?)$/

/** Which columns hold only numbers: `table.numeric`, else those whose every cell reads as one (not all '-'). */
function numericColumns (table) {
  if (Array.isArray(table.numeric)) return table.numeric
  const { head, rows } = table
  return head.map((_, i) => {
    const values = rows.map((row) => row.cells[i]).filter((cell) => cell !== undefined && cell !== '')
    return values.some((cell) => cell !== '-') && values.every((cell) => NUMERIC.test(cell))
  })
}

/** The table in HTML; columns of text are left-aligned (class "text"), numbers right-aligned. */
function htmlTable (table, { bars = false } = {}) {
  const { head, rows } = table
  const numeric = numericColumns(table)
  const align = (i) => (numeric[i] ? '' : ' class="text"')
  const headRow = head.map((h, i) => `<th${align(i)}>${escapeHtml(h)}</th>`).join('') + (bars ? '<th></th>' : '')
  const body = rows.map((row) => {
    const classes = [row.failed && 'failed', row.warn && 'warn', row.study && 'study'].filter(Boolean)
    const cells = row.cells.map((cell, i) => {
      const status = row.message && i === row.cells.length - 1 ? ' class="status-failed"' : align(i)
      return `<td${status}>${escapeHtml(cell)}</td>`
    })
    if (row.message) cells.push(`<td class="message" colspan="${head.length - row.cells.length}">${escapeHtml(row.message)}</td>`)
    if (bars) cells.push(`<td class="bar"><span style="width:${(Math.min(1, Math.max(0, row.share || 0)) * 100).toFixed(2)}%"></span></td>`)
    return `<tr${classes.length ? ` class="${classes.join(' ')}"` : ''}>${cells.join('')}</tr>`
  }).join('\n')
  return `<div class="scroll"><table><thead><tr>${headRow}</tr></thead><tbody>\n${body}\n</tbody></table></div>`
}

/** The table in Markdown; a failed row's reason follows its status, in the status cell. */
function markdownTable (table) {
  const { head, rows } = table
  const line = (cells) => `| ${cells.map(escapeMarkdown).join(' | ')} |`
  const rule = `|${numericColumns(table).map((numeric) => (numeric ? '---:' : '---')).join('|')}|`
  return [line(head), rule, ...rows.map((row) => {
    const cells = row.message ? [...row.cells.slice(0, -1), `${row.cells[row.cells.length - 1]}: ${row.message}`] : row.cells
    const padded = [...cells, ...Array(Math.max(0, head.length - cells.length)).fill('')]
    return line(padded)
  })].join('\n') + '\n'
}

/** The table as plain columns for a terminal or a log: the head, a rule, a line per row. */
function textTable (table) {
  const { head, rows } = table
  const numeric = numericColumns(table)
  const lines = rows.map((row) => (row.message ? [...row.cells.slice(0, -1), `${row.cells[row.cells.length - 1]}: ${row.message}`] : row.cells))
  const widths = head.map((text, i) => Math.max(text.length, ...lines.map((cells) => (cells[i] ?? '').length)))
  const line = (cells) => head.map((_, i) => (numeric[i] ? (cells[i] ?? '').padStart(widths[i]) : (cells[i] ?? '').padEnd(widths[i])))
    .join('  ').trimEnd()
  return [line(head), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(line)].join('\n') + '\n'
}

// No rule between body rows, no colours: one line per row, the same in a terminal and in a CI log.
const COMPACT = Object.freeze({ mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' })

/** The table's `columns` (names of its head) boxed for a terminal; a failed row's reason across its figures. */
function boxTable (table, columns = table.head) {
  const indexes = columns.map((name) => table.head.indexOf(name))
  const box = new Table({ head: [...columns], chars: { ...COMPACT }, style: { head: [], border: [] } })
  for (const row of table.rows) {
    if (row.message) {
      const figures = row.cells.length - 1
      box.push([...row.cells.slice(0, figures), { content: `${row.cells[figures]}: ${row.message}`, colSpan: columns.length - figures }])
    } else {
      box.push(indexes.map((i) => row.cells[i]))
    }
  }
  return box.toString() + '\n'
}

module.exports = { numericColumns, htmlTable, markdownTable, textTable, boxTable }
