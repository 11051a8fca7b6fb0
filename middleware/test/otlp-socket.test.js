'use strict'

// nodebench's own OTLP/HTTP client (otlp-socket.js): a batch is one write on a kept-alive connection, the
// answer read as OTLPTraceExporter reads it; what it does not do goes to OpenTelemetry's delegate (retries of
// 429/502/503/504 and of connections lost before the answer, gzip, https). Against real HTTP servers.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const zlib = require('node:zlib')
const { parseResponse, requestHead } = require('../lib/otlp-socket')
const { createOtlpTransport } = require('../lib/otlp-export')
const { withEnv } = require('./helpers')

test('answers are read whole: a Content-Length, chunks, a body split across reads; anything else is an error', () => {
  const answer = (text) => parseResponse(Buffer.from(text, 'latin1'))
  assert.deepEqual(answer('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc'), {
    status: 200, headers: { 'content-length': '3' }, body: Buffer.from('abc'), close: false
  })
  assert.equal(answer('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab'), null, 'incomplete')
  assert.equal(answer('HTTP/1.1 200 OK\r\nContent-Le'), null, 'incomplete head')
  const chunked = answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n')
  assert.deepEqual([chunked.status, chunked.body.toString()], [200, 'abcde'])
  assert.equal(answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n'), null, 'no final line yet')
  assert.equal(answer('HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').close, true)
  assert.equal(answer('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').close, true)
  assert.match(answer('SSH-2.0-OpenSSH\r\n\r\n').error.message, /not HTTP/)
  assert.match(answer('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n').error.message, /Content-Length of -1/)
})

test('the request head: the endpoint, the configured headers, the delegate\'s User-Agent; a header it cannot write hands over', () => {
  const url = new URL('http://collector:4318/v1/traces?tenant=a')
  const head = requestHead(url, { 'Content-Type': 'application/x-protobuf', 'x-api-key': 'k', 'user-agent': 'mine' })
  assert.match(head, /^POST \/v1\/traces\?tenant=a HTTP\/1\.1\r\nHost: collector:4318\r\nContent-Type: application\/x-protobuf\r\nx-api-key: k\r\nUser-Agent: OTel-OTLP-Exporter-JavaScript\/\d+\.\d+\.\d+\r\nConnection: keep-alive\r\nContent-Length: $/)
  assert.equal(requestHead(url, { 'x-bad': 'a\r\nInjected: 1' }), null)
  assert.equal(requestHead(url, { Host: 'elsewhere' }), null)
})

/** A collector on loopback: `answer(req, res, body)` decides; it records each request's head and body. */
async function collector (answer) {
  const requests = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      requests.push({ headers: req.headers, body, socket: req.socket })
      answer(req, res, body, requests.length)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    server,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(resolve)
    })
  }
}

function exportBatch (transport, body) {
  return new Promise((resolve) => transport.export({ body, spans: 1 }, resolve))
}

test('batches go over one kept-alive connection; a connection the collector closed is replaced; an answer not 2xx is a failure', async () => {
  const sink = await collector((req, res, body, n) => {
    if (n === 3) {
      res.statusCode = 400
      res.end('bad batch')
      return
    }
    res.setHeader('Content-Type', 'application/x-protobuf')
    res.end()
    // After the second answer the collector closes the (now idle) connection.
    if (n === 2) setImmediate(() => req.socket.destroy())
  })
  try {
    await withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, async () => {
      const transport = createOtlpTransport()
      assert.equal(transport.constructor.name, 'SocketOtlpTransport')
      assert.deepEqual(await exportBatch(transport, Buffer.from('one')), { code: 0 })
      assert.deepEqual(await exportBatch(transport, Buffer.from('two')), { code: 0 })
      assert.equal(sink.requests[0].socket, sink.requests[1].socket, 'the same connection, kept alive')
      await new Promise((resolve) => setTimeout(resolve, 50))
      const failed = await exportBatch(transport, Buffer.from('three'))
      assert.equal(failed.code, 1)
      assert.match(failed.error.message, /answered 400: bad batch/)
      assert.notEqual(sink.requests[2].socket, sink.requests[1].socket, 'a new connection after the collector closed one')
      assert.deepEqual(sink.requests.map((r) => r.body.toString()), ['one', 'two', 'three'])
      assert.equal(sink.requests[0].headers['content-type'], 'application/x-protobuf')
      assert.match(sink.requests[0].headers['user-agent'], /^OTel-OTLP-Exporter-JavaScript\//)
      await transport.shutdown()
    })
  } finally {
    await sink.close()
  }
})

test('an answer OTLPTraceExporter would retry (503) goes to its delegate, which retries it; gzip goes to the delegate', async () => {
  const sink = await collector((req, res, body, n) => {
    res.statusCode = n === 1 ? 503 : 200
    if (n === 1) res.setHeader('Retry-After', '0')
    res.end()
  })
  try {
    await withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, async () => {
      const transport = createOtlpTransport()
      assert.deepEqual(await exportBatch(transport, Buffer.from('retried')), { code: 0 })
      assert.deepEqual(sink.requests.map((r) => r.body.toString()), ['retried', 'retried'], 'sent again by the delegate')
      await transport.shutdown()
    })
    await withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' }, async () => {
      const transport = createOtlpTransport()
      assert.notEqual(transport.constructor.name, 'SocketOtlpTransport')
      assert.equal((await exportBatch(transport, Buffer.from('zipped'))).code, 0)
      const last = sink.requests[sink.requests.length - 1]
      assert.equal(last.headers['content-encoding'], 'gzip')
      assert.equal(zlib.gunzipSync(last.body).toString(), 'zipped')
      await transport.shutdown()
    })
  } finally {
    await sink.close()
  }
})
