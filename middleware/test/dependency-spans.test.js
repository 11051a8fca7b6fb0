'use strict'

// Dependency calls as CLIENT spans and the request span's HTTP server attributes, written both ways: straight
// from the record as OTLP bytes (otlp-encoder.js) and as SDK spans (sdk-spans.js), byte for byte the same.
// And how a segment's time splits among the calls it waited on (@nodebench/breakdown's attribution.js).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const resources = require('@opentelemetry/resources')
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer')
const { RequestRecord } = require('../lib/request-record')
const { DirectSpanWriter } = require('../lib/sdk-spans')
const { ProtoWriter, frameExportRequest, encodeResource, encodeScope } = require('../lib/proto-writer')
const { RecordSpanEncoder } = require('../lib/otlp-encoder')
const { DependencyCall } = require('../lib/dependencies/calls')
const { describeDependency } = require('../lib/dependencies/describe')
const { attributeCalls } = require('@nodebench/breakdown')
const { fullUrl, urlBase, hostAndPort } = require('../lib/dependencies/http-client')
const { serverSpanAttributes } = require('../lib/server-span-attributes')

const SCOPE = Object.freeze({ name: '@nodebench/trace', version: '0.1.0' })
const FIND = describeDependency('mongodb', '127.0.0.1:27017', 'find', 'users', () => ({
  system: 'mongodb',
  operation: 'find',
  target: 'users',
  spanName: 'find users',
  attributes: {
    'db.system.name': 'mongodb', 'db.operation.name': 'find', 'db.collection.name': 'users', 'server.address': '127.0.0.1', 'server.port': 27017
  }
}))
const COUNT = describeDependency('mongodb', '127.0.0.1:27017', 'count', 'users', () => ({
  system: 'mongodb', operation: 'count', target: 'users', spanName: 'count users', attributes: { 'db.system.name': 'mongodb' }
}))
const API = describeDependency('https:', 'api.example', 'GET', '', () => ({
  system: 'http',
  operation: 'GET',
  target: 'api.example:443',
  spanName: 'GET',
  urlBase: 'https://api.example',
  attributes: { 'http.request.method': 'GET', 'server.address': 'api.example', 'server.port': 443 }
}))

function idSequence (first = 1) {
  let next = first
  return {
    generateSpanId: () => (next++).toString(16).padStart(16, '0'),
    write (target, offset) {
      target.write((next++).toString(16).padStart(16, '0'), offset, 8, 'hex')
    }
  }
}

const info = (kind, name) => ({ key: `${kind} ${name} /srv/app.js:1`, name, kind, file: '/srv/app.js', line: 1, spanTemplate: null })

function call (record, dependency, segment, startMs, endMs, extra = {}) {
  const made = Object.assign(new DependencyCall(dependency, segment, startMs), { endMs }, extra)
  if (record.dependencyCalls === null) record.dependencyCalls = []
  record.dependencyCalls.push(made)
  return made
}

/** auth (one find) then listUsers (a find and a count at once, a failed outgoing call, one left running). */
function recordWithCalls () {
  const record = new RequestRecord('GET', 1000)
  record.sampled = true
  record.traceId = '0af7651916cd43dd8448eb211c80319c'
  record.spanId = 'b7ad6b7169203331'
  const auth = record.openEntry(info('middleware', 'auth'))
  // An entry's start and end in the record's times, after the request's own (request-record.js).
  record.times[2 + auth * 2] = 1000
  record.closeEntry(auth, null)
  record.times[2 + auth * 2 + 1] = 1010
  const list = record.openEntry(info('handler', 'listUsers'))
  record.times[2 + list * 2] = 1010
  call(record, FIND, auth, 1002, 1006)
  call(record, FIND, list, 1011, 1021)
  call(record, COUNT, list, 1015, 1025)
  call(record, API, list, 1026, 1030, { url: '/v1/x?key=secret', statusCode: 503, error: '503' })
  call(record, API, list, 1031, -1, { url: '/v1/late' })
  record.route = '/users'
  record.finish({ statusCode: 500, getHeader: () => 'application/json' }, false)
  record.times[2 + list * 2 + 1] = 1040
  record.endMs = 1041
  record.serverAttributes = serverSpanAttributes({
    protocol: 'http',
    headers: { host: 'shop.example:8080', 'user-agent': 'curl/8' },
    httpVersion: '1.1',
    ip: '::1',
    socket: {}
  }, record)
  return record
}

