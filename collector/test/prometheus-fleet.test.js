'use strict'

// nodebench-test: once. Prometheus is Debian's and the report reads it (metrics export runs on every line in middleware/test): the Node.js version does not change what this tests.
// Fleet breakdowns against a real Prometheus (Debian's, started by the project): instances of a traced
// service, each a process of its own exporting its breakdown as metrics (OTEL_METRICS_EXPORTER=prometheus),
// are scraped; `nodebench report --source prometheus` must give the requests they served and the shares of
// their merged in-process breakdowns, survive an instance's restart, and say clearly what is wrong with bad
// input.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const http = require('node:http')
const { freeLoopbackPort } = require('@nodebench/services')
const { writeTargets, waitForScrapes } = require('..')
const { startTestPrometheus } = require('./helpers')
const { runCli, startProcess, stopProcess, request } = require('../../test/support')

const FLEET_APP = path.join(__dirname, 'fixtures', 'fleet-app.js')
const SERVICE = 'fleet-app'

/** Starts one instance whose metrics Prometheus can scrape on `metricsPort`. */
async function startInstance (t, metricsPort, env = {}) {
  const { match, child } = await startProcess(t, FLEET_APP, [], {
    env: {
      OTEL_SERVICE_NAME: SERVICE,
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
      ...env
    }
  })
  return { base: match[1], child, metricsPort }
}

/** Sends `count` requests of `path` to `base`, ten at a time; each must answer `status`. */
async function send (base, path, count, status = 200) {
  for (let sent = 0; sent < count; sent += 10) {
    const batch = Array.from({ length: Math.min(10, count - sent) }, (_, i) => request(`${base}${path.replace('{n}', String(sent + i))}`))
    for (const response of await Promise.all(batch)) assert.equal(response.status, status)
  }
}

function report (url, since, extra = []) {
  return runCli(['report', '--source', 'prometheus', '--prometheus', url, '--service', SERVICE, '--since', since.toISOString(), ...extra])
}

const ITEMS = 'GET /api/items/:id json'
const PAGES = 'GET /api/pages/:id html'
const FAIL = 'GET /api/fail json'

function byOperation (snapshot) {
  return new Map(snapshot.operations.map((operation) => [`${operation.method} ${operation.route} ${operation.format}`, operation]))
}

