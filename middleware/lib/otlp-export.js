'use strict'

const { ProtoWriter, encodeResource, encodeScope, frameExportRequest, frameHeadRoom } = require('./proto-writer')
const { RecordSpanEncoder } = require('./otlp-encoder')
const { reportInternalError, log } = require('./internal-errors')
const { SocketOtlpTransport, reachedNoCollector } = require('./otlp-socket')

// The export path for exporter 'otlp' when nodebench runs the pipeline itself. It does what a
// BatchSpanProcessor in front of an OTLPTraceExporter does (a bounded queue, batches, a schedule delay, an
// export timeout, lost spans counted) but holds encoded bytes instead of span objects, and sends up to
// MAX_EXPORTS_IN_FLIGHT batches at once where a BatchSpanProcessor waits for each export to end: with one in
// flight, a collector that keeps up but answers late (a busy machine) made the queue overflow at full load.
// A sampled request's spans are encoded when its response ends (otlp-encoder.js). The HTTP side is
// OpenTelemetry's own OTLP/HTTP delegate (endpoint, headers, compression, timeout and retries from the
// OTEL_EXPORTER_OTLP_* variables, like OTLPTraceExporter), given the encoded batch as its request. It and the
// resource are made when the first batch is sent: an app whose first requests wait for nothing of it.
//
// No collector (the default endpoint on a first run, where nothing listens): an export that reached no collector
// (reachedNoCollector: refused, no such host, no route; not a timeout, a reset or an HTTP error status, which
// a collector that is there, busy or failing, gives) makes the exporter `unreachable`. From then on the span
// pipeline asks it (skips) before it builds anything of a finished sampled request's spans, and their count
// goes to the dropped spans at once, as the failed export would have counted them: no attributes, no encoding,
// no batch, so a dead collector costs what exporter 'none' does. Sampling is not changed: the request is still
// sampled and its outgoing traceparent says so. Once a schedule delay (OTEL_BSP_SCHEDULE_DELAY) one request's
// spans are built and sent at once, a probe, with the time the request ended (no clock read of its own): if it
// is delivered (or the collector answers at all), spans are built for every sampled request again; refused, the
// next probe comes a delay later. A collector that comes up loses at most a delay's spans. Over nodebench's own
// sockets a batch that reached no collector is not handed to the delegate for its retries (the next probe is the
// retry): flush() and shutdown() do not wait for a back-off, and with nothing listening the delegate and Node.js's
// HTTP client are never loaded (their http.Agent, beside the app's own outgoing calls, made the agent's code
// megamorphic: benchmarks/LOG.md, "No collector").

const INITIAL_BATCH_BYTES = 64 * 1024
// Batches sent at once. The queue's bound (maxQueueSize) counts spans waiting to be sent; those in flight add
// at most this many batches (4 x 512 spans of ~320 bytes, ~650 kB) until their export ends or times out.
const MAX_EXPORTS_IN_FLIGHT = 4

const EMPTY_RESPONSE = Object.freeze({})

/**
 * The delegate's serializer: a batch is already encoded; a response is read as OTLPTraceExporter reads it.
 * A collector that accepted everything answers with an empty body. Only a body with something in it (a
 * partial success) loads OpenTelemetry's OTLP serializer: the less nodebench loads into the app's process,
 * the less it moves V8's optimization decisions for the app's own code (benchmarks/README.md, "What V8
 * makes of this app").
 */
const ENCODED_BATCH_SERIALIZER = Object.freeze({
  serializeRequest: (batch) => batch.body,
  deserializeResponse (data) {
    if (data.length === 0) return EMPTY_RESPONSE
    return require('@opentelemetry/otlp-transformer').ProtobufTraceSerializer.deserializeResponse(data)
  }
})

const SPAN_COUNT_HELPER = Object.freeze({ name: 'span', countItems: (batch) => batch.spans })

function createOtlpHttpDelegate (options = otlpHttpOptions()) {
  const { createOtlpHttpExportDelegate } = require('@opentelemetry/otlp-exporter-base/node-http')
  return createOtlpHttpExportDelegate(options, ENCODED_BATCH_SERIALIZER, 'otlp_http_span_exporter', SPAN_COUNT_HELPER)
}