test('a segment\'s dependency time: overlapping calls once, split among what was waited on, clipped to the segment', () => {
  const record = recordWithCalls()
  const times = attributeCalls(record)
  const rows = []
  for (let at = 0; at < times.length; at += 4) rows.push([times[at], times[at + 1].key, times[at + 2], times[at + 3]])
  assert.deepEqual(rows, [
    [0, 'mongodb find users', 1, 4],
    // find 1011-1021 and count 1015-1025: 4 ms alone, 6 ms split, 4 ms alone; the union is 14 ms.
    [1, 'mongodb find users', 1, 4 + 3],
    [1, 'mongodb count users', 1, 3 + 4],
    // 4 ms, and the call still running at the end counts until the segment's end (1040).
    [1, 'http GET api.example:443', 2, 4 + 9]
  ])
  const listUsers = rows.filter((row) => row[0] === 1).reduce((sum, row) => sum + row[3], 0)
  assert.ok(listUsers <= record.segmentDurationMs(1))
})

test('dependency CLIENT spans and the server span\'s attributes: the encoder writes the serializer\'s bytes', async () => {
  const resource = resources.resourceFromAttributes({ 'service.name': 'dependency-spans' })
  const spans = []
  const direct = new DirectSpanWriter({ onEnd: (span) => spans.push(span) }, resource, idSequence(), SCOPE)
  const encoder = new RecordSpanEncoder(idSequence())
  const writer = new ProtoWriter(64)
  const record = recordWithCalls()
  direct.write(record, '/users')
  encoder.write(writer, record, '/users')
  assert.equal(RecordSpanEncoder.spanCount(record), spans.length)
  const official = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans))
  const ours = frameExportRequest(encodeResource(resource.attributes), encodeScope(SCOPE), writer, 0, resource.schemaUrl)
  assert.ok(ours.equals(official), 'the encodings differ')

  const clients = spans.filter((span) => span.kind === 2)
  assert.equal(clients.length, 5)
  const [authSpan, listSpan] = spans
  assert.equal(clients[0].parentSpanContext.spanId, authSpan.spanContext().spanId)
  for (const client of clients.slice(1)) assert.equal(client.parentSpanContext.spanId, listSpan.spanContext().spanId)
  assert.equal(clients[0].name, 'find users')
  assert.equal(clients[0].attributes['db.collection.name'], 'users')
  const failed = clients[3]
  assert.equal(failed.attributes['url.full'], 'https://api.example/v1/x?key=REDACTED')
  assert.equal(failed.attributes['http.response.status_code'], 503)
  assert.equal(failed.attributes['error.type'], '503')
  assert.equal(failed.status.code, 2)
  // The call still running when the response ended ends with its segment.
  assert.deepEqual(clients[4].endTime, listSpan.endTime)

  const server = spans.find((span) => span.kind === 1)
  assert.deepEqual(
    Object.fromEntries(['url.scheme', 'server.address', 'server.port', 'network.protocol.version', 'client.address',
      'user_agent.original', 'error.type'].map((key) => [key, server.attributes[key]])),
    {
      'url.scheme': 'http',
      'server.address': 'shop.example',
      'server.port': 8080,
      'network.protocol.version': '1.1',
      'client.address': '::1',
      'user_agent.original': 'curl/8',
      'error.type': '500'
    })
})

test('url.full keeps the query\'s names, never its values; the server is read from a Host header or an origin', () => {
  assert.equal(fullUrl(urlBase('http', '127.0.0.1', 8080), '/a?x=1&y&z=%20'), 'http://127.0.0.1:8080/a?x=REDACTED&y&z=REDACTED')
  assert.equal(fullUrl(urlBase('https', '::1', 443), '/'), 'https://[::1]/')
  assert.deepEqual(hostAndPort('api.example', 'https'), { host: 'api.example', port: 443 })
  assert.deepEqual(hostAndPort('[::1]:3000', 'http'), { host: '::1', port: 3000 })
  assert.deepEqual(hostAndPort('http://127.0.0.1:8080', 'http'), { host: '127.0.0.1', port: 8080 })
  assert.deepEqual(hostAndPort('https://api.example', 'https'), { host: 'api.example', port: 443 })
})
