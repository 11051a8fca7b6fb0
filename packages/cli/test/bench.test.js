'use strict'

// `nodebench bench`: its options, the pieces of a run, and real runs of the example app on a real
// database (small amounts), including the ways a run goes wrong.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { MongoClient } = require('mongodb')
const { startDatabase, freeLoopbackPort } = require('@nodebench/services')
const { parseBenchArguments } = require('../lib/commands/bench')
const { cellsOf } = require('../lib/kernel/plan')
const { cellFigures } = require('../lib/kernel/repetition')
const { requestsOf } = require('../lib/kernel/workload')
const { temporaryDir, runCli } = require('../../../test/support')

const STUDY_WORKLOAD = path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin', 'nodebench.workload.js')

const usage = (message) => (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message)

test('options: the study\'s matrix by default, --quick, overrides, and usage errors', () => {
  const { config } = parseBenchArguments([], { now: new Date('2026-11-21T10:00:00Z') })
  assert.deepEqual(config.scenarios, ['doc-read', 'write', 'collection-read'])
  assert.deepEqual(config.formats, ['html', 'json'])
  assert.deepEqual(config.processes, [1, 2, 3, 4, 8])
  assert.equal(config.reps, 5)
  assert.deepEqual(config.connections, { 'doc-read': 100, write: 25, 'collection-read': 100 })
  assert.deepEqual(config.amounts, { 'doc-read': 5000, write: 5000, 'collection-read': 5000 })
  assert.match(config.target.app, /examples[/\\]mongo-admin$/)
  assert.equal(config.outDir, path.resolve('runs', '2026-11-21T10-00-00-000Z'))

  const quick = parseBenchArguments(['--quick']).config
  assert.deepEqual([quick.processes, quick.reps, quick.warmup], [[1, 2], 1, 50])
  assert.deepEqual(quick.amounts, { 'doc-read': 500, write: 500, 'collection-read': 100 })

  const custom = parseBenchArguments(['--scenarios', 'write,doc-read', '--formats', 'json', '--processes', '4,1,4', '--reps', '2',
    '--connections', '10', '--duration', '3', '--out', 'x']).config
  assert.deepEqual([custom.scenarios, custom.formats, custom.processes, custom.reps], [['write', 'doc-read'], ['json'], [1, 4], 2])
  assert.deepEqual([custom.connections, custom.amounts, custom.duration], [{ write: 10, 'doc-read': 10 }, { write: null, 'doc-read': null }, 3])

  const external = parseBenchArguments(['--url', 'http://127.0.0.1:9/', '--workload', STUDY_WORKLOAD]).config
  assert.deepEqual([external.target.app, external.target.url, external.processes], [null, 'http://127.0.0.1:9', [1]])
  assert.equal(external.workload.file, STUDY_WORKLOAD)

  for (const [argv, message] of [
    [['--scenarios', 'doc-read,browse'], /unknown scenario 'browse'; expected one of doc-read, write, collection-read, review-list, review-create/],
    [['--formats', 'xml'], /unknown format 'xml'; expected one of html, json/],
    [['--processes', 'two'], /--processes must be a whole number from 1 to 64; received 'two'/],
    [['--amount', '1e3x'], /--amount must be a whole number/],
    [['--reps', '0'], /--reps must be a whole number from 1 to 100/],
    [['--amount', '10', '--duration', '5'], /--amount and --duration exclude each other/],
    [['--cmd', 'node app.js'], /--cmd needs --url/],
    [['--url', 'nowhere'], /--url 'nowhere' is not a URL/],
    [['--url', 'http://x', '--processes', '1,2', '--workload', STUDY_WORKLOAD], /several --processes need an app nodebench starts/],
    [['--app', 'a', '--url', 'http://x'], /--app excludes --cmd and --url/],
    [['--fast'], /unknown option '--fast'$/]
  ]) {
    assert.throws(() => parseBenchArguments(argv), usage(message), argv.join(' '))
  }
})