/** The OTLP/HTTP settings OTLPTraceExporter reads (endpoint, headers, compression, timeout: OTEL_EXPORTER_OTLP_*). */
function otlpHttpOptions () {
  const { convertLegacyHttpOptions } = require('@opentelemetry/otlp-exporter-base/node-http')
  return convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' })
}

/**
 * How batches are sent: over nodebench's own kept-alive sockets (otlp-socket.js) to a plain http:// endpoint
 * without compression or proxy, with OpenTelemetry's delegate behind them for retries; else the delegate alone.
 */
function createOtlpTransport ({ onRefused } = {}) {
  const options = otlpHttpOptions()
  let url = null
  try {
    url = new URL(options.url)
  } catch {}
  // Node.js's http honours HTTP_PROXY when asked to (NODE_USE_ENV_PROXY, --use-env-proxy): the delegate then.
  const proxied = Boolean(process.env.NODE_USE_ENV_PROXY) || process.execArgv.includes('--use-env-proxy')
  if (url === null || url.protocol !== 'http:' || options.compression !== 'none' || proxied) return createOtlpHttpDelegate(options)
  return new SocketOtlpTransport({
    url,
    headers: options.headers,
    timeoutMillis: options.timeoutMillis,
    maxConnections: MAX_EXPORTS_IN_FLIGHT,
    deserializeResponse: ENCODED_BATCH_SERIALIZER.deserializeResponse,
    fallback: () => createOtlpHttpDelegate(options),
    onRefused
  })
}

// Whether this process has said that an export failed (RecordExporter#sayFirstFailure): once per process, however
// many nodebenchTrace() it makes.
let firstFailureSaid = false

const CONNECTION_CODES = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|ETIMEDOUT|EPIPE)\b/

/** The system error code of an export that reached no collector, else null (the collector answered). */
function connectionFailure (error) {
  for (let err = error, depth = 0; err && depth < 4; err = err.cause, depth++) {
    if (typeof err.code === 'string' && CONNECTION_CODES.test(err.code)) return err.code
    const match = CONNECTION_CODES.exec(String(err.message))
    if (match !== null) return match[1]
    if (err.timedOut || /timed? ?out/i.test(String(err.message))) return 'no answer in time'
  }
  return null
}

/** A batch's spans, encoded into `writer` from `start` on: the bytes before are left for the request's frame. */
class EncodedBatch {
  constructor (writer, start) {
    writer.ensure(start)
    writer.pos = start
    this.start = start
    this.writer = writer
    this.spans = 0
    this.body = null
  }
}

class RecordExporter {
  /**
   * @param {object} options
   * @param {import('@opentelemetry/resources').Resource | (() => import('@opentelemetry/resources').Resource)}
   *   options.resource
   *   the resource, or a function that makes it when the first batch is sent
   * @param {{ name: string, version?: string }} options.scope
   * @param {number} options.maxQueueSize spans waiting for export before new ones are dropped
   * @param {number} options.maxExportBatchSize spans per export request (a request's spans stay together)
   * @param {number} options.scheduledDelayMillis longest wait before a partial batch is sent
   * @param {number} options.exportTimeoutMillis an export not answered by then counts as failed
   * @param {object} [options.delegate] the OTLP export delegate (default: OTLP/HTTP protobuf, made at the first send)
   * @param {RecordSpanEncoder} [options.encoder]
   */
  constructor ({
    resource, scope, maxQueueSize, maxExportBatchSize, scheduledDelayMillis, exportTimeoutMillis, delegate, encoder
  }) {
    this.resourceOf = typeof resource === 'function' ? resource : () => resource
    this.resource = null
    this.scopeBytes = encodeScope(scope)
    this.resourceBytes = null
    this.maxQueueSize = maxQueueSize
    this.maxExportBatchSize = maxExportBatchSize
    this.scheduledDelayMillis = scheduledDelayMillis
    this.exportTimeoutMillis = exportTimeoutMillis
    this.delegate = delegate || null
    // Where batches go, for the first failure's line: undefined until asked (the OTEL_EXPORTER_OTLP_* settings),
    // null for a delegate given here (its endpoint is its own).
    this.endpoint = delegate ? null : undefined
    this.encoder = encoder || new RecordSpanEncoder()
    // Writers whose batch was exported: reused, so a batch is not a fresh large buffer.
    this.spareWriters = []
    // Bytes a batch leaves free for its request's frame (frameHeadRoom), known once the resource is encoded.
    this.headRoom = 0
    this.current = this.newBatch()
    this.sealed = [] // full batches waiting for their turn
    this.queued = 0 // spans in `current` and `sealed`
    this.inFlight = 0
    this.timer = null
    this.idleWaiters = []
    this.dropped = 0
    this.closed = false
    // The last export reached no collector: spans are not built until a probe is delivered (skips).
    this.unreachable = false
    // A sampled request that ends from then on (performance.now(), as its record's endMs) is the next probe.
    this.probeAtMs = 0
  }

