'use strict'

const { JaegerClient } = require('./jaeger-client')
const { breakdownFromSpans } = require('./spans-to-breakdown')
const { fanOutFromSpans } = require('./fan-out')
const { NodebenchError, codes } = require('./errors')

const UNITS = Object.freeze({ ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 })

/**
 * `--since`: a duration back from now (`90s`, `10m`, `2h`, `1d`) or an ISO 8601 time. Returns a Date.
 * Throws NB_ERR_SINCE for anything else.
 */
function parseSince (text, now = new Date()) {
  const duration = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(String(text).trim())
  if (duration !== null) return new Date(now.getTime() - Number(duration[1]) * UNITS[duration[2]])
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(String(text).trim())) {
    const time = new Date(text)
    if (!Number.isNaN(time.getTime())) return time
  }
  throw new NodebenchError(codes.NB_ERR_SINCE,
    `--since "${text}" is neither a duration nor a time; expected e.g. 90s, 10m, 2h, 1d or 2026-11-21T10:00:00Z`)
}

/**
 * The breakdown of `service` computed from the traces Jaeger holds for [since, until): the middleware's
 * snapshot shape, plus `source: 'jaeger'`, `traces` and per-operation `exemplars`; and `fanOut` (fanOutFromSpans)
 * when its requests called other processes (their spans are in the same traces), else no such key.
 */
async function breakdownFromJaeger ({ url, service, since, until = new Date(), onProgress, timeoutMs }) {
  const client = new JaegerClient({ url, timeoutMs })
  const services = await client.services()
  if (!services.includes(service)) {
    throw new NodebenchError(codes.NB_ERR_UNKNOWN_SERVICE,
      `Jaeger at ${client.url} has no spans of service "${service}"; it has ${services.length === 0 ? 'none yet' : services.map((s) => `"${s}"`).join(', ')}`)
  }
  const spans = await client.findAllSpans({ service, start: since, end: until, onProgress })
  if (spans.length === 0) {
    throw new NodebenchError(codes.NB_ERR_NO_TRACES,
      `Jaeger at ${client.url} has no traces of "${service}" between ${since.toISOString()} and ${until.toISOString()}; widen --since`)
  }
  const snapshot = breakdownFromSpans(spans, { service })
  const fanOut = fanOutFromSpans(spans, { service })
  if (fanOut.operations.length > 0) snapshot.fanOut = fanOut
  snapshot.window = { since: since.toISOString(), until: until.toISOString() }
  return snapshot
}

/**
 * The snapshot an app serves at its expose path (`nodebenchTrace({ expose })`), checked to be one. `headers`
 * go with the request (for an app whose access rule asks for a token).
 */
async function breakdownFromApp ({ url, headers = {}, timeoutMs = 10_000 }) {
  let parsed
  try {
    parsed = new URL(url)
  } catch {
    throw new NodebenchError(codes.NB_ERR_APP_URL, `--url "${url}" is not a URL; expected the app's breakdown, e.g. http://127.0.0.1:3000/__nodebench`)
  }
  let response
  try {
    response = await fetch(parsed, { headers: { ...headers, accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
  } catch (err) {
    const reason = err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err.cause && (err.cause.code || err.cause.message)) || err.message
    throw new NodebenchError(codes.NB_ERR_APP_UNREACHABLE, `the app is not reachable at ${parsed.href} (${reason})`)
  }
  const text = await response.text()
  let snapshot = null
  try {
    snapshot = JSON.parse(text)
  } catch {}
  if (response.status === 403) {
    const reason = snapshot !== null && typeof snapshot.error === 'string' ? snapshot.error : text.slice(0, 300)
    throw new NodebenchError(codes.NB_ERR_APP_RESPONSE,
      `${parsed.href} refused the request (403): ${reason}. Its nodebenchTrace({ access }) rule decides who may read it; send what it asks for with --header`)
  }
  if (!response.ok || snapshot === null || snapshot.schema !== 1 || !Array.isArray(snapshot.operations)) {
    throw new NodebenchError(codes.NB_ERR_APP_RESPONSE,
      `${parsed.href} answered ${response.status} without a breakdown snapshot (schema 1); is the app traced with nodebenchTrace({ expose: '${parsed.pathname}' })?`)
  }
  snapshot.source = 'app'
  return snapshot
}

module.exports = { parseSince, breakdownFromJaeger, breakdownFromApp }
