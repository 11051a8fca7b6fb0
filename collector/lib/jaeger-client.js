'use strict'

const { NodebenchError, codes } = require('./errors')

// Jaeger's query API v3 (`/api/v3/...`, Jaeger 2.x): OTLP-JSON traces over HTTP.
//   GET /api/v3/services                       -> { services: [...] }
//   GET /api/v3/traces?query.service_name=...  -> { result: { resourceSpans: [...] } }, 404 when none match
//   GET /api/v3/traces/{traceId}               -> the same, for one trace

const DEFAULT_TIMEOUT_MS = 10_000

class JaegerClient {
  /**
   * @param {object} options
   * @param {string} options.url the query service, e.g. http://127.0.0.1:16686
   * @param {number} [options.timeoutMs] per request (default 10 s)
   */
  constructor ({ url, timeoutMs = DEFAULT_TIMEOUT_MS }) {
    let parsed
    try {
      parsed = new URL(url)
    } catch {
      throw new NodebenchError(codes.NB_ERR_JAEGER_URL, `Jaeger query URL "${url}" is not a URL; expected e.g. http://127.0.0.1:16686`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new NodebenchError(codes.NB_ERR_JAEGER_URL, `Jaeger query URL "${url}" must start with http:// or https://`)
    }
    this.url = parsed.href.replace(/\/$/, '')
    this.timeoutMs = timeoutMs
  }

  /** The services Jaeger has spans of. */
  async services () {
    const body = await this.get('/api/v3/services')
    return Array.isArray(body.services) ? body.services : []
  }

  /**
   * Spans of up to `limit` traces of `service` that started in [start, end): a flat array of spans
   * (see `flattenSpans`). An empty window is an empty array, not an error.
   */
  async findSpans ({ service, start, end, limit = 1000 }) {
    const query = new URLSearchParams({
      'query.service_name': service,
      'query.start_time_min': start.toISOString(),
      'query.start_time_max': end.toISOString(),
      'query.num_traces': String(limit)
    })
    const body = await this.get(`/api/v3/traces?${query}`, { notFound: null })
    return body === null ? [] : flattenSpans(body.result)
  }

  /**
   * Every span of `service`'s traces that started in [start, end), however many: a window whose search
   * returns `pageSize` traces may hold more, so it is split in two and each half searched again (Jaeger's
   * search has a limit, not a cursor).
   */
  async findAllSpans ({ service, start, end, pageSize = 1000, onProgress = () => {} }) {
    const spans = []
    // A trace whose spans fall on both sides of a split is returned by both halves: keep each span once.
    const seen = new Set()
    const windows = [[start.getTime(), end.getTime()]]
    while (windows.length > 0) {
      const [from, to] = windows.pop()
      const page = await this.findSpans({ service, start: new Date(from), end: new Date(to), limit: pageSize })
      const traces = new Set(page.map((span) => span.traceId)).size
      if (traces >= pageSize && to - from > 1) {
        const middle = Math.floor((from + to) / 2)
        windows.push([middle, to], [from, middle])
        continue
      }
      for (const span of page) {
        const id = span.traceId + span.spanId
        if (seen.has(id)) continue
        seen.add(id)
        spans.push(span)
      }
      onProgress({ traces, from: new Date(from), to: new Date(to) })
    }
    return spans
  }

  /**
   * Whether Jaeger's own UI answers at this URL: the jaegertracing/jaeger image serves it; a Jaeger built from the
   * Go module serves a placeholder page in its place ("This is not the Jaeger UI you are looking for"), whose
   * links would lead nowhere. Resolves to true or false, never rejects.
   */
  async hasUi () {
    try {
      const response = await fetch(`${this.url}/`, { signal: AbortSignal.timeout(this.timeoutMs) })
      const page = await response.text()
      return response.ok && page.includes('jaeger-ui-root') && !page.includes('not the Jaeger UI you are looking for')
    } catch {
      return false
    }
  }

  /** One trace's spans; an empty array when Jaeger does not have it. */
  async traceSpans (traceId) {
    const body = await this.get(`/api/v3/traces/${encodeURIComponent(traceId)}`, { notFound: null })
    return body === null ? [] : flattenSpans(body.result)
  }

  async get (path, { notFound } = {}) {
    let response
    try {
      response = await fetch(this.url + path, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json' } })
    } catch (err) {
      const reason = err.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (err.cause && (err.cause.code || err.cause.message)) || err.message
      throw new NodebenchError(codes.NB_ERR_JAEGER_UNREACHABLE,
        `Jaeger is not reachable at ${this.url} (${reason}); start it with \`nodebench services start jaeger\` or pass --jaeger <query-url>`)
    }
    const text = await response.text()
    if (response.status === 404 && notFound !== undefined) return notFound
    if (!response.ok) {
      throw new NodebenchError(codes.NB_ERR_JAEGER_RESPONSE, `Jaeger answered ${response.status} to GET ${path}: ${errorMessage(text)}`)
    }
    try {
      return JSON.parse(text)
    } catch {
      throw new NodebenchError(codes.NB_ERR_JAEGER_RESPONSE, `Jaeger's answer to GET ${path} is not JSON: ${text.slice(0, 200)}`)
    }
  }
}

function errorMessage (text) {
  try {
    const body = JSON.parse(text)
    return (body.error && body.error.message) || text.slice(0, 200)
  } catch {
    return text.slice(0, 200)
  }
}

/**
 * OTLP-JSON `{ resourceSpans: [{ resource, scopeSpans: [{ scope, spans }] }] }` -> flat spans:
 * `{ traceId, spanId, parentSpanId, name, kind, service, instance, resource, scope, startNs, endNs, attributes,
 * status }` with times as BigInt nanoseconds and attributes (the span's, its resource's) as plain objects.
 */
function flattenSpans (result) {
  const spans = []
  if (!result || !Array.isArray(result.resourceSpans)) return spans
  for (const resourceSpans of result.resourceSpans) {
    const resource = attributesOf(resourceSpans.resource && resourceSpans.resource.attributes)
    for (const scopeSpans of resourceSpans.scopeSpans || []) {
      const scope = scopeSpans.scope ? scopeSpans.scope.name : undefined
      for (const span of scopeSpans.spans || []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || null,
          name: span.name,
          kind: span.kind,
          service: resource['service.name'],
          instance: resource['service.instance.id'],
          resource,
          scope,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          status: span.status || {}
        })
      }
    }
  }
  return spans
}

/** OTLP `[{ key, value: { stringValue | intValue | ... } }]` -> `{ key: value }`. */
function attributesOf (list) {
  const attributes = {}
  for (const { key, value } of list || []) attributes[key] = valueOf(value)
  return attributes
}

function valueOf (value) {
  if (value === undefined || value === null) return undefined
  if ('stringValue' in value) return value.stringValue
  if ('intValue' in value) return Number(value.intValue)
  if ('doubleValue' in value) return Number(value.doubleValue)
  if ('boolValue' in value) return value.boolValue
  if ('arrayValue' in value) return (value.arrayValue.values || []).map(valueOf)
  return undefined
}

module.exports = { JaegerClient, flattenSpans }
