'use strict'

const { JaegerClient } = require('./jaeger-client')
const { NodebenchError, codes } = require('./errors')

// One request's trace as a waterfall: every span a row at its start and length on the trace's time axis, in
// tree order (a parent, then its children by start), with its kind, its attributes and the process that
// recorded it. A trace that crossed processes (an app calling another, each exporting its spans) keeps each
// process's part: the processes are listed with their extent, and every row names its process. The renderers
// (the CLI's report page and `report --trace`) draw this; nothing here knows HTML or a terminal.

const SPAN_KINDS = Object.freeze(['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'])
const STATUS_ERROR = 2

/** A process of a trace: its service and what its resource says of it (instance id, pid, host). */
function processOf (span) {
  const resource = span.resource || {}
  const service = span.service ?? resource['service.name'] ?? 'unknown'
  const instance = resource['service.instance.id'] ?? null
  const pid = typeof resource['process.pid'] === 'number' ? resource['process.pid'] : null
  const host = resource['host.name'] ?? null
  return { key: `${service}\u0000${instance ?? ''}\u0000${pid ?? ''}\u0000${host ?? ''}`, service, instance, pid, host }
}

/** What a span is, for colour and legend: nodebench's kind (request, middleware, handler, ...), else its OTel kind. */
function kindOf (span) {
  const kind = span.attributes['nodebench.kind']
  if (typeof kind === 'string') return kind
  return SPAN_KINDS[span.kind] ?? 'span'
}

/**
 * `spans` (flattenSpans', of one trace) as `{ traceId, durationMs, startTime, processes, rows }`:
 * `processes`: `[{ service, instance, pid, host, startMs, durationMs, spans }]` in the order they start;
 * `rows`: `[{ spanId, parentSpanId, depth, name, kind, process, startMs, durationMs, attributes, error, orphan }]`,
 * `startMs` from the trace's first start, `process` an index into `processes`, `orphan` when its parent is not in
 * the trace (a span of a process whose parent's spans were not exported).
 */
function traceWaterfall (spans) {
  if (spans.length === 0) throw new TypeError('traceWaterfall: a trace has at least one span')
  const traceStart = spans.reduce((min, span) => (span.startNs < min ? span.startNs : min), spans[0].startNs)
  const traceEnd = spans.reduce((max, span) => (span.endNs > max ? span.endNs : max), spans[0].endNs)
  const ms = (ns) => Number(ns) / 1e6
  const processes = []
  const processIndex = new Map()
  const byStart = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
  for (const span of byStart) {
    const process = processOf(span)
    if (!processIndex.has(process.key)) {
      processIndex.set(process.key, processes.length)
      processes.push({ ...process, startNs: span.startNs, endNs: span.endNs, spans: 0 })
    }
    const entry = processes[processIndex.get(process.key)]
    entry.spans++
    if (span.endNs > entry.endNs) entry.endNs = span.endNs
  }
  const ids = new Set(spans.map((span) => span.spanId))
  const children = new Map()
  const roots = []
  for (const span of byStart) {
    if (span.parentSpanId && ids.has(span.parentSpanId)) {
      if (!children.has(span.parentSpanId)) children.set(span.parentSpanId, [])
      children.get(span.parentSpanId).push(span)
    } else {
      roots.push(span)
    }
  }
  const rows = []
  const visit = (span, depth) => {
    rows.push({
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      depth,
      name: span.name,
      kind: kindOf(span),
      process: processIndex.get(processOf(span).key),
      startMs: ms(span.startNs - traceStart),
      durationMs: ms(span.endNs - span.startNs),
      attributes: span.attributes,
      error: (span.status && span.status.code === STATUS_ERROR) ? (span.status.message || 'error') : null,
      orphan: Boolean(span.parentSpanId) && !ids.has(span.parentSpanId)
    })
    for (const child of children.get(span.spanId) || []) visit(child, depth + 1)
  }
  for (const root of roots) visit(root, 0)
  return {
    traceId: spans[0].traceId,
    startTime: new Date(Number(traceStart / 1_000_000n)).toISOString(),
    durationMs: ms(traceEnd - traceStart),
    processes: processes.map(({ key, startNs, endNs, ...process }) => ({
      ...process, startMs: ms(startNs - traceStart), durationMs: ms(endNs - startNs)
    })),
    rows
  }
}

/** The waterfall of trace `traceId` as Jaeger at `url` holds it; NB_ERR_UNKNOWN_TRACE when it has none. */
async function readTrace ({ url, traceId, timeoutMs }) {
  if (!/^[0-9a-f]{32}$/i.test(traceId)) {
    throw new NodebenchError(codes.NB_ERR_USAGE, `--trace '${traceId}' is not a trace id; expected 32 hexadecimal digits, as report's links end`)
  }
  const client = new JaegerClient({ url, timeoutMs })
  const spans = await client.traceSpans(traceId.toLowerCase())
  if (spans.length === 0) {
    throw new NodebenchError(codes.NB_ERR_UNKNOWN_TRACE,
      `Jaeger at ${client.url} has no trace ${traceId}: an in-memory Jaeger forgets traces when it restarts or holds too many; read a fresh id from \`nodebench report --source jaeger\``)
  }
  return traceWaterfall(spans)
}

module.exports = { traceWaterfall, readTrace }
