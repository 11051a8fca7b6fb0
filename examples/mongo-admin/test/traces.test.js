'use strict'

// The study's app traced into a real Jaeger (built from its Go module) on a real embedded database (FerretDB):
// what its document, collection and view operations wait on, read back as the study timed it. Each request's
// HTTP server span carries the semantic conventions' attributes; each MongoDB command is a CLIENT span under the
// span of the segment that ran it, with the db.* attributes and never a query's values; the breakdown read back
// from Jaeger says, per segment, how much of it was the database's, as the app's own breakdown does.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { MongoClient } = require('mongodb')
const { startJaeger, JaegerClient, breakdownFromJaeger } = require('@nodebench/collector')
const { startServer } = require('../lib/serve')
const { seed } = require('../seed')
const { startTestDatabase } = require('./helpers')
const { runCli } = require('../../../test/support')

const USER_AGENT = 'nodebench-traces-test/1.0'
const SPAN_KIND_CLIENT = 3
const STATUS_ERROR = 2

/** The spans of mongo-admin Jaeger holds since `start`, once `done(spans)` says all have arrived (bounded wait). */
async function spansOnceIn (client, start, done) {
  let spans = []
  for (let attempt = 0; attempt < 120; attempt++) {
    spans = await client.findSpans({ service: 'mongo-admin', start, end: new Date(Date.now() + 60_000), limit: 1000 })
    if (done(spans)) return spans
    await sleep(250)
  }
  return spans
}

const isRequest = (span) => span.attributes['nodebench.kind'] === 'request'

