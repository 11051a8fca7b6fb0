'use strict'

// nodebench writes its OTLP protobuf straight from request records (otlp-encoder.js). These tests hold it
// to the bytes OpenTelemetry's own serializer writes for the same spans, built as ReadableSpans by the
// SDK path (DirectSpanWriter), with the same ids.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const api = require('@opentelemetry/api')
const resources = require('@opentelemetry/resources')
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer')
const { RequestRecord } = require('../lib/request-record')
const { DirectSpanWriter } = require('../lib/sdk-spans')
const { ProtoWriter, encodeResource, encodeScope, frameExportRequest, frameHeadRoom } = require('../lib/proto-writer')
const { RandomSpanIds } = require('../lib/span-templates')
const { RecordSpanEncoder } = require('../lib/otlp-encoder')
const { RecordExporter, MAX_EXPORTS_IN_FLIGHT } = require('../lib/otlp-export')
const { pathOf } = require('../lib/span-attributes')

const SCOPE = Object.freeze({ name: '@nodebench/trace', version: '0.1.0' })

/** The same span ids, as hex for the SDK path and as bytes for the encoder. */
function idSequence (first = 1) {
  let next = first
  return {
    generateSpanId () {
      return (next++).toString(16).padStart(16, '0')
    },
    write (target, offset) {
      target.write((next++).toString(16).padStart(16, '0'), offset, 8, 'hex')
    }
  }
}

/** A resolved layer, as function-names.js's LayerInfo holds it (the encoder keeps its span template there). */
function info (kind, name, file = '/srv/app/routes.js', line = 12) {
  return { key: `${kind} ${name} ${file}:${line}`, name, kind, file, line, spanTemplate: null }
}

function fakeResponse (statusCode, contentType) {
  return { statusCode, getHeader: () => contentType }
}

function ids (record, traceId, spanId) {
  record.sampled = true
  record.traceId = traceId
  record.spanId = spanId
  return record
}

/** A request through a middleware, a router (with a param and a handler) and a failing handler. */
function routedRecord () {
  const record = ids(new RequestRecord('GET', 1000.25), '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331')
  const logger = record.openEntry(info('middleware', 'logger', '/srv/app/app.js', 3))
  record.closeEntry(logger, null)
  const router = record.enterContainer(info('router', 'router'), { baseUrl: '/db/admin', params: { database: 'admin' } }, { keys: [{ name: 'database' }] })
  const param = record.openEntry(info('param', 'database'))
  record.closeEntry(param, null)
  const failing = record.openEntry(info('handler', 'viewDatabase', '/srv/app/ß-routes.js', 40))
  record.closeEntry(failing, new TypeError('catalog is gone'))
  const handler = record.openEntry(info('error-handler', 'renderError', null, null))
  record.closeEntry(handler, 'a string, not an Error')
  record.exitContainer(router)
  record.route = '/db/:database'
  record.finish(fakeResponse(404, 'text/html; charset=utf-8'), false)
  return record
}

/** A request continuing a remote trace, answered 500, aborted, on a path that is not ASCII. */
function remoteParentRecord () {
  const record = ids(new RequestRecord('POST', 2000.5), '4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7')
  record.remoteParent = { traceId: record.traceId, spanId: '53995c3f42cd8ad8', traceFlags: 1, isRemote: true }
  const add = record.openEntry(info('handler', 'addDocument'))
  record.closeEntry(add, null)
  record.route = '/café/:id'
  record.finish(fakeResponse(500, 'application/json'), true)
  return record
}

/** A request whose server span belongs to another instrumentation (instrumentation-http). */
function childOfHttpSpanRecord () {
  const record = new RequestRecord('GET', 3000)
  record.sampled = true
  const context = { traceId: '11111111111111111111111111111111', spanId: '2222222222222222', traceFlags: 1 }
  record.parentSpan = { spanContext: () => context, setAttribute () {} }
  const only = record.openEntry(info('middleware', 'compress'))
  record.finish(fakeResponse(200, 'application/json'), false)
  assert.equal(record.entryEnd(only) > 0, true)
  return record
}

async function detectedResource () {
  const resource = resources.defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector, resources.hostDetector, resources.osDetector] }))
    .merge(resources.resourceFromAttributes({ 'service.name': 'encoding-test', 'test.number': 1.5, 'test.flag': true }))
  if (resource.waitForAsyncAttributes) await resource.waitForAsyncAttributes()
  return resource
}

