'use strict'

// `nodebench report` against a real Jaeger fed by a real traced app, and `nodebench services ... jaeger`.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { startJaeger, JaegerClient } = require('@nodebench/collector')
const { parseArguments } = require('..')
const { temporaryDir, runCli, servicesEnv } = require('../../../test/support')

test('parseArguments: report', () => {
  assert.deepEqual(parseArguments(['report', '--service', 'svc'], {}),
    { command: 'report', source: 'jaeger', jaeger: 'http://localhost:16686', service: 'svc', since: '10m', format: 'table' })
  assert.deepEqual(parseArguments(['report', '--since', '1h', '--json'], { OTEL_SERVICE_NAME: 'svc', JAEGER_QUERY_URL: 'http://j:1' }),
    { command: 'report', source: 'jaeger', jaeger: 'http://j:1', service: 'svc', since: '1h', format: 'json' })
  assert.deepEqual(parseArguments(['report', '--source', 'app', '--url', 'http://a/__nodebench', '--md'], {}),
    { command: 'report', source: 'app', url: 'http://a/__nodebench', headers: {}, format: 'md' })
  assert.deepEqual(parseArguments(['report', '--source', 'app', '--url', 'http://a/x', '--header', 'X-Nodebench-Token: a:b', '--header', 'authorization:Bearer t'], {}).headers,
    { 'x-nodebench-token': 'a:b', authorization: 'Bearer t' })
  assert.deepEqual(parseArguments(['report', '--source', 'prometheus', '--service', 'shop', '--since', '1h'], {}),
    { command: 'report', source: 'prometheus', url: null, service: 'shop', since: '1h', format: 'table' })
  assert.deepEqual(parseArguments(['report', '--source', 'prometheus', '--md'], { OTEL_SERVICE_NAME: 'shop', PROMETHEUS_URL: 'http://p:9090' }),
    { command: 'report', source: 'prometheus', url: 'http://p:9090', service: 'shop', since: '10m', format: 'md' })
  for (const [argv, message] of [
    [['report'], /--service is required/],
    [['report', '--source', 'app'], /--url is required/],
    [['report', '--source', 'zipkin'], /--source must be jaeger, prometheus or app; received 'zipkin'/],
    [['report', '--source', 'prometheus'], /report --source prometheus: --service is required/],
    [['report', '--source', 'prometheus', '--service', 's', '--jaeger', 'http://j'], /--jaeger goes with --source jaeger; Prometheus's address is --url/],
    [['report', '--service', 's', '--url', 'http://j'], /report --source jaeger: --url goes with --source app or prometheus/],
    [['report', '--service', 's', '--since', 'soon'], /--since "soon" is neither a duration nor a time/],
    [['report', '--service', 's', '--json', '--md'], /--json and --md exclude each other/],
    [['report', '--bogus'], /report: unknown option '--bogus'$/],
    [['report', '--source', 'app', '--url', 'http://a/x', '--header', 'no colon'], /--header must be 'name: value'.*; received 'no colon'/],
    [['report', '--service', 's', '--header', 'a: b'], /--header goes with --source app/]
  ]) {
    assert.throws(() => parseArguments(argv, {}), (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message))
  }
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

  const fromJaeger = await runCli(['report', '--source', 'jaeger', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--since', '5m'])
  assert.equal(fromJaeger.code, 0, fromJaeger.stderr)
  assert.match(fromJaeger.stdout, /GET \/docs\/:id \[json\]: 20 requests/)
  assert.match(fromJaeger.stdout, /│ 1 │ id +│ param/)
  assert.match(fromJaeger.stdout, /│ 2 │ viewDoc +│ handler/)
  assert.match(fromJaeger.stdout, new RegExp(`median  ${jaeger.queryUrl}/trace/[0-9a-f]{32}`))
  assert.match(fromJaeger.stdout, new RegExp(`slowest ${jaeger.queryUrl}/trace/[0-9a-f]{32}`))
  assert.match(fromJaeger.stderr, /reading traces of "report-app"/)

  const json = await runCli(['report', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--json'])
  const snapshot = JSON.parse(json.stdout)
  assert.equal(snapshot.schema, 1)
  assert.equal(snapshot.source, 'jaeger')
  assert.equal(snapshot.operations[0].count, 20)
  assert.deepEqual(snapshot.operations[0].segments.map((s) => s.name), ['id', 'viewDoc'])

  const fromApp = await runCli(['report', '--source', 'app', '--url', `${base}/__nodebench`, '--md'])
  assert.equal(fromApp.code, 0, fromApp.stderr)
  assert.match(fromApp.stdout, /\| 1 \| id \| param \| 20 \|/)

  for (const [argv, message] of [
    [['report', '--jaeger', jaeger.queryUrl, '--service', 'no-such-service'], /^nodebench: Jaeger at .* has no spans of service "no-such-service"; it has "report-app"\n$/],
    [['report', '--jaeger', jaeger.queryUrl, '--service', 'report-app', '--since', '1ms'], /^nodebench: Jaeger at .* has no traces of "report-app" between .*; widen --since\n$/],
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
  const [endpointLine, queryLine] = started.stdout.trim().split('\n').slice(-2)
  assert.match(endpointLine, /^OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+$/)
  assert.match(queryLine, /^JAEGER_QUERY_URL=http:\/\/127\.0\.0\.1:\d+$/)
  const queryUrl = queryLine.split('=')[1]
  assert.deepEqual(await new JaegerClient({ url: queryUrl }).services(), [])
  assert.match((await runCli(['services', 'status', 'jaeger'], { env, timeout: 120_000 })).stdout, /^jaeger: running, pid \d+, http:\/\/127\.0\.0\.1:\d+/)
  assert.match((await runCli(['services', 'stop', 'jaeger'], { env, timeout: 120_000 })).stdout, /^jaeger: stopped/)
  await assert.rejects(new JaegerClient({ url: queryUrl, timeoutMs: 2000 }).services(), /not reachable/)
})
