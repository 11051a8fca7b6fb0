'use strict'

const fs = require('fs')
const net = require('net')
const path = require('path')
const { diag } = require('@opentelemetry/api')
const { reportInternalError } = require('./internal-errors')

// OTLP/HTTP export of encoded batches over kept-alive sockets of nodebench's own: a batch is one write, the
// request head made once (POST, path, Host, User-Agent, the OTEL_EXPORTER_OTLP_* headers; only
// Content-Length changes) and the body, and the answer is read as OTLPTraceExporter reads it. Node.js's HTTP
// client did the same with far more machinery per export (ClientRequest, the agent, OutgoingMessage, an
// IncomingMessage stream; ~3,000 instructions a request of the app at sampleRatio 0.1, and its stream code,
// which the app's own requests run through too, turned megamorphic: benchmarks/README.md).
//
// For what it does not do, OpenTelemetry's own OTLP/HTTP delegate, the one OTLPTraceExporter uses, takes the
// batch: an https endpoint, compression (gzip), and any batch whose export the delegate would retry (an answer
// of 429, 502, 503 or 504, a connection refused, reset or closed before the answer), which it retries with its
// back-off as it would its own.

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504])
// Failures to connect that reached no collector: nothing listens at the port, no such host, no route to it. A
// reset, a timeout or an HTTP error status comes from a collector that is there, busy or failing.
const UNREACHABLE_CODES = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/

/** Whether an export's error says it reached no collector (UNREACHABLE_CODES), in it or its causes. */
function reachedNoCollector (error) {
  for (let err = error, depth = 0; err && depth < 4; err = err.cause, depth++) {
    if (typeof err.code === 'string' && UNREACHABLE_CODES.test(err.code)) return true
    if (UNREACHABLE_CODES.test(String(err.message))) return true
    // Node.js's connection to each address of a name (autoSelectFamily): every one refused.
    if (Array.isArray(err.errors) && err.errors.length > 0 && err.errors.every(reachedNoCollector)) return true
  }
  return false
}
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024
const HEAD_END = Buffer.from('\r\n\r\n')
const USER_AGENT = `OTel-OTLP-Exporter-JavaScript/${exporterBaseVersion()}`

/** The version of @opentelemetry/otlp-exporter-base (its User-Agent's), from its package.json (not exported). */
function exporterBaseVersion () {
  let dir = path.dirname(require.resolve('@opentelemetry/otlp-exporter-base'))
  for (;;) {
    const file = path.join(dir, 'package.json')
    if (fs.existsSync(file)) {
      const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8'))
      if (name === '@opentelemetry/otlp-exporter-base') return version
    }
    const parent = path.dirname(dir)
    if (parent === dir) return 'unknown'
    dir = parent
  }
}

/** A header value or name that cannot go on the wire as it is (the delegate's http.request refuses it). */
function invalidHeaderText (text) {
  return /[\r\n\0]/.test(text)
}

/**
 * The head of every request but its Content-Length's value, or null when a header cannot be written as it is,
 * or is one this client writes itself (the delegate then sends, as it would). The User-Agent is the
 * delegate's, which it sets over any configured one.
 */