/**
 * `urls`: each request's originalUrl; the encoder is given its path, as RecordWriter gives it. `room`: the bytes
 * the batch leaves before its spans (RecordExporter leaves frameHeadRoom's once the resource is encoded; 0 before).
 */
function encodeBoth (resource, records, urls, room = 0) {
  const sdkIds = idSequence()
  const spans = []
  const direct = new DirectSpanWriter({ onEnd: (span) => spans.push(span) }, resource, sdkIds, SCOPE)
  const encoder = new RecordSpanEncoder(idSequence())
  const writer = new ProtoWriter(64)
  writer.ensure(room)
  writer.pos = room
  records.forEach((record, i) => {
    direct.write(record, pathOf(urls[i]))
    encoder.write(writer, record, pathOf(urls[i]))
  })
  const official = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans))
  const ours = frameExportRequest(encodeResource(resource.attributes), encodeScope(SCOPE), writer, room, resource.schemaUrl)
  return { official, ours, spans, writer }
}

test('spans encoded from records are byte for byte what the OTLP serializer writes for the same spans', async () => {
  const resource = await detectedResource()
  assert.ok(Array.isArray(resource.attributes['process.command_args']), 'the resource has an array attribute')
  const { official, ours, spans } = encodeBoth(resource,
    [routedRecord(), remoteParentRecord(), childOfHttpSpanRecord()],
    ['/db/admin', '/café/7?x=1', '/items'])
  // 5 entries + request span, 1 entry + request span, 1 entry (its server span is instrumentation-http's).
  assert.equal(spans.length, 6 + 2 + 1)
  assert.equal(ours.length, official.length)
  assert.ok(ours.equals(official), 'the encodings differ')
})

test('request spans of one operation in turn with other statuses, formats and operations: each the serializer\'s bytes', async () => {
  // The encoder keeps the last request span's template and others by operation and status: a run of one
  // operation, a change of status, of format, of route, and back, each written as the serializer writes it.
  const resource = await detectedResource()
  const request = (route, status, type, startMs) => {
    const record = ids(new RequestRecord('GET', startMs), '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331')
    record.closeEntry(record.openEntry(info('handler', 'show')), null)
    record.route = route
    record.finish(fakeResponse(status, type), false)
    return record
  }
  const records = [request('/items/:id', 200, 'application/json', 10), request('/items/:id', 200, 'application/json', 20.5),
    request('/items/:id', 404, 'application/json', 30), request('/items/:id', 200, 'text/html', 40.125),
    request('/users', 200, 'application/json', 50), request('/items/:id', 200, 'application/json', 60),
    // Times in other seconds, back and forth (the encoder keeps the last second's part of a time).
    request('/items/:id', 200, 'application/json', 999.999999), request('/items/:id', 200, 'application/json', 86_400_000.5),
    request('/items/:id', 200, 'application/json', 1500.000001), request('/items/:id', 200, 'application/json', 0.000001)]
  const urls = ['/items/1', '/items/22', '/items/3', '/items/4', '/users', '/items/5?q=1', '/items/6', '/items/7', '/items/8', '/items/9']
  const { official, ours, spans } = encodeBoth(resource, records, urls)
  assert.equal(spans.length, 20)
  assert.ok(ours.equals(official), 'the encodings differ')
})

test('the request span\'s attributes read from the request, the same or not from one request to the next: each the serializer\'s bytes', async () => {
  // The encoder copies the last request's encoded attributes when the next one's are the same (RepeatedAttributes),
  // and writes short ASCII strings itself: a value that changes, a key missing or added, the same values in another
  // order, a value that is not ASCII, one too long for a one-byte length, and one that is not a string or number.
  const resource = await detectedResource()
  const base = {
    'url.scheme': 'http',
    'server.address': '127.0.0.1',
    'server.port': 3000,
    'network.protocol.version': '1.1',
    'client.address': '::ffff:127.0.0.1',
    'user_agent.original': 'autocannon/7'
  }
  const { 'server.port': port, ...withoutPort } = base
  const variants = [base, { ...base }, { ...base, 'client.address': '10.0.0.7' }, { ...base }, withoutPort,
    { ...withoutPort, 'server.port': port }, { ...base, 'user_agent.original': 'Mozilla/5.0 (Mäc)' },
    { ...base, 'user_agent.original': 'x'.repeat(127) }, { ...base, 'user_agent.original': 'y'.repeat(128) },
    { ...base, 'error.type': '500' }, { ...base, 'server.port': [3000, 3001] }, { ...base, 'server.port': [3000, 3001] }, base]
  const records = variants.map((attributes, i) => {
    const record = ids(new RequestRecord('GET', 10 + i), '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331')
    record.closeEntry(record.openEntry(info('handler', 'show')), null)
    record.route = '/items/:id'
    record.finish(fakeResponse(200, 'application/json'), false)
    record.serverAttributes = attributes
    return record
  })
  const { official, ours, spans } = encodeBoth(resource, records, records.map((_, i) => `/items/${i}`))
  assert.equal(spans.length, 2 * variants.length)
  assert.ok(ours.equals(official), 'the encodings differ')
})