test('three instances, one Prometheus: the report gives the requests they served and the shares of their merged breakdowns', { timeout: 180_000 }, async (t) => {
  const prometheus = await startTestPrometheus(t)
  const instances = []
  for (let i = 0; i < 3; i++) instances.push(await startInstance(t, await freeLoopbackPort()))
  writeTargets(prometheus.targetsDir, 'fleet', instances.map((i) => ({ address: `127.0.0.1:${i.metricsPort}`, path: '/metrics' })), { fleet: 'agreement' })
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'agreement' }, count: 3, after: new Date() })

  const since = new Date()
  const mix = [{ items: 60, pages: 20, fail: 3 }, { items: 40, pages: 35, fail: 0 }, { items: 25, pages: 10, fail: 6 }]
  await Promise.all(instances.map(async ({ base }, i) => {
    await send(base, '/api/items/{n}', mix[i].items)
    await send(base, '/api/pages/{n}', mix[i].pages)
    await send(base, '/api/fail', mix[i].fail, 500)
  }))
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'agreement' }, count: 3, after: new Date() })

  const result = await report(prometheus.url, since, ['--json'])
  assert.equal(result.code, 0, result.stderr)
  const fleet = JSON.parse(result.stdout)
  assert.equal(fleet.source, 'prometheus')
  assert.equal(fleet.service, SERVICE)
  const operations = byOperation(fleet)
  assert.deepEqual([...operations.keys()].sort(), [FAIL, ITEMS, PAGES].sort())
  assert.equal(operations.get(ITEMS).count, 125)
  assert.equal(operations.get(PAGES).count, 65)
  assert.equal(operations.get(FAIL).count, 9)
  assert.equal(operations.get(FAIL).errors, 9, '5xx responses are errors')
  assert.equal(operations.get(ITEMS).errors, 0)

  // Every instance is named, with what it served.
  assert.equal(fleet.instances.length, 3)
  const served = mix.map((m) => m.items + m.pages + m.fail).sort((a, b) => a - b)
  assert.deepEqual(fleet.instances.map((i) => i.requests).sort((a, b) => a - b), served)
  for (const instance of fleet.instances) {
    assert.match(instance.address, /^127\.0\.0\.1:\d+$/)
    assert.ok(Number.isInteger(instance.pid) && instance.pid > 0, 'the pid comes from target_info')
  }

  // The same shares as the instances' own breakdowns, merged: sums of segment time over sums of response time.
  const local = await Promise.all(instances.map(async ({ base }) => JSON.parse((await request(`${base}/__nodebench`)).body)))
  for (const key of [ITEMS, PAGES, FAIL]) {
    const fromFleet = operations.get(key)
    const mine = local.flatMap((snapshot) => snapshot.operations.filter((o) => `${o.method} ${o.route} ${o.format}` === key))
    assert.equal(mine.reduce((sum, o) => sum + o.count, 0), fromFleet.count)
    const totalMs = mine.reduce((sum, o) => sum + o.responseTimeMs.total, 0)
    assert.deepEqual(fromFleet.segments.map((s) => s.name), mine[0].segments.map((s) => s.name), `${key}: segments in path order`)
    for (const segment of fromFleet.segments) {
      const mergedShare = mine.reduce((sum, o) => sum + o.segments.find((s) => s.name === segment.name).totalMs, 0) / totalMs
      assert.ok(Math.abs(segment.share - mergedShare) < 0.01, `${key} ${segment.name}: ${segment.share} against ${mergedShare}`)
      assert.equal(segment.count, fromFleet.count)
    }
    const mergedUnattributed = mine.reduce((sum, o) => sum + o.unattributedShare * o.responseTimeMs.total, 0) / totalMs
    assert.ok(Math.abs(fromFleet.unattributedShare - mergedUnattributed) < 0.01)
    assert.ok(fromFleet.responseTimeMs.p50 > 0 && fromFleet.responseTimeMs.p50 <= fromFleet.responseTimeMs.p99, 'percentiles from the buckets')
  }
  // The median from the buckets (interpolated within a bucket, whose bounds are at most 2.5 times apart) lies
  // near the instances' own medians (from their 1% histograms): however slow a loaded machine made the lookup.
  const id = operations.get(ITEMS).segments.find((s) => s.kind === 'param')
  const ownMedians = local.flatMap((snapshot) => snapshot.operations.filter((o) => `${o.method} ${o.route} ${o.format}` === ITEMS))
    .map((o) => o.segments.find((s) => s.kind === 'param').p50Ms)
  assert.ok(id.p50Ms >= Math.min(...ownMedians) / 2.5 && id.p50Ms <= Math.max(...ownMedians) * 2.5,
    `the lookup's median from the buckets, ${id.p50Ms} ms, beside the instances' own: ${ownMedians.join(', ')} ms`)

  // The table names the instances it covered.
  const table = await report(prometheus.url, since)
  assert.equal(table.code, 0, table.stderr)
  assert.match(table.stdout, /GET \/api\/items\/:id \[json\]: 125 requests, 0 errors/)
  assert.match(table.stdout, /max n\/a/)
  assert.equal(table.stdout.match(/^ {2}\S+ \(127\.0\.0\.1:\d+, [^,]+, pid \d+\): \d+ requests$/gm).length, 3)
})

test('an instance that restarts (the same series, its counters back to zero) does not corrupt the figures', { timeout: 120_000 }, async (t) => {
  const prometheus = await startTestPrometheus(t)
  const metricsPort = await freeLoopbackPort()
  // A stable instance id across restarts, as an orchestrator gives (a pod's name): the same series, reset.
  const env = { OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=fleet-app-1' }
  const first = await startInstance(t, metricsPort, env)
  writeTargets(prometheus.targetsDir, 'fleet', [{ address: `127.0.0.1:${metricsPort}`, path: '/metrics' }], { fleet: 'restart' })
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'restart' }, count: 1, after: new Date() })
  const since = new Date()
  await send(first.base, '/api/items/{n}', 30)
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'restart' }, count: 1, after: new Date() })
  first.child.kill('SIGKILL')
  await stopProcess(first.child)

  const second = await startInstance(t, metricsPort, env)
  await send(second.base, '/api/items/{n}', 20)
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'restart' }, count: 1, after: new Date() })

  const result = await report(prometheus.url, since, ['--json'])
  assert.equal(result.code, 0, result.stderr)
  const fleet = JSON.parse(result.stdout)
  assert.equal(byOperation(fleet).get(ITEMS).count, 50, 'the 30 before the restart and the 20 after')
  assert.deepEqual(fleet.instances.map((i) => [i.id, i.requests]), [['fleet-app-1', 50]])
  // A window that starts after the last request, and holds a scrape, holds no request.
  const quiet = new Date()
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'restart' }, count: 1, after: quiet })
  const later = await report(prometheus.url, quiet, ['--json'])
  assert.equal(later.code, 1, later.stdout)
  assert.match(later.stderr, /\nnodebench: Prometheus at .* holds metrics of "fleet-app", but no request between .*; widen --since\n$/)
})