test('Jaeger holds the request spans\' HTTP attributes and each MongoDB command as a CLIENT span under its segment; the breakdown read back says how much of each segment was the database\'s', { timeout: 240_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-mongo-admin-traces-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const jaeger = await startJaeger({ logFile: path.join(dir, 'jaeger.log'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => jaeger.stop())
  const database = await startTestDatabase(t)
  const client = new MongoClient(database.uri)
  const { documentId } = await seed(client, { count: 50 })
  await client.close()

  const savedEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpHttpEndpoint
  t.after(() => {
    if (savedEndpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = savedEndpoint
  })
  const server = await startServer({
    uri: database.uri, port: 0, host: '127.0.0.1', trace: true, exporter: 'otlp', sampleRatio: 1, requestLog: false, log: () => {}
  })
  t.after(server.stop)
  const base = `http://127.0.0.1:${server.port}`
  const send = async (method, url, { accept = 'application/json', body } = {}) => {
    const response = await fetch(base + url, {
      method,
      redirect: 'manual',
      headers: { 'user-agent': USER_AGENT, accept, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined
    })
    await response.arrayBuffer()
    return response.status
  }

  const start = new Date(Date.now() - 1000)
  // The first requests turn the observation of calls on (the driver is found at the app's first request).
  assert.equal(await send('GET', `/api/db/nodebench/users/${documentId}`), 200)
  for (let i = 0; i < 5; i++) {
    assert.equal(await send('GET', `/api/db/nodebench/users/${documentId}`), 200)
    assert.equal(await send('GET', `/db/nodebench/users/${documentId}`, { accept: 'text/html' }), 200)
    assert.equal(await send('GET', '/api/db/nodebench/users'), 200)
    assert.equal(await send('POST', '/api/db/nodebench/users', { body: { username: `traced-${i}` } }), 201)
  }

  // The app's own breakdown: the document, collection and write operations say how much was the database's.
  const own = await (await fetch(`${base}/__nodebench`)).json()
  const segmentOf = (snapshot, operation, name) =>
    snapshot.operations.find((o) => `${o.method} ${o.route}` === operation).segments.find((s) => s.name === name)
  const waits = (segment) => (segment.dependencies ?? []).map((d) => `${d.system} ${d.operation} ${d.target}`).sort()
  // The database's: a JSON handler also has `serialize json` (its res.json), which has no span to read back.
  const databaseWaits = (segment) => waits(segment).filter((wait) => wait.startsWith('mongodb '))
  for (const [route, name, expected] of [
    ['GET /api/db/:database/:collection/:document', 'document', ['mongodb find users']],
    ['GET /db/:database/:collection/:document', 'document', ['mongodb find users']],
    ['GET /api/db/:database/:collection', 'viewCollection', ['mongodb count users', 'mongodb find users']],
    ['POST /api/db/:database/:collection', 'addDocument', ['mongodb insert users']]
  ]) {
    const segment = segmentOf(own, route, name)
    assert.deepEqual(databaseWaits(segment), expected, `${route} ${name}`)
    const waited = segment.dependencies.reduce((sum, d) => sum + d.share, 0)
    assert.ok(waited > 0 && waited <= segment.share + 1e-9, `${route} ${name}: the database's ${waited} of the segment's ${segment.share}`)
  }
  assert.ok(waits(segmentOf(own, 'GET /api/db/:database/:collection', 'viewCollection')).includes('serialize json '), 'the JSON answer\'s serialisation')

  await server.trace.flush()
  const jaegerClient = new JaegerClient({ url: jaeger.queryUrl })
  const spans = await spansOnceIn(jaegerClient, start, (found) => found.filter(isRequest).length >= 21)
  assert.equal(spans.filter(isRequest).length, 21, 'every request\'s span')
  const byId = new Map(spans.map((span) => [span.spanId, span]))

  // The request span: the semantic conventions' server attributes.
  const read = spans.find((span) => isRequest(span) && span.attributes['http.route'] === '/api/db/:database/:collection/:document')
  assert.equal(read.kind, 2, 'a SERVER span')
  const attributes = read.attributes
  assert.equal(attributes['url.scheme'], 'http')
  assert.equal(attributes['server.address'], '127.0.0.1')
  assert.equal(attributes['server.port'], server.port)
  assert.equal(attributes['network.protocol.version'], '1.1')
  assert.match(attributes['client.address'], /^(::ffff:)?127\.0\.0\.1$/)
  assert.equal(attributes['user_agent.original'], USER_AGENT)
  assert.equal(attributes['http.response.status_code'], 200)
  assert.equal(attributes['error.type'], undefined, 'no error.type on a success')

  // Each MongoDB command: a CLIENT span under the span of the segment that ran it, its values never written.
  const finds = spans.filter((span) => span.kind === SPAN_KIND_CLIENT && span.name === 'find users')
  assert.ok(finds.length >= 10, `${finds.length} find spans`)
  const readFind = finds.find((span) => span.traceId === read.traceId)
  const parent = byId.get(readFind.parentSpanId)
  assert.equal(parent.attributes['nodebench.kind'], 'param')
  assert.equal(parent.attributes['code.function.name'] ?? parent.name, 'document')
  assert.deepEqual(
    ['db.system.name', 'db.operation.name', 'db.collection.name', 'db.namespace', 'server.address', 'server.port'].map((key) => readFind.attributes[key]),
    ['mongodb', 'find', 'users', 'nodebench', '127.0.0.1', database.port])
  assert.ok(readFind.startNs >= parent.startNs && readFind.endNs <= parent.endNs + 1_000_000n, 'within its segment')
  assert.ok(!JSON.stringify(spans.filter((span) => span.kind === SPAN_KIND_CLIENT).map((span) => span.attributes)).includes(documentId),
    'no query value in any CLIENT span')
  const insert = spans.find((span) => span.kind === SPAN_KIND_CLIENT && span.name === 'insert users')
  assert.equal(byId.get(insert.parentSpanId).attributes['nodebench.kind'], 'handler')
  assert.ok(!JSON.stringify(insert.attributes).includes('traced-'), 'no document written in the span')

  // The breakdown read back from Jaeger: the same dependencies under the same segments as the app's own.
  const fromJaeger = await breakdownFromJaeger({ url: jaeger.queryUrl, service: 'mongo-admin', since: start })
  for (const [route, name] of [
    ['GET /api/db/:database/:collection/:document', 'document'],
    ['GET /api/db/:database/:collection', 'viewCollection'],
    ['POST /api/db/:database/:collection', 'addDocument']
  ]) {
    const segment = segmentOf(fromJaeger, route, name)
    assert.deepEqual(waits(segment), databaseWaits(segmentOf(own, route, name)), `${route} ${name} from Jaeger`)
    for (const dependency of segment.dependencies) {
      assert.ok(dependency.count >= 0.8 && dependency.count <= 1, `${name}: ${dependency.count} calls a request`)
      assert.ok(dependency.share > 0 && dependency.meanMs <= segment.meanMs + 1e-9)
    }
  }

  // `nodebench report --source jaeger`: each command on the row under the segment that ran it.
  const report = await runCli(['report', '--source', 'jaeger', '--jaeger', jaeger.queryUrl, '--service', 'mongo-admin',
    '--since', start.toISOString(), '--md'])
  assert.equal(report.code, 0, report.stderr)
  const section = report.stdout.slice(report.stdout.indexOf('### GET /api/db/:database/:collection \\[json\\]'))
  const lines = section.split('\n')
  const handler = lines.findIndex((line) => /^\| \d+ \| viewCollection \| handler \|/.test(line))
  assert.ok(handler > 0, section)
  assert.match(lines[handler + 1], /^\| +\| +└ mongodb (find|count) users \| dependency \| [\d.]+ calls? \| [\d.]+ \|/)
  assert.match(lines[handler + 2], /^\| +\| +└ mongodb (find|count) users \| dependency \|/)

  // A failure: the database gone, the read answers 503; its span says so with error.type.
  await database.stop()
  assert.equal(await send('GET', `/api/db/nodebench/users/${documentId}`), 503)
  await server.trace.flush()
  const failed = (await spansOnceIn(jaegerClient, start, (found) =>
    found.some((span) => isRequest(span) && span.attributes['http.response.status_code'] === 503)))
    .find((span) => isRequest(span) && span.attributes['http.response.status_code'] === 503)
  assert.ok(failed, 'the failed request\'s span')
  assert.equal(failed.attributes['error.type'], '503')
  assert.equal(failed.status.code, STATUS_ERROR)
  assert.equal(failed.attributes['user_agent.original'], USER_AGENT)
})