test('a batch framed in the room left before its spans is the same request, a view of the batch\'s bytes', async () => {
  const resource = await detectedResource()
  const room = frameHeadRoom(encodeResource(resource.attributes), encodeScope(SCOPE))
  const { official, ours, writer } = encodeBoth(resource, [routedRecord(), remoteParentRecord()], ['/db/admin', '/items'], room)
  assert.ok(ours.equals(official), 'the encodings differ')
  assert.equal(ours.buffer, writer.buffer.buffer, 'framed in place, not copied')
  const at = ours.byteOffset - writer.buffer.byteOffset
  assert.ok(at >= 0 && at < room, 'the head is in the room before the spans')
  // Less room than the head needs: the spans are copied behind it instead (small Buffers may share Node.js's
  // pool with the writer, so the copy is told apart by its bytes outliving the writer's).
  const copied = encodeBoth(resource, [routedRecord(), remoteParentRecord()], ['/db/admin', '/items'], 10)
  assert.ok(copied.ours.equals(copied.official))
  copied.writer.buffer.fill(0)
  assert.ok(copied.ours.equals(copied.official), 'a copy, not a view of the writer')
})

test('a span whose id was given out before it was written (traceparent) is written with that id', async () => {
  const resource = await detectedResource()
  const record = routedRecord()
  record.presetSpanId(3, () => 'c0ffee00c0ffee00')
  const { official, ours, spans } = encodeBoth(resource, [record], ['/db/admin'])
  assert.equal(spans[3].spanContext().spanId, 'c0ffee00c0ffee00')
  assert.ok(ours.equals(official), 'the encodings differ')
})

test('ids nobody asked for while the request ran are drawn as the spans are written: the same spans as with those ids given', () => {
  // The encoder draws the trace id as two span ids, then the request span's id, then the segments'.
  const record = ids(routedRecord(), null, null)
  const drawnWriter = new ProtoWriter(64)
  new RecordSpanEncoder(idSequence()).write(drawnWriter, record, '/db/admin')
  ids(record, '00000000000000010000000000000002', '0000000000000003')
  const givenWriter = new ProtoWriter(64)
  new RecordSpanEncoder(idSequence(4)).write(givenWriter, record, '/db/admin')
  assert.deepEqual(drawnWriter.buffer.subarray(0, drawnWriter.pos), givenWriter.buffer.subarray(0, givenWriter.pos))

  // Drawn from the CSPRNG's pool: a trace id and a request span id of their own for every request, never zero.
  const encoder = new RecordSpanEncoder()
  const seen = new Set()
  for (let i = 0; i < 3; i++) {
    encoder.write(new ProtoWriter(64), ids(routedRecord(), null, null), '/db/admin')
    const traceId = encoder.traceId.toString('hex')
    const spanId = encoder.requestSpanId.toString('hex')
    assert.doesNotMatch(traceId, /^0+$/)
    assert.doesNotMatch(spanId, /^0+$/)
    seen.add(traceId).add(spanId)
  }
  assert.equal(seen.size, 6)
})

test('one span alone, and a span whose length needs a third length byte, encode the same', async () => {
  const resource = await detectedResource()
  const record = ids(new RequestRecord('GET', 10), '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331')
  const index = record.openEntry(info('handler', 'h'.repeat(20_000)))
  record.closeEntry(index, Object.assign(new Error('x'.repeat(70_000)), { stack: 'y' }))
  record.route = '/'
  record.finish(fakeResponse(200, 'text/plain'), false)
  const { official, ours } = encodeBoth(resource, [record], ['/'])
  assert.ok(ours.equals(official))
})