function requestHead (url, headers) {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`
  for (const [name, value] of Object.entries(headers)) {
    const text = String(value)
    if (/^user-agent$/i.test(name)) continue
    if (invalidHeaderText(name) || invalidHeaderText(text) || /^(host|content-length|connection|transfer-encoding)$/i.test(name)) {
      return null
    }
    head += `${name}: ${text}\r\n`
  }
  return `${head}User-Agent: ${USER_AGENT}\r\nConnection: keep-alive\r\nContent-Length: `
}

/** One kept-alive connection to the collector: one export at a time. */
class Connection {
  constructor (url, onClose) {
    this.socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || 80 })
    this.socket.setNoDelay(true)
    this.socket.unref()
    this.closed = false
    this.pending = null // the export waiting for its answer
    this.chunks = []
    this.received = 0
    this.socket.on('data', (chunk) => this.receive(chunk))
    this.socket.on('error', (err) => this.fail(err))
    this.socket.on('close', () => {
      this.closed = true
      onClose(this)
      this.fail(new Error('the collector closed the connection before it answered'))
    })
  }

  /** Sends `head` and `body` as one write; `done({ status, body, headers } | { error })` once. */
  send (head, body, timeoutMillis, done) {
    this.pending = done
    this.chunks = []
    this.received = 0
    this.socket.ref()
    this.timer = setTimeout(() => {
      this.fail(Object.assign(new Error(`no answer within ${timeoutMillis} ms`), { timedOut: true }))
      this.socket.destroy()
    }, timeoutMillis)
    this.timer.unref()
    this.socket.cork()
    this.socket.write(head)
    this.socket.write(body)
    this.socket.uncork()
  }

  receive (chunk) {
    if (this.pending === null) {
      // Bytes nobody asked for: the connection is out of step, never to be used again.
      this.socket.destroy()
      return
    }
    this.chunks.push(chunk)
    this.received += chunk.length
    if (this.received > MAX_RESPONSE_BYTES) {
      this.fail(new Error(`the collector's answer exceeded ${MAX_RESPONSE_BYTES} bytes`), false)
      this.socket.destroy()
      return
    }
    const answer = parseResponse(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks))
    if (answer === null) return
    if (answer.error !== undefined) {
      this.fail(answer.error, false)
      this.socket.destroy()
      return
    }
    this.finish(answer)
    if (answer.close) this.socket.destroy()
  }

  finish (result) {
    const done = this.pending
    if (done === null) return
    this.pending = null
    clearTimeout(this.timer)
    if (!this.closed) this.socket.unref()
    done(result)
  }

  /** The export in progress ends with `err`; `retryable`: whether the delegate may try the batch again. */
  fail (err, retryable = true) {
    if (this.pending === null) return
    this.finish({ error: err, retryable })
  }

  get idle () {
    return !this.closed && this.pending === null
  }

  destroy () {
    this.socket.destroy()
  }
}

/**
 * An HTTP/1.1 response in `bytes`: `{ status, headers, body, close }` once whole, null while incomplete,
 * `{ error }` when it is not one.
 */
function parseResponse (bytes) {
  const headEnd = bytes.indexOf(HEAD_END)
  if (headEnd === -1) return bytes.length > 64 * 1024 ? { error: new Error('the collector answered with an endless head') } : null
  const lines = bytes.toString('latin1', 0, headEnd).split('\r\n')
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0])
  if (statusLine === null) return { error: new Error(`the collector's answer is not HTTP: ${JSON.stringify(lines[0].slice(0, 80))}`) }
  const headers = {}
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(':')
    if (colon > 0) headers[lines[i].slice(0, colon).trim().toLowerCase()] = lines[i].slice(colon + 1).trim()
  }
  const status = Number(statusLine[1])
  const close = /\bclose\b/i.test(headers.connection || '') || lines[0].startsWith('HTTP/1.0')
  const start = headEnd + 4
  if (/\bchunked\b/i.test(headers['transfer-encoding'] || '')) {
    const body = dechunk(bytes, start)
    if (body === null) return null
    if (body instanceof Error) return { error: body }
    return { status, headers, body, close }
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length'])
    if (!Number.isInteger(length) || length < 0) return { error: new Error(`the collector answered a Content-Length of ${headers['content-length']}`) }
    if (bytes.length - start < length) return null
    return { status, headers, body: bytes.subarray(start, start + length), close }
  }
  // No length: the body runs to the connection's end (which a collector that keeps connections alive does not do).
  return status === 204 || status === 304 ? { status, headers, body: Buffer.alloc(0), close } : null
}

/** A chunked body from `start`: its bytes, null while incomplete, an Error when malformed. */
function dechunk (bytes, start) {
  const parts = []
  let at = start
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at, 'latin1')
    if (lineEnd === -1) return null
    const size = parseInt(bytes.toString('latin1', at, lineEnd).split(';')[0], 16)
    if (!Number.isInteger(size) || size < 0) return new Error('the collector answered a malformed chunk')
    const dataStart = lineEnd + 2
    if (size === 0) {
      // The last chunk, any trailers, then an empty line.
      return bytes.indexOf('\r\n\r\n', lineEnd, 'latin1') === -1 ? null : Buffer.concat(parts)
    }
    if (bytes.length < dataStart + size + 2) return null
    parts.push(bytes.subarray(dataStart, dataStart + size))
    at = dataStart + size + 2
  }
}

/**
 * OTLP/HTTP over nodebench's own sockets, with OpenTelemetry's delegate (made when first needed) for the rest.
 * The same `export(batch, done)` / `shutdown()` as the delegate.
 */