test('cells run process counts outermost; each scenario sends its request and expects its status', () => {
  const { config } = parseBenchArguments(['--scenarios', 'doc-read,write', '--formats', 'html,json', '--processes', '1,2'])
  assert.deepEqual(cellsOf(config).map((c) => `${c.processes} ${c.scenario} ${c.format}`), [
    '1 doc-read html', '1 doc-read json', '1 write html', '1 write json',
    '2 doc-read html', '2 doc-read json', '2 write html', '2 write json'
  ])
  const scenarios = config.workload.scenarios
  const { flow, ...docRead } = requestsOf(scenarios['doc-read'], 'json', { documentId: 'abc' })
  assert.equal(flow.dynamic, false)
  assert.deepEqual(docRead, {
    method: 'GET',
    status: 200,
    requests: [{ method: 'GET', path: '/api/db/nodebench/users/abc', headers: { accept: 'application/json' }, body: undefined }],
    where: 'requests.json'
  })
  assert.equal(requestsOf(config.workload.scenarios['collection-read'], 'html').requests[0].path, '/db/nodebench/users')
  const formWrite = requestsOf(scenarios.write, 'html')
  assert.equal(formWrite.status, 302)
  assert.equal(formWrite.requests[0].headers['content-type'], 'application/x-www-form-urlencoded')
  assert.equal(new URLSearchParams(formWrite.requests[0].body).get('document'), '{"username":"nodebench-bench"}')
  const jsonWrite = requestsOf(scenarios.write, 'json')
  assert.deepEqual([jsonWrite.status, jsonWrite.requests[0].body, jsonWrite.requests[0].headers['content-type']],
    [201, '{"username":"nodebench-bench"}', 'application/json'])
})

test('a cell\'s figures: throughput mean and spread, latency means, everything that went wrong summed', () => {
  const rep = (requestsPerSec, p99, extra = {}) => ({
    requestsPerSec,
    latencyMs: { mean: p99 / 2, p50: p99 / 3, p75: p99 / 2, p90: p99 * 0.8, p97_5: p99 * 0.9, p99, max: p99 * 2 },
    requests: 100,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    unexpectedStatus: 0,
    statusCodes: { 200: 100 },
    bytesPerResponse: 111,
    durationSec: 0.2,
    ...extra
  })
  const figures = cellFigures([rep(500, 30), rep(700, 50, { errors: 2, non2xx: 3, unexpectedStatus: 3, statusCodes: { 200: 97, 500: 3 } })])
  assert.deepEqual(figures.requestsPerSec, { mean: 600, min: 500, max: 700 })
  assert.equal(figures.latencyMs.p99, 40)
  assert.deepEqual([figures.requests, figures.errors, figures.non2xx, figures.unexpectedStatus], [200, 2, 3, 3])
  assert.deepEqual(figures.statusCodes, { 200: 197, 500: 3 })
})