test('random span ids: 8 bytes each, distinct across refills of the pool, and never all zero', () => {
  const ids = new RandomSpanIds(4) // refilled every 4 ids
  const target = Buffer.alloc(8 * 1000)
  const words = new DataView(target.buffer, target.byteOffset, target.length)
  for (let i = 0; i < 1000; i++) ids.write(target, i * 8, words)
  const seen = new Set()
  for (let i = 0; i < 1000; i++) seen.add(target.toString('hex', i * 8, i * 8 + 8))
  assert.equal(seen.size, 1000)
  assert.equal(seen.has('0000000000000000'), false)
  // A pool that drew zeros (once in 2^64 ids): the id's last byte becomes 1.
  ids.pool.fill(0)
  ids.next = 0
  ids.write(target, 0, words)
  assert.equal(target.toString('hex', 0, 8), '0000000000000001')
})

/** A local OTLP/HTTP endpoint that keeps the bodies it receives. */
async function collector (respond = (req, res) => res.end()) {
  const bodies = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks))
      respond(req, res)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, bodies, close: () => new Promise((resolve) => server.close(resolve)) }
}

function withEndpoint (url, work) {
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = url
  return Promise.resolve().then(work).finally(() => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved
  })
}

function exporterFor (resource, options = {}) {
  return new RecordExporter({
    resource,
    scope: SCOPE,
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 5000,
    exportTimeoutMillis: 5000,
    ...options
  })
}

test('the exporter sends a batch when the next request would not fit, the rest on flush, requests kept whole', async () => {
  const resource = await detectedResource()
  const sink = await collector()
  try {
    await withEndpoint(sink.url, async () => {
      const exporter = exporterFor(resource, { maxExportBatchSize: 20, encoder: new RecordSpanEncoder(idSequence()) })
      // 6 spans per record: a 4th record would make a batch of 24 spans; 10 records make batches of 3, 3, 3, 1.
      const records = Array.from({ length: 10 }, routedRecord)
      for (const record of records) exporter.add(record, '/db/admin')
      await exporter.flush()
      assert.equal(exporter.droppedSpans(), 0)
      assert.equal(sink.bodies.length, 4)
      const sdkIds = idSequence()
      const expected = []
      for (const batch of [records.slice(0, 3), records.slice(3, 6), records.slice(6, 9), records.slice(9)]) {
        const spans = []
        const direct = new DirectSpanWriter({ onEnd: (span) => spans.push(span) }, resource, sdkIds, SCOPE)
        for (const record of batch) direct.write(record, '/db/admin')
        expected.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)))
      }
      // Batches go out several at a time, so the collector may receive them in another order.
      assert.deepEqual(sink.bodies.slice().sort(Buffer.compare), expected.sort(Buffer.compare))
      await exporter.shutdown()
    })
  } finally {
    await sink.close()
  }
})

test('a collector that answers late gets several batches at once, never more than MAX_EXPORTS_IN_FLIGHT, and nothing is dropped', async () => {
  const resource = await detectedResource()
  const held = []
  let received = 0
  let most = 0
  // Answers are held until as many exports as may be in flight are waiting (or the last ones arrived).
  const sink = await collector((req, res) => {
    received++
    held.push(res)
    most = Math.max(most, held.length)
    if (held.length === MAX_EXPORTS_IN_FLIGHT || received === 10) for (const waiting of held.splice(0)) waiting.end()
  })
  try {
    await withEndpoint(sink.url, async () => {
      // 6 spans per record and batches of 6: ten batches, queued far faster than they are answered.
      const exporter = exporterFor(resource, { maxExportBatchSize: 6, maxQueueSize: 60 })
      for (let i = 0; i < 10; i++) exporter.add(routedRecord(), '/db/admin')
      await exporter.flush()
      assert.equal(exporter.droppedSpans(), 0)
      assert.equal(sink.bodies.length, 10)
      assert.ok(MAX_EXPORTS_IN_FLIGHT > 1)
      assert.equal(most, MAX_EXPORTS_IN_FLIGHT)
      await exporter.shutdown()
    })
  } finally {
    await sink.close()
  }
})

/** Resolves once `condition()` holds (a send awaits the encoded resource before it calls the delegate). */
async function until (condition) {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 1000) throw new Error('the condition never held')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

