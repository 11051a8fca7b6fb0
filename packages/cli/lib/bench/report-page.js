'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const tables = require('./report-tables')

// What every report nodebench writes shares (the bench report, the browser report, in HTML and Markdown): the
// page's style, its tables and its sections. Every string is escaped here.

const STYLE = `
:root{--fail:#b3261e;--warn:#8a5a00;--muted:#5f6368;--line:#e2e2e2}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#202124;background:#fafafa;line-height:1.45}
main{max-width:1280px;margin:0 auto;padding:1.5rem 2rem 3rem}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
h3{font-size:1.05rem;margin-top:1.6rem}
.headline{color:var(--muted);margin:.2rem 0 1rem}
nav{font-size:.9rem;margin-bottom:1rem}nav a{margin-right:.9rem;color:#1a5fb4}
ul.findings li{margin:.35rem 0}
ul.notes{padding-left:1.2rem}ul.notes li{margin:.3rem 0}
li.failed,tr.failed td{color:var(--fail)}li.failed strong,td.status-failed{font-weight:700;color:var(--fail)}
tr.warn td{background:#fff6e0}
.study{color:var(--muted)}
.charts{display:flex;flex-wrap:wrap;gap:1rem}
figure.chart{margin:0;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.5rem;max-width:100%;overflow-x:auto}
figure.chart svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted);max-width:460px;margin-top:.3rem}
.left-out{color:var(--fail)}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;background:#fff;font-size:.88rem}
th,td{padding:.25rem .55rem;border-bottom:1px solid var(--line);text-align:right;font-variant-numeric:tabular-nums;vertical-align:top}
th{background:#f1f3f4}
td{white-space:nowrap}
td.text,th.text{text-align:left}
td.text,td.message{white-space:normal}
td.message,td.status-failed{text-align:left}
tr.study td{color:var(--muted);border-bottom:2px solid var(--line)}
td.bar{width:10rem}td.bar span{display:block;height:.75rem;background:#4c78a8}
.scroll{overflow-x:auto}
`

/** A table from report-tables; columns of text are left-aligned, numbers right-aligned. */
function htmlTable (table, { bars = false } = {}) {
  const { head, rows } = table
  const numeric = tables.numericColumns(table)
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

/** The same table in Markdown; a failed row's reason follows its status, in the status cell. */
function markdownTable (table) {
  const { head, rows } = table
  const line = (cells) => `| ${cells.map(escapeMarkdown).join(' | ')} |`
  const rule = `|${tables.numericColumns(table).map((numeric) => (numeric ? '---:' : '---')).join('|')}|`
  return [line(head), rule, ...rows.map((row) => {
    const cells = row.message ? [...row.cells.slice(0, -1), `${row.cells[row.cells.length - 1]}: ${row.message}`] : row.cells
    const padded = [...cells, ...Array(Math.max(0, head.length - cells.length)).fill('')]
    return line(padded)
  })].join('\n') + '\n'
}

function section (id, title, body) {
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`
}

module.exports = { STYLE, htmlTable, markdownTable, section }