test('a real run: every cell measured, the breakdown of each, writes cleaned up, results and report written', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-')
  const database = await startDatabase({ dataDir: path.join(dir, 'data'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => database.stop())
  const out = path.join(dir, 'run')
  const env = { ...process.env, MONGODB_URI: database.uri }
  const run = await runCli(['bench', '--scenarios', 'doc-read,write', '--processes', '1,2', '--amount', '60', '--warmup', '10',
    '--reps', '2', '--connections', '10', '--out', out], { env })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /\[8\/8\] document write \(json\), 2 processes/)
  assert.match(run.stderr, /8 of 8 cells measured/)
  assert.match(run.stderr, /report .*report\.html/)
  assert.match(run.stdout, /GET \/api\/db\/:database\/:collection\/:document \[json\]: 120 requests/)
  assert.match(run.stdout, /document read \(json\)\s+document\s+\d+\.\d\d%\s+study 96\.65%/)

  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.schema, 3)
  assert.equal(results.machine.cores, os.availableParallelism())
  assert.equal(results.machine.database.name, 'FerretDB')
  assert.equal(results.cells.length, 8)
  for (const cell of results.cells) {
    const name = `${cell.scenario} ${cell.format} ${cell.processes}`
    assert.equal(cell.status, 'ok', `${name}: ${cell.failure}`)
    assert.equal(cell.reps.length, 2)
    assert.equal(cell.requests, 120, name)
    assert.equal(cell.unexpectedStatus, 0, name)
    assert.equal(cell.errors, 0, name)
    assert.ok(cell.requestsPerSec.min <= cell.requestsPerSec.mean && cell.requestsPerSec.mean <= cell.requestsPerSec.max)
    const operation = cell.breakdown.operations.find((o) =>
      o.method === cell.operation.method && o.route === cell.operation.route && o.format === cell.operation.format)
    assert.ok(operation, `${name}: its operation in the breakdown`)
    assert.equal(operation.count, 120, `${name}: the breakdown counts the measured requests, not the warm-up`)
    const expected = cell.scenario === 'write' ? 'addDocument' : 'document'
    assert.ok(operation.segments.some((s) => s.name === expected), `${name}: ${expected} is a segment`)
    // Each repetition's own figures (schema 2): its requests of the operation, the segments' times adding up.
    const perRep = cell.reps.map((rep) => rep.operations.find((o) => o.route === operation.route && o.format === operation.format))
    assert.deepEqual(perRep.map((o) => o.count), [60, 60], `${name}: each repetition's requests`)
    const segmentMs = (o, segmentName) => o.segments.find((s) => s.name === segmentName).totalMs
    const repsMs = perRep.reduce((sum, o) => sum + segmentMs(o, expected), 0)
    assert.ok(Math.abs(repsMs - segmentMs(operation, expected)) < 0.01, `${name}: repetitions' ${expected} ${repsMs} ms, the cell's ${segmentMs(operation, expected)} ms`)
    for (const o of perRep) assert.ok(o.segments.reduce((sum, s) => sum + s.share, 0) <= 1.0001, `${name}: shares within a repetition`)
    if (cell.processes === 2) assert.equal(cell.breakdown.processes.length, 2, `${name}: both workers merged`)
  }
  const htmlWrite = results.cells.find((c) => c.scenario === 'write' && c.format === 'html')
  assert.equal(htmlWrite.non2xx, 120, 'the form\'s redirects are non-2xx, as Apache Bench counts them')
  assert.deepEqual(htmlWrite.statusCodes, { 302: 120 })
  assert.equal(results.cells.find((c) => c.scenario === 'doc-read' && c.format === 'json').bytesPerResponse, 111)

  const client = new MongoClient(database.uri)
  t.after(() => client.close())
  assert.equal(await client.db('nodebench').collection('users').countDocuments(), 1000, 'the writes were cleaned up')
  assert.ok(fs.statSync(path.join(out, 'report.html')).size > 10_000)
  assert.ok(fs.existsSync(path.join(out, 'report.md')))
})

