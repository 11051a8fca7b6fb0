'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')
const { round, mean } = require('./statistics')

// What one load repetition measured, for every command that runs a cell of a workload the same way (bench's
// matrix, compare's paired runs): its figures from autocannon's result, a cell's figures over its repetitions,
// the probe of a cell's paths before its load, and each operation's breakdown within one repetition.
//
// A repetition's breakdown is the difference of two reads of the cell's breakdown, one after the repetition
// and one before it (the cell's window starts empty): counts and totals subtract exactly, so the cell's
// breakdown (histograms and all) stays one window read at its end, and no reset falls between repetitions.

const PERCENTILES = Object.freeze(['p50', 'p75', 'p90', 'p97_5', 'p99'])

// Distinct paths of a scenario probed before its load (a list of paths rotates; the first ones are checked).
const PROBED_PATHS = 10

/** One repetition's figures from autocannon's result (kernel/load.js runAutocannon). */
function repetitionFigures (result, sent, bytesPerResponse) {
  const statusCodes = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) statusCodes[code] = count
  const answered = Object.values(statusCodes).reduce((sum, count) => sum + count, 0)
  const latencyMs = { mean: round(result.latency.mean) }
  for (const p of PERCENTILES) latencyMs[p] = round(result.latency[p])
  latencyMs.max = round(result.latency.max)
  return {
    // Completed requests over the run's time, as Apache Bench computes it (autocannon's per-second
    // average is coarse for runs of a few seconds).
    requestsPerSec: result.elapsedSec > 0 ? round(answered / result.elapsedSec) : 0,
    latencyMs,
    requests: answered,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    unexpectedStatus: answered - (statusCodes[sent.status] || 0),
    statusCodes,
    bytesPerResponse,
    durationSec: round(result.elapsedSec)
  }
}

/** A cell's figures: means (and spread of throughput) over its repetitions, sums of what went wrong. */
function cellFigures (reps) {
  const average = (values) => round(mean(values))
  const throughput = reps.map((r) => r.requestsPerSec)
  const latencyMs = {}
  for (const key of ['mean', ...PERCENTILES, 'max']) latencyMs[key] = average(reps.map((r) => r.latencyMs[key]))
  const statusCodes = {}
  for (const rep of reps) {
    for (const [code, count] of Object.entries(rep.statusCodes)) statusCodes[code] = (statusCodes[code] || 0) + count
  }
  const sum = (key) => reps.reduce((total, r) => total + r[key], 0)
  return {
    requestsPerSec: { mean: average(throughput), min: Math.min(...throughput), max: Math.max(...throughput) },
    latencyMs,
    requests: sum('requests'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    unexpectedStatus: sum('unexpectedStatus'),
    statusCodes,
    bytesPerResponse: reps[0].bytesPerResponse
  }
}

/** One request as autocannon sends it: its status and body length (Apache Bench's "document length"). */
async function probe (base, request) {
  const response = await fetch(base + request.path, {
    method: request.method, headers: request.headers, body: request.body, redirect: 'manual'
  })
  const body = Buffer.from(await response.arrayBuffer())
  return { status: response.status, bytes: body.length, body }
}

/**
 * Sends each distinct path of a cell once and checks the status: a path that answers otherwise is the
 * workload's mistake (or the app's), named by scenario, format and field. Returns the first answer's size.
 */
async function probeCell (base, sent, { scenario, format }) {
  let first = null
  const seen = new Set()
  for (const request of sent.requests) {
    if (seen.has(request.path) || seen.size >= PROBED_PATHS) continue
    seen.add(request.path)
    const answer = await probe(base, request)
    if (answer.status !== sent.status) {
      throw new NodebenchError(codes.NB_ERR_WORKLOAD_PROBE, `scenario '${scenario}' (${format}): ${sent.where}.path ` +
        `${request.method} ${request.path} answered ${answer.status}, expected ${sent.status} (${sent.where}.status): ` +
        JSON.stringify(answer.body.toString('utf8', 0, 200)))
    }
    if (first === null) first = answer
  }
  return first
}

const operationKey = ({ method, route, format }) => `${method} ${route} ${format}`
const segmentKey = ({ name, kind, order }) => `${order} ${kind} ${name}`

/**
 * Each operation's figures within one repetition: `after` (a breakdown snapshot read after it) less `before`
 * (the one read before it; null at the cell's start, whose window starts empty). `[{ method, route, format,
 * count, responseTimeMs: { mean, total }, segments: [{ name, kind, order, count, meanMs, totalMs, share }] }]`,
 * operations that served no request in the repetition left out. A segment's share is its time over the
 * operation's response time, as in the breakdown.
 */
function repetitionOperations (after, before = null) {
  const earlier = new Map((before?.operations ?? []).map((operation) => [operationKey(operation), operation]))
  const operations = []
  for (const operation of after.operations ?? []) {
    const previous = earlier.get(operationKey(operation))
    const count = operation.count - (previous?.count ?? 0)
    if (count <= 0) continue
    const totalMs = operation.responseTimeMs.total - (previous?.responseTimeMs.total ?? 0)
    const previousSegments = new Map((previous?.segments ?? []).map((segment) => [segmentKey(segment), segment]))
    const segments = []
    for (const segment of operation.segments) {
      const earlierSegment = previousSegments.get(segmentKey(segment))
      const segmentCount = segment.count - (earlierSegment?.count ?? 0)
      const segmentMs = segment.totalMs - (earlierSegment?.totalMs ?? 0)
      if (segmentCount <= 0) continue
      segments.push({
        name: segment.name,
        kind: segment.kind,
        order: segment.order,
        count: segmentCount,
        // The mean over the requests that ran it (as the breakdown's meanMs).
        meanMs: round(Math.max(0, segmentMs) / segmentCount, 4),
        totalMs: round(Math.max(0, segmentMs)),
        share: totalMs > 0 ? round(Math.max(0, segmentMs) / totalMs, 6) : 0
      })
    }
    operations.push({
      method: operation.method,
      route: operation.route,
      format: operation.format,
      count,
      responseTimeMs: { mean: round(totalMs / count, 4), total: round(totalMs) },
      segments
    })
  }
  return operations
}

module.exports = { PERCENTILES, repetitionFigures, cellFigures, probeCell, repetitionOperations }