test('the dependencies each segment waited on: read back from nodebench.dependency.duration as the instance recorded them', { timeout: 120_000 }, async (t) => {
  const prometheus = await startTestPrometheus(t)
  const instance = await startInstance(t, await freeLoopbackPort())
  writeTargets(prometheus.targetsDir, 'fleet', [{ address: `127.0.0.1:${instance.metricsPort}`, path: '/metrics' }], { fleet: 'dependencies' })
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'dependencies' }, count: 1, after: new Date() })
  const since = new Date()
  // The handler of each relay asks the app itself for the item: `http GET 127.0.0.1:<port>`, one call a request
  // (but for the first ones: the first call heard is what turns the observation on); and answers with res.json,
  // `serialize json`, the other dependency of its segment.
  await send(instance.base, '/api/relay/{n}', 30)
  await waitForScrapes({ url: prometheus.url, labels: { fleet: 'dependencies' }, count: 1, after: new Date() })

  const result = await report(prometheus.url, since, ['--json'])
  assert.equal(result.code, 0, result.stderr)
  const relay = byOperation(JSON.parse(result.stdout)).get('GET /api/relay/:id json')
  const own = JSON.parse((await request(`${instance.base}/__nodebench`)).body).operations.find((o) => o.route === '/api/relay/:id')
  const handler = relay.segments.find((s) => s.name === 'relayItem')
  const ownHandler = own.segments.find((s) => s.name === 'relayItem')
  assert.deepEqual(ownHandler.dependencies?.map((d) => d.system).sort(), ['http', 'serialize'], 'the instance recorded the call and the serialisation')
  assert.deepEqual(handler.dependencies.map((d) => [d.system, d.operation, d.target, d.count]),
    ownHandler.dependencies.map((d) => [d.system, d.operation, d.target, d.count]))
  const fromMetrics = handler.dependencies.find((d) => d.system === 'http')
  const fromInstance = ownHandler.dependencies.find((d) => d.system === 'http')
  assert.match(fromMetrics.target, /^127\.0\.0\.1:\d+$/)
  assert.ok(Math.abs(fromMetrics.totalMs - fromInstance.totalMs) < 0.01, `${fromMetrics.totalMs} ms against ${fromInstance.totalMs}`)
  assert.ok(Math.abs(fromMetrics.share - fromInstance.share) < 0.001)
  assert.ok(fromMetrics.share > 0 && fromMetrics.share < handler.share)
  assert.equal(relay.segments.filter((s) => s.dependencies).length, 1, 'only the handler called something')

  const table = await report(prometheus.url, since, ['--md'])
  assert.equal(table.code, 0, table.stderr)
  const lines = table.stdout.split('\n')
  const row = lines.findIndex((line) => /^\| \d+ \| relayItem \| handler \|/.test(line))
  const under = lines.slice(row + 1, row + 3)
  assert.ok(under.some((line) => /^\| +\| +└ http GET 127\.0\.0\.1:\d+ \| dependency \| [\d.]+ calls? \| [\d.]+ \|/.test(line)), under.join('\n'))
  assert.ok(under.some((line) => /^\| +\| +└ serialize json +\| dependency \|/.test(line)), under.join('\n'))
})

test('bad input gets one clear line: an unreachable Prometheus, a URL that is not one, an unknown service', { timeout: 60_000 }, async (t) => {
  const prometheus = await startTestPrometheus(t)
  const since = new Date(Date.now() - 60_000)
  const closed = await freeLoopbackPort()
  const unreachable = await runCli(['report', '--source', 'prometheus', '--prometheus', `http://127.0.0.1:${closed}`, '--service', SERVICE])
  assert.equal(unreachable.code, 1)
  assert.match(unreachable.stderr, /\nnodebench: Prometheus is not reachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start one with `nodebench services start prometheus`, or give its URL with --prometheus\n$/)

  const page = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>an app</h1>'))
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => page.close(resolve)))
  const notPrometheus = await report(`http://127.0.0.1:${page.address().port}`, since)
  assert.equal(notPrometheus.code, 1)
  assert.match(notPrometheus.stderr, /\nnodebench: http:\/\/127\.0\.0\.1:\d+ answered \/api\/v1\/query with 200 \(text\/html\), not as Prometheus's HTTP API does; expected the base URL of a Prometheus/)

  const unknown = await report(prometheus.url, since)
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /\nnodebench: Prometheus at .* has no nodebench metrics of service "fleet-app" between .*; it has none of any service\. Are its instances traced with nodebenchTrace\(\{ metrics \}\) and scraped\?\n$/)
  assert.equal(unknown.stderr.trim().split('\n').length, 2, 'one line of progress, one of the error')

  const badSince = await runCli(['report', '--source', 'prometheus', '--service', SERVICE, '--since', 'yesterday'])
  assert.equal(badSince.code, 2)
  assert.equal(badSince.stderr.trim().split('\n').length, 1)
})
