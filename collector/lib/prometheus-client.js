'use strict'

const { NodebenchError, codes } = require('./errors')

// Prometheus's HTTP API (v1), which Mimir, Thanos, VictoriaMetrics and the vendors' Prometheus-compatible
// endpoints answer too:
//   GET /api/v1/query?query=...&time=...          -> { status: 'success', data: { resultType, result } }
//   GET /api/v1/label/<name>/values?match[]=...   -> { status: 'success', data: [...] }
// Anything else (an HTML page, another service's JSON) is not that API, and is said so.

const DEFAULT_TIMEOUT_MS = 30_000

class PrometheusClient {
  /**
   * @param {object} options
   * @param {string} options.url Prometheus's base URL, e.g. http://127.0.0.1:9090 (or a compatible API's)
   * @param {number} [options.timeoutMs] per request (default 30 s)
   */
  constructor ({ url, timeoutMs = DEFAULT_TIMEOUT_MS }) {
    let parsed
    try {
      parsed = new URL(url)
    } catch {
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_URL, `Prometheus URL "${url}" is not a URL; expected e.g. http://127.0.0.1:9090`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_URL, `Prometheus URL "${url}" must start with http:// or https://`)
    }
    this.url = parsed.href.replace(/\/$/, '')
    this.timeoutMs = timeoutMs
  }

  /** An instant query evaluated at `time` (a Date): `{ resultType, result }`. */
  query (expression, time) {
    return this.get('/api/v1/query', { query: expression, time: String(time.getTime() / 1000) })
  }

  /** The values label `name` takes in series matching `match` (a selector) between `start` and `end`. */
  labelValues (name, { match, start, end }) {
    const params = { 'match[]': match }
    if (start) params.start = String(start.getTime() / 1000)
    if (end) params.end = String(end.getTime() / 1000)
    return this.get(`/api/v1/label/${encodeURIComponent(name)}/values`, params)
  }

  async get (path, params) {
    const url = `${this.url}${path}?${new URLSearchParams(params)}`
    let response
    try {
      response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.timeoutMs) })
    } catch (err) {
      const reason = err.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (err.cause && (err.cause.code || err.cause.message)) || err.message
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_UNREACHABLE,
        `Prometheus is not reachable at ${this.url} (${reason}); start one with \`nodebench services start prometheus\`, or give its URL with --prometheus`)
    }
    const text = await response.text()
    let body = null
    try {
      body = JSON.parse(text)
    } catch {}
    if (body === null || typeof body !== 'object' || (body.status !== 'success' && body.status !== 'error')) {
      const type = (response.headers.get('content-type') || 'no content type').split(';')[0]
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_RESPONSE,
        `${this.url} answered ${path} with ${response.status} (${type}), not as Prometheus's HTTP API does; ` +
        'expected the base URL of a Prometheus (or a compatible API: Mimir, Thanos, VictoriaMetrics), e.g. http://127.0.0.1:9090')
    }
    if (body.status === 'error') {
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_RESPONSE,
        `Prometheus at ${this.url} refused ${path} (${response.status}, ${body.errorType}): ${body.error}`)
    }
    return body.data
  }
}

module.exports = { PrometheusClient }
