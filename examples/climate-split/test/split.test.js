'use strict'

// The KIT study's service on a real database and real processes: a read split across back-ends (concurrent and
// iterative) answers the same documents as the whole read, in order; one request is one trace across the
// front-end and every back-end, the back-ends' spans under the front-end's segment that waited on them; and
// `nodebench report --source jaeger` reads the fan-out back from those spans: each back-end's share and segments,
// and the critical path, in Markdown and on its page.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { MongoClient } = require('mongodb')
const { startDatabase } = require('@nodebench/services')
const { JaegerClient } = require('@nodebench/collector')
const { startTestJaeger, eventually } = require('../../../collector/test/helpers')
const { startProcess, runCli, temporaryDir } = require('../../../test/support')
const { seedMeasurements, measurementOf } = require('../lib/measurements')
const { splitRange, mergeJsonArrays } = require('../lib/frontend-app')

const EXAMPLE_DIR = path.join(__dirname, '..')
const DOCUMENTS = 3000

async function startTestDatabase (t) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-climate-'))
  const database = await startDatabase({ dataDir, onProgress: (message) => t.diagnostic(message) })
  t.after(async () => {
    await database.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return database
}

test('sub-tasks cover the read exactly, and merged answers are one array in order', () => {
  assert.deepEqual(splitRange(10, 3), [{ from: 0, to: 3 }, { from: 3, to: 6 }, { from: 6, to: 10 }])
  assert.deepEqual(splitRange(2, 4), [{ from: 0, to: 1 }, { from: 1, to: 2 }], 'no empty sub-task')
  assert.equal(mergeJsonArrays(['[1,2]', ' [] ', '[3]']), '[1,2,3]')
  assert.deepEqual(measurementOf(7), measurementOf(7), 'a measurement is made from its number alone')
})

test('whole, concurrent and iterative reads answer the same documents; one trace spans the front-end and its back-ends', { timeout: 180_000 }, async (t) => {
  const database = await startTestDatabase(t)
  const client = new MongoClient(database.uri)
  t.after(() => client.close())
  await client.connect()
  const seeded = await seedMeasurements(client, { count: DOCUMENTS })
  assert.deepEqual(seeded, { count: DOCUMENTS, inserted: DOCUMENTS, removed: 0 })
  assert.deepEqual(await seedMeasurements(client, { count: DOCUMENTS - 1000 }), { count: DOCUMENTS - 1000, inserted: 0, removed: 1000 })
  await seedMeasurements(client, { count: DOCUMENTS })

  const jaeger = await startTestJaeger(t)
  const started = new Date()
  const { match } = await startProcess(t, path.join(EXAMPLE_DIR, 'server.js'), ['--port', '0', '--backends', '3'], {
    env: { MONGODB_URI: database.uri, OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100', NODEBENCH: '' }
  })
  const base = match[1]
  const read = async (query) => {
    const response = await fetch(`${base}/api/measurements${query}`)
    assert.equal(response.status, 200, query)
    return response.json()
  }
  const whole = await read(`?documents=${DOCUMENTS}`)
  assert.equal(whole.length, DOCUMENTS)
  assert.deepEqual(whole[5], JSON.parse(JSON.stringify(measurementOf(5))), 'the documents as made')
  assert.deepEqual(await read(`/split?documents=${DOCUMENTS}&mode=concurrent`), whole)
  assert.deepEqual(await read(`/split?documents=${DOCUMENTS}&mode=iterative&subtasks=7`), whole)
  assert.deepEqual(await read('/split?documents=0'), [])
  const bad = await fetch(`${base}/api/measurements/split?documents=10&mode=sideways`)
  assert.equal(bad.status, 400)

  // The front-end's breakdown: where a split read's time went.
  const snapshot = await (await fetch(`${base}/__nodebench`, { headers: { accept: 'application/json' } })).json()
  const split = snapshot.operations.find((o) => o.route === '/api/measurements/split' && o.format === 'json' && o.errors === 0)
  assert.deepEqual(split.segments.map((s) => s.name), ['parseRead', 'planSubtasks', 'awaitBackends', 'mergeParts', 'writeMeasurements'])

  // One trace across the processes: the back-ends' requests under the front-end's awaitBackends.
  const jaegerClient = new JaegerClient({ url: jaeger.queryUrl })
  const spans = await eventually(async () => {
    const found = await jaegerClient.findAllSpans({ service: 'climate-frontend', start: new Date(started - 1000), end: new Date(), pageSize: 100 })
    const requests = found.filter((s) => s.attributes['nodebench.kind'] === 'request' && s.attributes['http.route'] === '/api/measurements/split' &&
      s.attributes['http.response.status_code'] === 200)
    const backendRequests = (traceId) => found.filter((o) => o.traceId === traceId && o.service === 'climate-backend' &&
      o.attributes['nodebench.kind'] === 'request')
    const concurrent = requests.find((s) => backendRequests(s.traceId).length === 3)
    return concurrent === undefined ? undefined : found.filter((s) => s.traceId === concurrent.traceId)
  }, { timeoutMs: 60_000 })
  const waiting = spans.find((s) => s.name === 'handler - awaitBackends')
  const backendRequests = spans.filter((s) => s.service === 'climate-backend' && s.attributes['nodebench.kind'] === 'request')
  assert.equal(backendRequests.length, 3)
  for (const backendRequest of backendRequests) {
    assert.equal(backendRequest.parentSpanId, waiting.spanId, 'a back-end\'s request hangs under the front-end\'s awaitBackends')
    assert.ok(spans.some((s) => s.parentSpanId === backendRequest.spanId && s.name === 'handler - streamDocuments'), 'and its own segments under it')
  }

  // The fan-out, read back from Jaeger by the CLI: every back-end a process of its own, the critical path named.
  const out = temporaryDir(t, 'nodebench-climate-report-')
  const report = await runCli(['report', '--source', 'jaeger', '--jaeger', jaeger.queryUrl, '--service', 'climate-frontend',
    '--since', '10m', '--md', '--out', out], { timeout: 120_000 })
  assert.equal(report.code, 0, report.stderr)
  const fanOut = report.stdout.slice(report.stdout.indexOf('## Fan-out: the processes each request called'))
  assert.match(fanOut, /^## Fan-out: the processes each request called\n\n### GET \/api\/measurements\/split \\\[json\\\]: \d+ requests? that called other processes, mean [\d.]+ ms\n/)
  const calleeRows = fanOut.split('\n').filter((line) => /^\| climate-backend \S+ \| \d/.test(line))
  assert.equal(calleeRows.length, 3, 'each back-end is a process of its own')
  for (const row of calleeRows) assert.match(row, /\| [\d.]+% \| streamDocuments [\d.]+%/)
  assert.match(fanOut, /Critical path \(the call that ended last in each request\): mean [\d.]+ ms, [\d.]+% of the request's time; it was climate-backend \S+ \(\d+ of \d+\)/)
  assert.match(fanOut, /\| streamDocuments \| handler \| [\d.]+ \| [\d.]+% \|/)
  const page = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(page, /<h3>Fan-out: GET \/api\/measurements\/split \[json\]/)
  assert.match(page, /Critical path \(the call that ended last in each request\)/)
})
