'use strict'

// A stand-in for a local OpenTelemetry collector: accepts OTLP/HTTP trace exports, reads and discards them,
// and answers as a collector does, so the exporter in the app under test does all the work it does in
// production (serialize, send, wait for the answer) while this process stays light. Run as its own process
// so it does not share the app's thread:
//
//   node benchmarks/otlp-sink.js [--port 0]
//
// Prints `listening on http://127.0.0.1:<port>`. `GET /stats` answers { requests, bytes, spans } received so
// far: spans are counted by walking the protobuf envelope (ExportTraceServiceRequest > ResourceSpans >
// ScopeSpans > Span) without decoding the spans themselves.

const http = require('node:http')
const { parseArgs } = require('node:util')

// An ExportTraceServiceResponse with no partial_success field: zero bytes of protobuf.
const EMPTY_EXPORT_RESPONSE = Buffer.alloc(0)

/** Reads the varint at `offset`; returns [value, next offset]. Lengths and tags fit in 2^53. */
function readVarint (buffer, offset) {
  let value = 0
  let multiplier = 1
  for (;;) {
    if (offset >= buffer.length) throw new RangeError('truncated varint')
    const byte = buffer[offset++]
    value += (byte & 0x7f) * multiplier
    if (byte < 0x80) return [value, offset]
    multiplier *= 128
  }
}

/** Calls onField(fieldNumber, start, end) for each length-delimited field of the message in buffer[start, end). */
function forEachLengthDelimited (buffer, start, end, onField) {
  let offset = start
  while (offset < end) {
    let tag
    ;[tag, offset] = readVarint(buffer, offset)
    const wireType = tag & 7
    if (wireType === 0) [, offset] = readVarint(buffer, offset)
    else if (wireType === 1) offset += 8
    else if (wireType === 5) offset += 4
    else if (wireType === 2) {
      let length
      ;[length, offset] = readVarint(buffer, offset)
      onField(Math.floor(tag / 8), offset, offset + length)
      offset += length
    } else {
      throw new RangeError(`unsupported protobuf wire type ${wireType}`)
    }
  }
}

/** Spans in an OTLP ExportTraceServiceRequest: resource_spans (1) > scope_spans (2) > spans (2). */
function countSpans (body) {
  let spans = 0
  forEachLengthDelimited(body, 0, body.length, (field, start, end) => {
    if (field !== 1) return
    forEachLengthDelimited(body, start, end, (field, start, end) => {
      if (field !== 2) return
      forEachLengthDelimited(body, start, end, (field) => {
        if (field === 2) spans++
      })
    })
  })
  return spans
}

function createSink () {
  const stats = { requests: 0, bytes: 0, spans: 0, undecodable: 0, metricExports: 0, metricBytes: 0 }

  const server = http.createServer(function handleOtlp (req, res) {
    if (req.method === 'POST' && req.url === '/v1/traces') {
      stats.requests++
      const chunks = []
      req.on('data', (chunk) => {
        stats.bytes += chunk.length
        chunks.push(chunk)
      })
      req.on('end', () => {
        try {
          stats.spans += countSpans(Buffer.concat(chunks))
        } catch {
          stats.undecodable++
        }
        res.writeHead(200, {
          'Content-Type': 'application/x-protobuf',
          'Content-Length': EMPTY_EXPORT_RESPONSE.length
        })
        res.end(EMPTY_EXPORT_RESPONSE)
      })
      return
    }
    // The nodebench-metrics variant's pushes: accepted and counted, not decoded.
    if (req.method === 'POST' && req.url === '/v1/metrics') {
      stats.metricExports++
      req.on('data', (chunk) => { stats.metricBytes += chunk.length })
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': EMPTY_EXPORT_RESPONSE.length })
        res.end(EMPTY_EXPORT_RESPONSE)
      })
      return
    }
    if (req.method === 'GET' && req.url === '/stats') {
      const body = JSON.stringify(stats)
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
      res.end(body)
      return
    }
    req.resume()
    res.writeHead(404, { 'Content-Length': 0 })
    res.end()
  })
  return { server, stats }
}

function main () {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { port: { type: 'string', default: '0' } } })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`--port must be an integer from 0 to 65535; received ${JSON.stringify(values.port)}`)
  }
  const { server } = createSink()
  // Idle exporter connections stay open, as a collector's do (Go's http.Server has no idle timeout unless
  // configured); fixed-requests.js pauses for seconds between checkpoints.
  server.keepAliveTimeout = 0
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`)
  })
  process.on('SIGTERM', () => {
    server.close()
    server.closeAllConnections()
    process.exit(0)
  })
}

if (require.main === module) {
  main()
}

module.exports = { createSink, countSpans }
