'use strict'

// nodebench-test: once. Jaeger is built with Go and the report renders what it holds (span export runs on every line in middleware/test and collector/test): the Node.js version does not change what this tests.
// `nodebench report` against a real Jaeger fed by a real traced app, and `nodebench services ... jaeger`.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { startJaeger, JaegerClient, readTrace } = require('@nodebench/collector')
const { readExemplars } = require('../lib/report/run')
const { parseArguments } = require('..')
const { waterfallText } = require('../lib/render/waterfall')
const { checkReportInBrowser } = require('./page-check')
const { temporaryDir, runCli, servicesEnv, startProcess } = require('../../../test/support')

test('parseArguments: report', () => {
  const { outDir, ...jaeger } = parseArguments(['report', '--service', 'svc'], {})
  assert.deepEqual(jaeger, { command: 'report', source: 'jaeger', jaeger: 'http://localhost:16686', service: 'svc', since: '10m', format: 'table' })
  assert.match(outDir, /[/\\]runs[/\\]report-\d{4}-\d\d-\d\dT[\d-]+Z$/, 'from Jaeger, a page of its traces by default')
  assert.deepEqual(parseArguments(['report', '--since', '1h', '--json', '--out', 'r'], { OTEL_SERVICE_NAME: 'svc', JAEGER_QUERY_URL: 'http://j:1' }),
    { command: 'report', source: 'jaeger', jaeger: 'http://j:1', service: 'svc', since: '1h', format: 'json', outDir: path.resolve('r') })
  assert.deepEqual(parseArguments(['report', '--source', 'app', '--url', 'http://a/__nodebench', '--md'], {}),
    { command: 'report', source: 'app', url: 'http://a/__nodebench', headers: {}, format: 'md', outDir: null })
  assert.deepEqual(parseArguments(['report', '--trace', '0af7651916cd43dd8448eb211c80319c'], { JAEGER_QUERY_URL: 'http://j:1' }),
    { command: 'report', source: 'jaeger', jaeger: 'http://j:1', trace: '0af7651916cd43dd8448eb211c80319c', format: 'text' })
  assert.deepEqual(parseArguments(['report', '--source', 'app', '--url', 'http://a/x', '--header', 'X-Nodebench-Token: a:b', '--header', 'authorization:Bearer t'], {}).headers,
    { 'x-nodebench-token': 'a:b', authorization: 'Bearer t' })
  assert.deepEqual(parseArguments(['report', '--source', 'prometheus', '--service', 'shop', '--since', '1h'], {}),
    { command: 'report', source: 'prometheus', prometheus: null, service: 'shop', since: '1h', format: 'table', outDir: null, notices: [] })
  assert.deepEqual(parseArguments(['report', '--source', 'prometheus', '--md'], { OTEL_SERVICE_NAME: 'shop', PROMETHEUS_URL: 'http://p:9090' }),
    { command: 'report', source: 'prometheus', prometheus: 'http://p:9090', service: 'shop', since: '10m', format: 'md', outDir: null, notices: [] })
  assert.equal(parseArguments(['report', '--source', 'prometheus', '--service', 's', '--prometheus', 'http://p:1'], { PROMETHEUS_URL: 'http://q:2' }).prometheus,
    'http://p:1')
  // The old spelling: --url is Prometheus's address still, with a line saying so.
  assert.deepEqual(parseArguments(['report', '--source', 'prometheus', '--service', 's', '--url', 'http://p:1'], {}),
    { command: 'report', source: 'prometheus', prometheus: 'http://p:1', service: 's', since: '10m', format: 'table', outDir: null, notices: ['--url with --source prometheus is deprecated: use --prometheus <url>'] })
  for (const [argv, message] of [
    [['report'], /--service is required/],
    [['report', '--source', 'app'], /--url is required/],
    [['report', '--source', 'zipkin'], /--source must be jaeger, prometheus or app; received 'zipkin'/],
    [['report', '--source', 'prometheus'], /report --source prometheus: --service is required/],
    [['report', '--source', 'prometheus', '--service', 's', '--jaeger', 'http://j'], /--jaeger goes with --source jaeger; Prometheus's address is --prometheus/],
    [['report', '--service', 's', '--url', 'http://j'], /report --source jaeger: --url goes with --source app; Jaeger's address is --jaeger$/],
    [['report', '--service', 's', '--prometheus', 'http://p'], /^report: --prometheus goes with --source prometheus; received --source 'jaeger'$/],
    [['report', '--source', 'prometheus', '--service', 's', '--url', 'http://p', '--prometheus', 'http://p'], /--url is the old spelling of --prometheus; give --prometheus only/],
    [['report', '--service', 's', '--since', 'soon'], /--since "soon" is neither a duration nor a time/],
    [['report', '--service', 's', '--json', '--md'], /--json and --md exclude each other/],
    [['report', '--bogus'], /report: unknown option '--bogus'$/],
    [['report', '--source', 'app', '--url', 'http://a/x', '--header', 'no colon'], /--header must be 'name: value'.*; received 'no colon'/],
    [['report', '--service', 's', '--header', 'a: b'], /--header goes with --source app/],
    [['report', '--trace', 'abc', '--service', 's'], /^report --trace: one trace from Jaeger \(--jaeger <query-url>\); --service does not go with it$/],
    [['report', '--trace', 'abc', '--source', 'app'], /^report --trace: one trace from Jaeger/]
  ]) {
    assert.throws(() => parseArguments(argv, {}), (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message))
  }
})

test('report --source prometheus --url: the old spelling still reads Prometheus there, after one deprecation line', async () => {
  const { main } = require('../lib/main')
  // A port nothing listens on: the read fails at once, after the notice.
  const server = require('node:net').createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  let stderr = ''
  const code = await main(['report', '--source', 'prometheus', '--service', 'shop', '--url', `http://127.0.0.1:${port}`],
    { stdout: { write () {} }, stderr: { write (text) { stderr += text } }, env: {} })
  const lines = stderr.split('\n')
  assert.equal(lines[0], 'nodebench report: --url with --source prometheus is deprecated: use --prometheus <url>')
  assert.match(lines[1], new RegExp(`from Prometheus at http://127\\.0\\.0\\.1:${port}$`))
  assert.equal(code, 1)
})

test('report --source jaeger and --source app print the same breakdown; bad input is one line and a non-zero exit', { timeout: 180_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-cli-report-')
  const jaeger = await startJaeger({ logFile: path.join(dir, 'jaeger.log'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => jaeger.stop())
  const savedEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpHttpEndpoint
  t.after(() => {
    if (savedEndpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = savedEndpoint
  })
  const trace = nodebenchTrace({ serviceName: 'report-app', sampleRatio: 1, expose: true })
  t.after(() => trace.shutdown())
  const app = express()
  app.use(trace)
  app.param('id', function (req, res, next, id) { setTimeout(next, 2) })
  app.get('/docs/:id', function viewDoc (req, res) { res.json({ id: req.params.id }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const base = `http://127.0.0.1:${server.address().port}`
  for (let i = 0; i < 20; i++) await (await fetch(`${base}/docs/${i}`)).text()
  await trace.flush()
  const client = new JaegerClient({ url: jaeger.queryUrl })
  for (let i = 0; i < 80; i++) {
    const spans = await client.findSpans({ service: 'report-app', start: new Date(Date.now() - 60_000), end: new Date(), limit: 100 })
    if (spans.filter((s) => s.attributes['nodebench.kind'] === 'request').length === 20) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }

  const out = path.join(dir, 'report')
  const fromJaeger = await runCli(['report', '--source', 'jaeger', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--since', '5m', '--out', out])
  assert.equal(fromJaeger.code, 0, fromJaeger.stderr)
  assert.match(fromJaeger.stdout, /GET \/docs\/:id \[json\]: 20 requests/)
  assert.match(fromJaeger.stdout, /│ 1 │ id +│ param/)
  assert.match(fromJaeger.stdout, /│ 2 │ viewDoc +│ handler/)
  assert.match(fromJaeger.stderr, /reading traces of "report-app"/)
  // The links point at the page that draws the traces; this Jaeger (built from its Go module) has no UI to link to.
  const page = path.join(out, 'report.html')
  assert.ok(fromJaeger.stderr.includes(`nodebench report: ${page}\n`), fromJaeger.stderr)
  const pageUrl = require('node:url').pathToFileURL(page).href
  const [, slowest] = new RegExp(`slowest ([0-9a-f]{32})  ${pageUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}#trace-\\1\\n`).exec(fromJaeger.stdout) ?? []
  assert.ok(slowest, fromJaeger.stdout)
  assert.match(fromJaeger.stdout, /median {2}[0-9a-f]{32} {2}file:\/\/.*report\.html#trace-[0-9a-f]{32}\n/)
  assert.ok(!fromJaeger.stdout.includes(`${jaeger.queryUrl}/trace/`), 'no link into a UI that is not there')
  const html = fs.readFileSync(page, 'utf8')
  assert.ok(html.includes(`id="trace-${slowest}"`), 'the slowest request is drawn at the anchor the link names')
  assert.equal(html.match(/<section class="waterfall"/g).length, 2, 'the slowest and a median request')
  for (const name of ['GET /docs/:id', 'param - id', 'handler - viewDoc']) assert.ok(html.includes(`>${name}</span>`), name)
  assert.match(html, /<th class="text">code\.function\.name<\/th><td>viewDoc<\/td>/, 'a span\'s attributes')
  assert.match(html, /class="wf-bar" style="left:[\d.]+%;width:[\d.]+%;--c:#54a24b"/, 'a handler\'s bar, at its start and length')
  assert.match(html, /This Jaeger has no UI of its own/)
  const check = await checkReportInBrowser(page, { screenshotPath: path.join(dir, 'report.png') })
  assert.deepEqual([check.consoleErrors, check.externalRequests, check.wideTables], [[], [], []])

  // One trace as text: its spans in tree order, each a bar on the trace's time axis.
  const oneTrace = await runCli(['report', '--trace', slowest, '--jaeger', jaeger.queryUrl])
  assert.equal(oneTrace.code, 0, oneTrace.stderr)
  const lines = oneTrace.stdout.trimEnd().split('\n')
  assert.match(lines[0], new RegExp(`^trace ${slowest}: 3 spans in 1 process \\(report-app \\(pid \\d+\\)\\), [\\d.]+ ms, started 20`))
  assert.match(lines[2], /^ +0\.000 +[\d.]+ {2}GET \/docs\/:id \[request\] +\|█{40}\|$/)
  assert.match(lines[3], /^ +[\d.]+ +[\d.]+ {4}param - id \[param\] +\| *█+ *\|$/)
  assert.match(lines[4], /^ +[\d.]+ +[\d.]+ {4}handler - viewDoc \[handler\] +\| *█+ *\|$/)
  const unknown = await runCli(['report', '--trace', '00000000000000000000000000000001', '--jaeger', jaeger.queryUrl])
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /^nodebench: Jaeger at .* has no trace 00000000000000000000000000000001: /m)
  // An exemplar Jaeger no longer holds (its memory store dropped it after the search) is left out of the page, said
  // on progress, and the rest kept.
  const said = []
  const kept = await readExemplars({ operations: [{ exemplars: { slowest, median: '00000000000000000000000000000001' } }] },
    { url: jaeger.queryUrl, onProgress: (message) => said.push(message) })
  assert.deepEqual(Object.keys(kept), [slowest])
  assert.match(said.at(-1), /^trace 00000000000000000000000000000001 left out of the page: Jaeger at .* has no trace 00000000000000000000000000000001/)
  const notAnId = await runCli(['report', '--trace', 'abc', '--jaeger', jaeger.queryUrl])
  assert.match(notAnId.stderr, /--trace 'abc' is not a trace id; expected 32 hexadecimal digits/)

  const json = await runCli(['report', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--json', '--out', path.join(dir, 'json')])
  const snapshot = JSON.parse(json.stdout)
  assert.equal(snapshot.schema, 1)
  assert.equal(snapshot.source, 'jaeger')
  assert.equal(snapshot.operations[0].count, 20)
  assert.deepEqual(snapshot.operations[0].segments.map((s) => s.name), ['id', 'viewDoc'])

  const fromApp = await runCli(['report', '--source', 'app', '--url', `${base}/__nodebench`, '--md'])
  assert.equal(fromApp.code, 0, fromApp.stderr)
  assert.match(fromApp.stdout, /\| 1 \| id \| param \| 20 \|/)

  for (const [argv, message] of [
    [['report', '--jaeger', jaeger.queryUrl, '--service', 'no-such-service', '--out', out], /^nodebench: Jaeger at .* has no spans of service "no-such-service"; it has "report-app"\n$/],
    [['report', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--since', '1ms', '--out', out], /^nodebench: Jaeger at .* has no traces of "report-app" between .*; widen --since\n$/],
    [['report', '--source', 'app', '--url', `${base}/nothing`], /^nodebench: .*\/nothing answered 404 without a breakdown snapshot/]
  ]) {
    const run = await runCli(argv)
    assert.equal(run.code, 1, run.stderr)
    assert.match(run.stderr.split('\n').filter((line) => !line.startsWith('nodebench report:')).join('\n'), message)
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  }
})

test('report --source app: an app whose access rule wants a token refuses without it (one line, exit 1) and answers with --header', async (t) => {
  const trace = nodebenchTrace({ serviceName: 'guarded-app', exporter: 'none', expose: true, access: { read: (req) => req.get('x-nodebench-token') === 's3cret' } })
  t.after(() => trace.shutdown())
  const app = express()
  app.use(trace)
  app.get('/docs/:id', function viewDoc (req, res) { res.json({ id: req.params.id }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const url = `http://127.0.0.1:${server.address().port}/__nodebench`
  await (await fetch(url.replace('__nodebench', 'docs/1'))).text()
  const refused = await runCli(['report', '--source', 'app', '--url', url])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^nodebench: .*__nodebench refused the request \(403\): nodebench: refused by the access\.read rule\. .*send what it asks for with --header$/m)
  const allowed = await runCli(['report', '--source', 'app', '--url', url, '--header', 'x-nodebench-token: s3cret', '--json'])
  assert.equal(allowed.code, 0, allowed.stderr)
  assert.equal(JSON.parse(allowed.stdout).operations[0].route, '/docs/:id')
})

test('services start jaeger prints where apps send spans and where reports read them; stop stops it', { timeout: 180_000 }, async (t) => {
  const { env } = servicesEnv(t, 'nodebench-cli-report-')
  const started = await runCli(['services', 'start', 'jaeger'], { env, timeout: 120_000 })
  assert.equal(started.code, 0, started.stderr)
  assert.match(started.stderr, /^nodebench: this Jaeger has no UI \(a build from its Go module: http:\/\/127\.0\.0\.1:\d+ shows a placeholder page\)\. To see traces, `nodebench report --source jaeger --service <name>` draws/m)
  const [endpointLine, queryLine] = started.stdout.trim().split('\n').slice(-2)
  assert.match(endpointLine, /^OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+$/)
  assert.match(queryLine, /^JAEGER_QUERY_URL=http:\/\/127\.0\.0\.1:\d+$/)
  const queryUrl = queryLine.split('=')[1]
  assert.deepEqual(await new JaegerClient({ url: queryUrl }).services(), [])
  assert.match((await runCli(['services', 'status', 'jaeger'], { env, timeout: 120_000 })).stdout, /^jaeger: running, pid \d+, http:\/\/127\.0\.0\.1:\d+/)
  assert.match((await runCli(['services', 'stop', 'jaeger'], { env, timeout: 120_000 })).stdout, /^jaeger: stopped/)
  await assert.rejects(new JaegerClient({ url: queryUrl, timeoutMs: 2000 }).services(), /not reachable/)
})

test('a trace that crossed two processes: one waterfall, each process\'s part named, on the page and as text', { timeout: 180_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-cli-report-')
  const jaeger = await startJaeger({ logFile: path.join(dir, 'jaeger.log'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => jaeger.stop())
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100' }
  const back = await startProcess(t, path.join(__dirname, 'fixtures', 'trace-back.js'), [], { env })
  const backUrl = back.match[1]
  const front = await startProcess(t, path.join(__dirname, 'fixtures', 'trace-front.js'), [], { env: { ...env, BACK_URL: backUrl } })
  const response = await fetch(`${front.match[1]}/orders/7`)
  assert.deepEqual(await response.json(), { id: '7', stock: 7 })

  // Both processes' spans reach Jaeger under one trace id.
  const client = new JaegerClient({ url: jaeger.queryUrl })
  let waterfall = null
  for (let i = 0; i < 80 && waterfall === null; i++) {
    const spans = await client.findSpans({ service: 'front', start: new Date(Date.now() - 60_000), end: new Date(), limit: 10 })
    const request = spans.find((s) => s.attributes['nodebench.kind'] === 'request')
    if (request !== undefined) {
      const whole = await readTrace({ url: jaeger.queryUrl, traceId: request.traceId })
      if (whole.processes.length === 2 && whole.rows.length === 5) waterfall = whole
    }
    if (waterfall === null) await new Promise((resolve) => setTimeout(resolve, 250))
  }
  assert.ok(waterfall, 'the trace holds spans of both processes')
  assert.deepEqual(waterfall.processes.map((p) => p.service), ['front', 'back'])
  assert.deepEqual(waterfall.processes.map((p) => p.pid), [front.child.pid, back.child.pid])
  const row = (name) => waterfall.rows.find((r) => r.name === name)
  assert.deepEqual([row('GET /orders/:id').depth, row('GET /orders/:id').process], [0, 0])
  assert.deepEqual([row('GET /stock/:id').depth, row('GET /stock/:id').process], [1, 1], 'the back\'s request under the front\'s')
  assert.deepEqual([row('handler - loadStock').process, row('handler - sendStock').process], [1, 1])
  assert.ok(row('GET /stock/:id').startMs >= row('handler - viewOrder').startMs, 'on the front\'s time axis, inside its handler')
  assert.ok(waterfall.processes[1].startMs > 0 && waterfall.processes[1].durationMs < waterfall.durationMs)

  const text = waterfallText(waterfall)
  assert.match(text, /2 processes \(front \(pid \d+\), back \(pid \d+\)\)/)
  assert.match(text, /\n +[\d.]+ +[\d.]+ {4}GET \/stock\/:id \[request\] @ back \(pid \d+\) +\| *█+ *\|\n/)
  const printed = await runCli(['report', '--trace', waterfall.traceId, '--jaeger', jaeger.queryUrl])
  assert.equal(printed.stdout, text)

  const out = path.join(dir, 'page')
  const run = await runCli(['report', '--jaeger', jaeger.queryUrl, '--service', 'front', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^GET \/orders\/:id \[json\]: 1 requests/m)
  assert.doesNotMatch(run.stdout, /GET \/stock\/:id \[json\]: /, 'the front\'s breakdown, not the requests its traces made to the back')
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<h4>Processes<\/h4>/)
  assert.ok(html.includes('>back (pid '), 'the back\'s part named')
  assert.ok(html.includes('>handler - sendStock</span>'))
  const check = await checkReportInBrowser(path.join(out, 'report.html'), { screenshotPath: path.join(dir, 'two-processes.png') })
  assert.deepEqual([check.consoleErrors, check.externalRequests, check.wideTables], [[], [], []])
})
