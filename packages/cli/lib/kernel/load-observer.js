'use strict'

const hdr = require('hdr-histogram-js')
const { PROXY_ERROR_MARK } = require('@nodebench/services')

// What a load run's answers and failures were, beyond autocannon's totals: every failure by its class, and,
// with `timeline`, each second of the run (requests answered, failures by class, latency percentiles), which
// the elasticity runs (instances added or killed mid-run) are read from.
//
// Classes: `connection refused`, `connection reset`, `timeout` (no answer within the request timeout), other
// socket errors by code; `5xx from nginx` (an error page nginx wrote itself, told by the mark nodebench's
// nginx configuration puts in it: no instance answered), `5xx from the app`; and `unexpected status` (any other
// status than the workload's, e.g. a 404).

const SOCKET_ERRORS = Object.freeze({
  ECONNREFUSED: 'connection refused', ECONNRESET: 'connection reset', EPIPE: 'connection reset'
})

/** The class of an error autocannon reports for a request that got no answer. */
function classifyError (err) {
  if (err && err.message === 'request timed out') return 'timeout'
  return SOCKET_ERRORS[err && err.code] ?? `other error (${(err && (err.code || err.message)) || 'unknown'})`
}

// The percentiles Apache Bench prints ("Percentage of the requests served within a certain time"), which the
// studies that measured with it report (Paliwal: "98% within 3,030 ms"); 100 is the longest request.
const AB_PERCENTILES = Object.freeze([50, 66, 75, 80, 90, 95, 98, 99, 100])

// Microseconds, 1 µs to 10 minutes, 2 significant digits.
const LATENCY_HISTOGRAM = Object.freeze({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 600_000_000,
  numberOfSignificantValueDigits: 2,
  useWebAssembly: false
})

class LoadObserver {
  /**
   * @param {object} options
   * @param {number} options.expectedStatus what a correct answer has
   * @param {boolean} [options.proxied] the load goes through nodebench's nginx: tell its own 5xx pages
   * @param {boolean} [options.timeline] keep per-second figures
   */
  constructor ({ expectedStatus, proxied = false, timeline = false }) {
    this.expectedStatus = expectedStatus
    this.proxied = proxied
    this.keepTimeline = timeline
    this.failures = {}
    this.seconds = []
    // With the timeline: when each connection reset came, in seconds from the start (a reload's can be told).
    this.resetsAtSec = []
    this.startedAt = null
    // Every answer's latency over the whole run (Apache Bench's percentiles: latencyPercentiles).
    this.latency = hdr.build(LATENCY_HISTOGRAM)
    // Set by the body's look just before autocannon reports the same response, with the status its request expects
    // (each request of a list has its own).
    this.fromNginx = false
    this.expectedNow = null
  }

  /**
   * An answer about to be reported (request-flow.js calls it from a request's onResponse, which autocannon calls
   * right before it emits 'response' for the same answer): the status its request expects, and a look at the
   * body of 5xx answers when they pass nginx.
   */
  answerSeen (status, body, expectedStatus) {
    this.expectedNow = expectedStatus
    if (this.proxied) this.fromNginx = status >= 500 && typeof body === 'string' && body.includes(PROXY_ERROR_MARK)
  }

  /** Listens to an autocannon instance started at `startedAt` (performance.now()). */
  attach (instance, startedAt) {
    this.startedAt = startedAt
    instance.on('response', (client, statusCode, bytes, responseTimeMs) => this.response(statusCode, responseTimeMs))
    instance.on('reqError', (err) => this.failure(classifyError(err)))
  }

  second () {
    const index = Math.floor((performance.now() - this.startedAt) / 1000)
    let second = this.seconds[index]
    if (second === undefined) {
      for (let i = this.seconds.length; i <= index; i++) {
        this.seconds[i] = { requests: 0, ok: 0, failures: {}, latency: null }
      }
      second = this.seconds[index]
    }
    return second
  }

  response (statusCode, responseTimeMs) {
    const fromNginx = this.fromNginx
    const expected = this.expectedNow ?? this.expectedStatus
    this.fromNginx = false
    this.expectedNow = null
    let kind = null
    if (statusCode === expected) kind = null
    else if (statusCode >= 500) kind = fromNginx ? '5xx from nginx' : '5xx from the app'
    else kind = 'unexpected status'
    if (kind !== null) this.count(this.failures, kind)
    this.latency.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)))
    if (!this.keepTimeline) return
    const second = this.second()
    second.requests++
    if (kind === null) second.ok++
    else this.count(second.failures, kind)
    second.latency ??= hdr.build(LATENCY_HISTOGRAM)
    second.latency.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)))
  }

  failure (kind) {
    this.count(this.failures, kind)
    if (!this.keepTimeline) return
    this.count(this.second().failures, kind)
    if (kind === 'connection reset') this.resetsAtSec.push((performance.now() - this.startedAt) / 1000)
  }

  count (counts, kind) {
    counts[kind] = (counts[kind] || 0) + 1
  }

  /** `{ failures: { class: count }, failed, timeline? }`; the timeline's last second is cut short by the run's end. */
  summary () {
    const failures = { ...this.failures }
    const result = { failures, failed: Object.values(failures).reduce((sum, n) => sum + n, 0) }
    if (this.keepTimeline) {
      result.timeline = this.seconds.map(secondSummary)
      result.resetsAtSec = this.resetsAtSec
    }
    return result
  }
}

function percentileMs (histogram, percentile) {
  return histogram.getValueAtPercentile(percentile) / 1000
}

/**
 * Apache Bench's table of `observers`' answers taken together (a cell's repetitions): `{ 50: ms, 66: ms, ...,
 * 100: ms }`, the longest at 100; null when none was answered.
 */
function latencyPercentiles (observers) {
  const all = hdr.build(LATENCY_HISTOGRAM)
  for (const observer of observers) all.add(observer.latency)
  if (all.totalCount === 0) return null
  const table = {}
  for (const percentile of AB_PERCENTILES) {
    table[percentile] = (percentile === 100 ? all.maxValue : all.getValueAtPercentile(percentile)) / 1000
  }
  return table
}

function secondSummary (second, index) {
  const latency = second.latency
  return {
    second: index,
    requests: second.requests,
    ok: second.ok,
    failures: second.failures,
    latencyMs: latency === null
      ? null
      : { p50: percentileMs(latency, 50), p99: percentileMs(latency, 99), max: latency.maxValue / 1000 }
  }
}

module.exports = { LoadObserver, classifyError, latencyPercentiles, AB_PERCENTILES }
