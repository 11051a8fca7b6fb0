'use strict'

const { escapeHtml } = require('@nodebench/breakdown')
const { formatMs } = require('./format')

// One request's trace drawn as a waterfall (@nodebench/collector's traceWaterfall): a row per span, its bar at
// its start and length on the trace's time axis, coloured by kind, indented under its parent; in HTML each row
// opens onto the span's attributes (<details>, no script), in a terminal the bars are drawn with block
// characters. A trace that crossed processes names each row's process and draws each process's extent first.

// The same colour for a kind on every page: nodebench's kinds, then OpenTelemetry's span kinds.
const KIND_COLORS = Object.freeze({
  request: '#4c78a8',
  router: '#9ecae9',
  route: '#9ecae9',
  middleware: '#f58518',
  param: '#e45756',
  handler: '#54a24b',
  'error-handler': '#b279a2',
  guard: '#72b7b2',
  interceptor: '#eeca3b',
  pipe: '#ff9da6',
  response: '#9d755d',
  filter: '#bab0ac',
  server: '#4c78a8',
  client: '#17becf',
  internal: '#bcbd22',
  producer: '#8c564b',
  consumer: '#7f7f7f'
})
const OTHER_COLOR = '#999999'

const STYLE = `
.waterfall{margin:1rem 0 2rem}
.wf-meta{color:var(--muted,#5f6368);margin:.2rem 0 .6rem}
.wf-legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.82rem;margin:.3rem 0 .6rem}
.wf-legend span::before{content:"";display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem;background:var(--c)}
.wf{background:#fff;border:1px solid var(--line,#e2e2e2);border-radius:6px;font-size:.84rem}
.wf-head,.wf-row>summary{display:grid;grid-template-columns:minmax(12rem,26rem) 9rem minmax(10rem,1fr) 5.5rem;gap:.6rem;align-items:center;padding:.12rem .5rem}
.wf-head{background:#f1f3f4;font-weight:600;border-bottom:1px solid var(--line,#e2e2e2)}
.wf-row>summary{cursor:pointer;list-style:none;border-bottom:1px solid #f0f0f0}
.wf-row>summary::-webkit-details-marker{display:none}
.wf-row>summary:hover{background:#f6f8fa}
.wf-name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.wf-process{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--muted,#5f6368)}
.wf-track{position:relative;height:.9rem;background:repeating-linear-gradient(90deg,transparent 0 calc(25% - 1px),#eee calc(25% - 1px) 25%)}
.wf-bar{position:absolute;top:0;bottom:0;min-width:2px;border-radius:2px;background:var(--c)}
.wf-ms{text-align:right;font-variant-numeric:tabular-nums}
.wf-axis{display:flex;justify-content:space-between;font-variant-numeric:tabular-nums;font-weight:400;color:var(--muted,#5f6368)}
.wf-error .wf-name{color:var(--fail,#b3261e);font-weight:600}
.wf-attributes{margin:.2rem .5rem .6rem 2rem;font-size:.8rem}
.wf-attributes td{white-space:normal;text-align:left;word-break:break-all}
.wf-processes .wf-row>summary{cursor:default}
`

function colorOf (kind) {
  return KIND_COLORS[kind] ?? OTHER_COLOR
}

/** A process as one reads it: its service, and its pid or instance when the trace has several. */
function processName (process) {
  const where = process.pid !== null ? `pid ${process.pid}` : process.instance !== null ? process.instance.slice(0, 8) : null
  return where === null ? process.service : `${process.service} (${where})`
}

function percent (value, total) {
  return total > 0 ? Math.min(100, Math.max(0, (value / total) * 100)) : 0
}

function bar (startMs, durationMs, total, color) {
  return `<span class="wf-bar" style="left:${percent(startMs, total).toFixed(3)}%;width:${percent(durationMs, total).toFixed(3)}%;--c:${color}"></span>`
}

function attributeValue (value) {
  return Array.isArray(value) ? value.map(String).join(', ') : String(value)
}

function axis (total) {
  return `<span class="wf-axis">${[0, 0.25, 0.5, 0.75, 1].map((at) => `<span>${escapeHtml(formatMs(total * at))}</span>`).join('')}</span>`
}

/**
 * The waterfall of `waterfall` as an HTML section with the anchor `trace-<traceId>`, `title` its heading (<h3>).
 * Its style is `WATERFALL_STYLE` (the page adds it once).
 */