test('a batch\'s bytes are not reused while the delegate may still send them, also after its export timed out', async () => {
  const resource = await detectedResource()
  const exports = []
  const delegate = { export: (batch, done) => exports.push({ batch, sent: Buffer.from(batch.body), done }), shutdown: async () => {} }
  const exporter = exporterFor(resource, {
    delegate, maxExportBatchSize: 6, exportTimeoutMillis: 50, encoder: new RecordSpanEncoder(idSequence())
  })
  const records = [routedRecord(), routedRecord(), routedRecord()]
  const sdkIds = idSequence()
  const expected = records.map((record) => {
    const spans = []
    new DirectSpanWriter({ onEnd: (span) => spans.push(span) }, resource, sdkIds, SCOPE).write(record, '/db/admin')
    return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans))
  })
  const held = exporter.current.writer // a batch of 6 is sent as soon as it is full
  exporter.add(records[0], '/db/admin')
  // The exporter's timers do not keep a process alive (an app's would): this test's process waits for them.
  const waiting = setInterval(() => {}, 1000)
  await exporter.flush().finally(() => clearInterval(waiting)) // never answered: timed out, its 6 spans dropped
  assert.equal(exporter.droppedSpans(), 6)
  exporter.add(records[1], '/db/admin')
  const second = exporter.flush()
  await until(() => exports.length === 2)
  exports[1].done({ code: 0 })
  await second
  assert.ok(exports[0].batch.body.equals(exports[0].sent), 'the timed-out batch, which the delegate may still retry, is intact')
  assert.equal(exporter.spareWriters.includes(held), false)
  exports[0].done({ code: 0 }) // the delegate is done with it: its writer is free for the next batch
  assert.equal(exporter.spareWriters.includes(held), true)
  exporter.add(records[2], '/db/admin')
  const third = exporter.flush()
  await until(() => exports.length === 3)
  exports[2].done({ code: 0 })
  await third
  assert.deepEqual(exports.map((e) => e.sent), expected)
  assert.equal(exporter.droppedSpans(), 6)
  await exporter.shutdown()
})

test('the exporter drops whole requests when its queue is full and counts their spans; failed exports count too', async () => {
  const resource = await detectedResource()
  let answer = 200
  const sink = await collector((req, res) => { res.statusCode = answer; res.end() })
  try {
    await withEndpoint(sink.url, async () => {
      const exporter = exporterFor(resource, { maxQueueSize: 20, maxExportBatchSize: 1000 })
      for (let i = 0; i < 4; i++) exporter.add(routedRecord(), '/db/admin') // 6 spans each: the 4th does not fit
      assert.equal(exporter.droppedSpans(), 6)
      await exporter.flush()
      assert.equal(sink.bodies.length, 1)
      answer = 400 // not retryable: the batch is lost
      exporter.add(routedRecord(), '/db/admin')
      await exporter.flush()
      assert.equal(exporter.droppedSpans(), 12)
      await exporter.shutdown()
      exporter.add(routedRecord(), '/db/admin')
      assert.equal(exporter.droppedSpans(), 18, 'spans after shutdown are dropped and counted')
    })
  } finally {
    await sink.close()
  }
})

test("a collector's partial-success answer is read and logged as OTLPTraceExporter does; the spans count as delivered", async () => {
  const resource = await detectedResource()
  // ExportTraceServiceResponse { partial_success: { rejected_spans: 3, error_message: "reason" } }
  const partialSuccess = Buffer.from([0x0a, 0x0a, 0x08, 0x03, 0x12, 0x06, ...Buffer.from('reason')])
  let answer = Buffer.alloc(0)
  const sink = await collector((req, res) => { res.setHeader('Content-Type', 'application/x-protobuf'); res.end(answer) })
  const warnings = []
  api.diag.setLogger({ error () {}, warn: (...args) => warnings.push(args.join(' ')), info () {}, debug () {}, verbose () {} }, api.DiagLogLevel.WARN)
  try {
    await withEndpoint(sink.url, async () => {
      const exporter = exporterFor(resource)
      exporter.add(routedRecord(), '/db/admin')
      await exporter.flush()
      answer = partialSuccess
      exporter.add(routedRecord(), '/db/admin')
      await exporter.flush()
      assert.equal(exporter.droppedSpans(), 0, 'a partial success is a successful export')
      assert.equal(sink.bodies.length, 2)
      await exporter.shutdown()
    })
    const partial = warnings.filter((w) => w.includes('Partial Success'))
    assert.equal(partial.length, 1, warnings.join('\n'))
    assert.match(partial[0], /"rejectedSpans":"?3"?/)
    assert.match(partial[0], /"errorMessage":"reason"/)
  } finally {
    api.diag.disable()
    await sink.close()
  }
})