test('an unreachable --url or an app that does not start: one line, exit 1, the results so far written', { timeout: 120_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-')
  const url = `http://127.0.0.1:${await freeLoopbackPort()}` // a port just freed: nothing listens on it
  const unreachable = await runCli(['bench', '--url', url, '--workload', STUDY_WORKLOAD, '--scenarios', 'doc-read', '--out', path.join(dir, 'a')])
  assert.equal(unreachable.code, 1)
  assert.match(unreachable.stderr, new RegExp(`^nodebench: ${url.replace(/\./g, '\\.')} is not reachable \\(ECONNREFUSED\\)$`, 'm'))
  assert.doesNotMatch(unreachable.stderr, /\n\s+at /, 'no stack trace')
  const written = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'results.json'), 'utf8'))
  assert.equal(written.cells[0].status, 'failed')
  assert.ok(fs.existsSync(path.join(dir, 'a', 'report.html')), 'the report shows the failed cell')

  const crashing = await runCli(['bench', '--cmd', `"${process.execPath}" -e "process.exit(3)" {processes}`, '--url', url, '--workload', STUDY_WORKLOAD,
    '--scenarios', 'doc-read', '--formats', 'json', '--processes', '1,2', '--out', path.join(dir, 'b')])
  assert.equal(crashing.code, 1)
  assert.match(crashing.stderr, /^nodebench: the app exited \(code 3\) before http:\/\/127\.0\.0\.1:\d+ answered$/m)
  assert.match(crashing.stderr, /^nodebench bench: 0 of 1 cells measured in \d+ s; the run stopped: 1 of its 2 cells not run$/m)
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'b', 'results.json'), 'utf8')).cells[0].failure,
    `the app exited (code 3) before ${url} answered`)

  // An app that throws as it starts: the line says what it threw, not the end of its stack.
  const throwing = await runCli(['bench', '--cmd', `"${process.execPath}" -e "require('no-such-module-for-nodebench')"`, '--url', url,
    '--workload', STUDY_WORKLOAD, '--scenarios', 'doc-read', '--formats', 'json', '--out', path.join(dir, 'c')])
  assert.equal(throwing.code, 1)
  assert.match(throwing.stderr, /^nodebench: the app exited \(code 1\) before http:\/\/127\.0\.0\.1:\d+ answered:\n {2}Error: Cannot find module 'no-such-module-for-nodebench'\n/m)
})

test('the progress bar on a terminal: its ETA said as unknown until a cell is done, then minutes and seconds', () => {
  const { progressReporter, etaText } = require('../lib/commands/bench')
  assert.equal(etaText(0, 0, 12), 'ETA after the first cell')
  assert.equal(etaText(10_000, 1, 12), 'ETA 1m 50s')
  assert.equal(etaText(4000, 2, 3), 'ETA 2s')
  assert.equal(etaText(3_600_000, 1, 3), 'ETA 2h 00m')
  assert.equal(etaText(5000, 3, 3), 'done')
  let written = ''
  const stderr = { isTTY: true, columns: 160, write (text) { written += text; return true }, cursorTo () {}, clearLine () {}, moveCursor () {}, on () {}, removeListener () {} }
  const workload = { scenarios: { 'item-read': { label: 'item read' } } }
  const progress = progressReporter(stderr, workload)
  const cell = { scenario: 'item-read', format: 'json', processes: 1 }
  progress.onCell({ type: 'start', index: 0, total: 2, cell })
  progress.onCell({ type: 'end', index: 0, total: 2, cell, record: { status: 'ok' } })
  progress.onCell({ type: 'start', index: 1, total: 2, cell })
  progress.stop()
  assert.match(written, /0\/2 cells \| item read \(json\), 1 process \| elapsed \d+s \| ETA after the first cell/)
  assert.match(written, /1\/2 cells \| .* \| ETA \d+s/)
  assert.doesNotMatch(written, /NF|NaN|INF|NULL/)
})

test('a cell counts the spans dropped while it ran, not since its app started', () => {
  const { droppedInWindow } = require('../lib/kernel/breakdown-source')
  const reset = { dropped: { spans: 6242, operations: 0 } }
  const read = { operations: [], dropped: { spans: 6942, operations: 2 } }
  assert.deepEqual(droppedInWindow(reset, read), { operations: [], dropped: { spans: 700, operations: 2 } })
  assert.deepEqual(read.dropped.spans, 6942, 'the snapshot read is not changed')
  assert.equal(droppedInWindow(null, read), read, 'no reset snapshot (another source): as read')
  assert.equal(droppedInWindow(reset, null), null)
  assert.deepEqual(droppedInWindow({ dropped: { spans: 10 } }, { dropped: { spans: 4 } }).dropped.spans, 0, 'a restarted app: never negative')
})