function waterfallHtml (waterfall, { title = `Trace ${waterfall.traceId}` } = {}) {
  const total = waterfall.durationMs
  const several = waterfall.processes.length > 1
  const kinds = [...new Set(waterfall.rows.map((row) => row.kind))]
  const legend = `<div class="wf-legend">${kinds.map((kind) => `<span style="--c:${colorOf(kind)}">${escapeHtml(kind)}</span>`).join('')}</div>`
  const head = `<div class="wf-head"><span>span</span><span>process</span>${axis(total)}<span class="wf-ms">ms</span></div>`
  const processes = several
    ? '<h4>Processes</h4><div class="wf wf-processes">' + head + waterfall.processes.map((process) =>
      `<details class="wf-row"><summary><span class="wf-name">${escapeHtml(processName(process))}</span>` +
      `<span class="wf-process">${escapeHtml(`${process.spans} spans`)}</span><span class="wf-track">${bar(process.startMs, process.durationMs, total, '#6b6b6b')}</span>` +
      `<span class="wf-ms">${escapeHtml(formatMs(process.durationMs))}</span></summary></details>`).join('') + '</div><h4>Spans</h4>'
    : ''
  const rows = waterfall.rows.map((row) => {
    const process = waterfall.processes[row.process]
    const attributes = Object.entries(row.attributes).filter(([, value]) => value !== undefined)
    const details = [['start', `${formatMs(row.startMs)} ms after the trace's start`], ['duration', `${formatMs(row.durationMs)} ms`],
      ['span id', row.spanId], ...(row.error === null ? [] : [['error', row.error]]),
      ...(row.orphan ? [['parent', `${row.parentSpanId} (not in this trace)`]] : []),
      ...attributes.map(([key, value]) => [key, attributeValue(value)])]
    return `<details class="wf-row${row.error === null ? '' : ' wf-error'}"><summary>` +
      `<span class="wf-name" style="padding-left:${row.depth * 0.9}rem" title="${escapeHtml(row.name)}">${escapeHtml(row.name)}</span>` +
      `<span class="wf-process" title="${escapeHtml(processName(process))}">${escapeHtml(processName(process))}</span>` +
      `<span class="wf-track">${bar(row.startMs, row.durationMs, total, colorOf(row.kind))}</span>` +
      `<span class="wf-ms">${escapeHtml(formatMs(row.durationMs))}</span></summary>` +
      `<table class="wf-attributes"><tbody>${details.map(([key, value]) => `<tr><th class="text">${escapeHtml(key)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</tbody></table></details>`
  }).join('\n')
  const meta = `${waterfall.rows.length} spans in ${waterfall.processes.length} process${several ? 'es' : ''} ` +
    `(${waterfall.processes.map(processName).join(', ')}), ${formatMs(total)} ms, started ${waterfall.startTime}. ` +
    'A row opens onto its span\'s attributes.'
  return `<section class="waterfall" id="trace-${escapeHtml(waterfall.traceId)}">\n<h3>${escapeHtml(title)}</h3>\n` +
    `<p class="wf-meta">${escapeHtml(meta)}</p>\n${legend}\n${processes}<div class="wf">${head}\n${rows}\n</div>\n</section>`
}

/** The waterfall as text: offset and duration, the span tree, and a bar `width` characters wide per span. */
function waterfallText (waterfall, { width = 40 } = {}) {
  const total = waterfall.durationMs
  const several = waterfall.processes.length > 1
  const cell = (value, total) => (total > 0 ? (value / total) * width : 0)
  const barOf = (startMs, durationMs) => {
    const from = Math.min(width - 1, Math.floor(cell(startMs, total)))
    const to = Math.max(from + 1, Math.min(width, Math.round(cell(startMs + durationMs, total))))
    return `${' '.repeat(from)}${'█'.repeat(to - from)}${' '.repeat(width - to)}`
  }
  const names = waterfall.rows.map((row) => `${'  '.repeat(row.depth)}${row.name} [${row.kind}]${row.error === null ? '' : ' (error)'}` +
    (several ? ` @ ${processName(waterfall.processes[row.process])}` : ''))
  const nameWidth = Math.min(70, Math.max(4, ...names.map((name) => name.length)))
  const lines = [
    `trace ${waterfall.traceId}: ${waterfall.rows.length} spans in ${waterfall.processes.length} process${several ? 'es' : ''} ` +
      `(${waterfall.processes.map(processName).join(', ')}), ${formatMs(total)} ms, started ${waterfall.startTime}`,
    `${'start ms'.padStart(9)} ${'ms'.padStart(9)}  ${'span'.padEnd(nameWidth)}  |${'0'.padEnd(width / 2)}${`${formatMs(total)} ms`.padStart(width / 2)}|`
  ]
  for (const [i, row] of waterfall.rows.entries()) {
    const name = names[i].length > nameWidth ? `${names[i].slice(0, nameWidth - 1)}…` : names[i].padEnd(nameWidth)
    lines.push(`${formatMs(row.startMs).padStart(9)} ${formatMs(row.durationMs).padStart(9)}  ${name}  |${barOf(row.startMs, row.durationMs)}|`)
  }
  return lines.join('\n') + '\n'
}

module.exports = { waterfallHtml, waterfallText, WATERFALL_STYLE: STYLE, KIND_COLORS }
