'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')
const { round, mean } = require('./statistics')
const { unexpectedText } = require('./request-flow')

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
    // Each answer checked against its own request's status (request-flow.js); the first that was not, as words.
    unexpectedStatus: result.answers ? result.answers.unexpected : answered - (statusCodes[sent.status] || 0),
    firstUnexpected: result.answers?.first ? unexpectedText(result.answers.first) : null,
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
    firstUnexpected: reps.find((r) => r.firstUnexpected)?.firstUnexpected ?? null,
    statusCodes,
    bytesPerResponse: reps[0].bytesPerResponse
  }
}

/**
 * Sends each distinct request of a cell once, as autocannon would (its first connection's session prepared),
 * and checks each answer: a request that answers otherwise is the workload's mistake (or the app's), named by
 * scenario, format and field. The first requests of a cell, before its warm-up. Returns the first answer
 * `{ status, bytes, body }`.
 */
async function probeCell (base, sent) {
  return sent.flow.probe(base, PROBED_PATHS)
}

/**
 * Throws NB_ERR_WORKLOAD_PROBE when a warm-up (`result`, runAutocannon's) had an answer its request did not
 * expect: the workload's requests (a POST sent again the same) or the app, named by the request that failed.
 */
function checkWarmup (result, sent) {
  const answers = result.answers
  if (!answers || answers.unexpected === 0) return
  const again = !sent.flow.dynamic
    ? '; the probe before it answered as expected: an app may refuse a request sent again the same (a unique email), give each its own values ' +
      '({$seq}, {$uuid} or setupRequest: docs/workloads.md)'
    : ''
  throw new NodebenchError(codes.NB_ERR_WORKLOAD_PROBE, `${sent.flow.label()}: ${unexpectedText(answers.first, answers.answered)}` +
    `${answers.unexpected > 1 ? ` (${answers.unexpected} of ${answers.answered} answers not as expected)` : ''}${again}`)
}

/**
 * Takes the answers a scenario expects out of its operation's errors in `breakdown` (changed in place): the app
 * counts a request as an error when a layer passed one on (a validation's next(err)) or it answered 5xx, and a
 * scenario that benches that path on purpose (`status: 400`) expects exactly those. The operation keeps how many
 * it took out, `expectedErrors`; its `errors` are the rest. Nothing changes for a 1xx-3xx expected status.
 */
function takeExpectedErrors (breakdown, operation, expectedStatus, statusCodes) {
  if (breakdown === null || operation === null || expectedStatus < 400) return
  const measured = (breakdown.operations ?? []).find((o) => operationKey(o) === operationKey(operation))
  if (measured === undefined || typeof measured.errors !== 'number') return
  const expectedErrors = Math.min(measured.errors, statusCodes?.[expectedStatus] ?? 0)
  measured.errors -= expectedErrors
  measured.expectedErrors = expectedErrors
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

module.exports = {
  PERCENTILES, repetitionFigures, cellFigures, probeCell, checkWarmup, takeExpectedErrors, repetitionOperations
}