class SocketOtlpTransport {
  /**
   * @param {object} options
   * @param {URL} options.url the traces endpoint (http:)
   * @param {() => Promise<object>} options.headers the headers, as the delegate's configuration resolves them
   * @param {number} options.timeoutMillis
   * @param {number} options.maxConnections
   * @param {(body: Buffer) => object} options.deserializeResponse
   * @param {() => object} options.fallback makes the delegate
   * @param {(error: Error) => boolean | void} [options.onRefused] hears a send that reached no collector
   *   (reachedNoCollector), before the delegate retries it (its back-off takes seconds: a first run wants to know
   *   at once); returning true fails the send at once instead (the caller tries again on a schedule of its own)
   */
  constructor ({ url, headers, timeoutMillis, maxConnections, deserializeResponse, fallback, onRefused = () => {} }) {
    this.url = url
    this.head = null
    this.headers = headers().then((resolved) => {
      this.head = requestHead(url, resolved)
    }, (err) => {
      reportInternalError('OTLP headers', err)
    })
    this.timeoutMillis = timeoutMillis
    this.maxConnections = maxConnections
    this.deserializeResponse = deserializeResponse
    this.makeFallback = fallback
    this.onRefused = onRefused
    this.delegate = null
    this.connections = []
    this.closed = false
  }

  fallback () {
    if (this.delegate === null) this.delegate = this.makeFallback()
    return this.delegate
  }

  export (batch, done) {
    if (this.head !== null) return this.sendOwn(batch, done)
    this.headers.then(() => {
      if (this.head === null || this.closed) this.fallback().export(batch, done)
      else this.sendOwn(batch, done)
    })
  }

  connection () {
    for (const connection of this.connections) if (connection.idle) return connection
    if (this.connections.length >= this.maxConnections) return null
    const connection = new Connection(this.url, (gone) => {
      const at = this.connections.indexOf(gone)
      if (at !== -1) this.connections.splice(at, 1)
    })
    this.connections.push(connection)
    return connection
  }

  sendOwn (batch, done) {
    const connection = this.connection()
    if (connection === null) {
      this.fallback().export(batch, done)
      return
    }
    const body = batch.body
    connection.send(Buffer.from(`${this.head}${body.length}\r\n\r\n`, 'latin1'), body, this.timeoutMillis, (answer) => {
      if (answer.error !== undefined) {
        // Refused, reset, closed before answering (a kept-alive connection the collector had just closed):
        // the delegate tries again, with its back-off, as for its own connections; unless the caller, told that
        // no collector was reached (onRefused), tries again on a schedule of its own.
        if (answer.retryable && !answer.error.timedOut && !this.closed) {
          const givenUp = reachedNoCollector(answer.error) && this.onRefused(answer.error) === true
          if (givenUp) done({ code: 1, error: answer.error })
          else this.fallback().export(batch, done)
        } else {
          done({ code: 1, error: answer.error })
        }
        return
      }
      this.answered(batch, answer, done)
    })
  }

  answered (batch, { status, body, headers }, done) {
    if (status >= 200 && status <= 299) {
      try {
        if (body.length > 0) logPartialSuccess(this.deserializeResponse(body))
      } catch (err) {
        diag.warn('nodebench: the collector\'s answer could not be read:', err && err.message)
      }
      done({ code: 0 })
      return
    }
    if (RETRYABLE_STATUSES.has(status) && !this.closed) {
      this.fallback().export(batch, done)
      return
    }
    const error = new Error(`the collector answered ${status}${body.length > 0 ? `: ${body.toString('utf8', 0, Math.min(body.length, 200))}` : ''}`)
    error.code = status
    done({ code: 1, error })
  }

  async shutdown () {
    this.closed = true
    for (const connection of this.connections) connection.destroy()
    this.connections = []
    if (this.delegate !== null) await this.delegate.shutdown()
  }
}

/** As OTLPTraceExporter's response handler: a partial success is logged, once per answer. */
function logPartialSuccess (response) {
  if (response == null || !Object.prototype.hasOwnProperty.call(response, 'partialSuccess') ||
    response.partialSuccess == null || Object.keys(response.partialSuccess).length === 0) return
  diag.warn('Received Partial Success response:', JSON.stringify(response.partialSuccess))
}

module.exports = { SocketOtlpTransport, parseResponse, requestHead, reachedNoCollector }