  /**
   * Asked, while no collector is reachable, before anything of a finished sampled record's spans is built:
   * true when they are counted as dropped instead (nothing to build); false for the first record to end a
   * schedule delay after the last probe, whose spans are built and sent at once as the next probe.
   */
  skips (record) {
    if (record.endMs < this.probeAtMs) {
      this.dropped += RecordSpanEncoder.spanCount(record)
      return true
    }
    this.probeAtMs = record.endMs + this.scheduledDelayMillis
    return false
  }

  /** An export reached no collector: spans are not built until a probe is delivered. */
  reachedNoCollector () {
    if (this.unreachable) return
    this.unreachable = true
    this.probeAtMs = performance.now() + this.scheduledDelayMillis
  }

  /**
   * Encodes a finished, sampled record's spans into the current batch, or counts them as dropped when the
   * queue is full. A request's spans stay in one batch: a batch that cannot take them is sent first.
   */
  add (record, urlPath) {
    const spans = RecordSpanEncoder.spanCount(record)
    if (this.closed) {
      this.dropped += spans
      return
    }
    if (this.current.spans > 0 && this.current.spans + spans > this.maxExportBatchSize) {
      this.seal()
      this.pump()
    }
    if (this.queued + spans > this.maxQueueSize) {
      this.dropped += spans
      return
    }
    const batch = this.current
    const before = batch.writer.pos
    try {
      this.encoder.write(batch.writer, record, urlPath)
    } catch (err) {
      batch.writer.pos = before
      this.dropped += spans
      reportInternalError('encode spans', err)
      return
    }
    batch.spans += spans
    this.queued += spans
    // While no collector is reachable, a batch holds a probe (skips): sent at once.
    if (batch.spans >= this.maxExportBatchSize || this.unreachable) {
      this.seal()
      this.pump()
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null
        this.seal()
        this.pump()
      }, this.scheduledDelayMillis)
      this.timer.unref()
    }
  }

  /** Sends what is queued now rather than when the schedule delay ends. */
  sendNow () {
    this.seal()
    this.pump()
  }

  seal () {
    if (this.timer !== null) {
      clearTimeout(this.timer)
      this.timer = null
    }
    if (this.current.spans === 0) return
    this.sealed.push(this.current)
    this.current = this.newBatch()
  }

  newBatch () {
    const writer = this.spareWriters.pop()
    return new EncodedBatch(writer !== undefined ? writer : new ProtoWriter(INITIAL_BATCH_BYTES), this.headRoom)
  }

  /** Sends sealed batches while fewer than MAX_EXPORTS_IN_FLIGHT are. */
  pump () {
    while (this.inFlight < MAX_EXPORTS_IN_FLIGHT) {
      const batch = this.sealed.shift()
      if (batch === undefined) {
        this.notifyIdle()
        return
      }
      this.queued -= batch.spans
      this.inFlight++
      this.send(batch).then((delivered) => {
        if (!delivered) this.dropped += batch.spans
        this.inFlight--
        this.pump()
      })
    }
  }

  /**
   * Makes the resource (its asynchronous attributes start settling) and the OTLP/HTTP client, if not yet
   * made: ~20-40 ms of loading and detection, once; by the span pipeline when it names the layers of the first
   * sampled requests (just before their batch is sealed), else by the first send.
   */
  prepare () {
    if (this.resource === null) this.resource = this.resourceOf()
    if (this.delegate === null) {
      this.delegate = createOtlpTransport({
        // The batch fails at once, not retried by the delegate: the probes are the retries.
        onRefused: (error) => {
          this.reachedNoCollector()
          this.sayFirstFailure(error)
          return true
        }
      })
    }
    if (this.resourceBytes === null) {
      const encoding = this.encodedResource()
      this.resourceBytes = encoding
      // A failure is reported by the send that awaits it, and the next send tries again.
      encoding.catch(() => {
        if (this.resourceBytes === encoding) this.resourceBytes = null
      })
    }
  }

  /** Resolves with whether the batch was delivered; never rejects. */
  async send (batch) {
    const writer = batch.writer
    try {
      this.prepare()
      const resourceBytes = await this.resourceBytes
      batch.writer = null
      batch.body = frameExportRequest(resourceBytes, this.scopeBytes, writer, batch.start, this.resource.schemaUrl)
    } catch (err) {
      reportInternalError('encode export request', err)
      return false
    }
    return new Promise((resolve) => {
      let settled = false
      const timeout = setTimeout(() => finish({ code: 1, error: new Error(`export timed out after ${this.exportTimeoutMillis} ms`) }), this.exportTimeoutMillis)
      timeout.unref()
      const finish = (result) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        if (result.code !== 0) {
          log('export of %d spans failed: %s', batch.spans, result.error && result.error.message)
          // Reached no collector: spans are not built until a probe gets through. A collector that answered,
          // even with an error, is there: spans are built again. A timeout says neither.
          if (reachedNoCollector(result.error)) this.reachedNoCollector()
          else if (connectionFailure(result.error) === null) this.unreachable = false
          this.sayFirstFailure(result.error)
        } else {
          this.unreachable = false
        }
        resolve(result.code === 0)
      }
      // The body is a view of the writer's buffer: the writer is reused only once the delegate is done with it (it
      // may retry after the timeout said the export failed).
      let released = false
      const exported = (result) => {
        if (!released && this.spareWriters.length < MAX_EXPORTS_IN_FLIGHT) this.spareWriters.push(writer)
        released = true
        finish(result)
      }
      try {
        this.delegate.export(batch, exported)
      } catch (err) {
        reportInternalError('span export', err)
        finish({ code: 1, error: err })
      }
    })
  }

  /**
   * Once per process, at the first export that failed (or, over nodebench's own sockets, was refused before the
   * retries): one line on stderr saying where nothing answered (or what the collector answered), that spans are
   * not built while nothing answers, and the two ways out. Spans go on being dropped and counted (dropped.spans); a
   * line per failure would drown the app's own output when no collector runs, the usual first run.
   */
  sayFirstFailure (error) {
    if (firstFailureSaid) return
    firstFailureSaid = true
    let endpoint = 'the OTLP endpoint'
    try {
      if (this.endpoint === undefined) endpoint = otlpHttpOptions().url
      else if (this.endpoint !== null) endpoint = this.endpoint
    } catch {}
    const code = connectionFailure(error)
    const what = code !== null
      ? `no OTLP collector answered at ${endpoint} (${code})`
      : `the OTLP collector at ${endpoint} failed an export (${(error && error.message) || 'no reason given'})`
    const until = reachedNoCollector(error)
      ? ` and not built until one answers (tried again every ${this.scheduledDelayMillis / 1000} s)`
      : ''
    try {
      process.stderr.write(`nodebench: ${what}, so spans are dropped (counted in the breakdown's dropped.spans)${until}. ` +
        'Start one: npx nodebench services start jaeger; or keep the breakdown alone: nodebenchTrace({ exporter: \'none\' })\n')
    } catch {}
  }

  /** The resource's bytes, once its asynchronous attributes (if any) have settled. */
  async encodedResource () {
    const resource = this.resource
    if (resource.asyncAttributesPending && typeof resource.waitForAsyncAttributes === 'function') {
      await resource.waitForAsyncAttributes()
    }
    const bytes = encodeResource(resource.attributes || {})
    this.headRoom = frameHeadRoom(bytes, this.scopeBytes)
    return bytes
  }

  notifyIdle () {
    if (this.inFlight > 0 || this.sealed.length > 0 || this.current.spans > 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  /** Sends everything queued; resolves when it is delivered or counted as dropped. Never rejects. */
  flush () {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve)
      this.seal()
      this.pump()
      this.notifyIdle()
    })
  }

  droppedSpans () {
    return this.dropped
  }

  async shutdown () {
    if (this.closed) return
    await this.flush()
    this.closed = true
    try {
      if (this.delegate !== null) await this.delegate.shutdown()
    } catch (err) {
      log('shutdown of the OTLP exporter failed: %s', err && err.message)
    }
  }
}

module.exports = { RecordExporter, createOtlpHttpDelegate, createOtlpTransport, MAX_EXPORTS_IN_FLIGHT }
