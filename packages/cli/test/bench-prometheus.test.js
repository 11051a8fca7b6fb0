'use strict'

// nodebench-test: once. Prometheus is Debian's and bench only reads it (metrics export runs on every line in middleware/test): the Node.js version does not change what this tests.
// `bench --breakdown-source prometheus`: each cell's breakdown read from the metrics of the processes bench
// started, scraped by a real Prometheus: one the run starts when the `prometheus` service does not run, else
// the service, whose targets bench adds for the run and removes after it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runCli, servicesEnv } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')

function benchShop (out, env) {
  return runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(SHOP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', path.join(SHOP, 'nodebench.workload.js'), '--reps', '1', '--warmup', '20', '--out', out,
    '--breakdown-source', 'prometheus'], { env })
}

function checkCells (out) {
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.config.breakdownSource, 'prometheus')
  for (const cell of results.cells) {
    assert.equal(cell.status, 'ok', cell.failure)
    assert.equal(cell.breakdown.source, 'prometheus')
    assert.equal(cell.breakdown.service, 'shop')
    const operation = cell.breakdown.operations.find((o) => o.method === cell.operation.method && o.route === cell.operation.route)
    // Exactly the measured requests: not the warm-up's, not the probes'.
    assert.equal(operation.count, cell.requests, `${cell.scenario}: the breakdown counts what autocannon sent`)
    assert.equal(cell.breakdown.instances.length, 1)
    assert.equal(cell.breakdown.instances[0].requests, cell.requests)
  }
  const read = results.cells.find((c) => c.scenario === 'item-read')
  assert.deepEqual(read.breakdown.operations[0].segments.map((s) => s.name), ['jsonParser', 'loadItem (:id)', 'renderItem'])
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /from Prometheus, served by pid \d+ at 127\.0\.0\.1:\d+ \(300 requests\)/)
  return results
}

test('bench reads every cell\'s breakdown from Prometheus: a Prometheus of its own, or the running service', { timeout: 300_000 }, async (t) => {
  // The prometheus service this test starts is stopped before its state folder is removed.
  const { dir, env } = servicesEnv(t, 'nodebench-bench-prometheus-')

  const own = await benchShop(path.join(dir, 'own'), env)
  assert.equal(own.code, 0, own.stderr)
  assert.match(own.stderr, /breakdowns from a Prometheus of this run's own at http:\/\/127\.0\.0\.1:\d+ \(scraping every 1 s\)/)
  checkCells(path.join(dir, 'own'))

  const started = await runCli(['services', 'start', 'prometheus', '--scrape-interval', '1s'], { env })
  assert.equal(started.code, 0, started.stderr)
  const url = /^PROMETHEUS_URL=(\S+)$/m.exec(started.stdout)[1]
  const service = await benchShop(path.join(dir, 'service'), env)
  assert.equal(service.code, 0, service.stderr)
  assert.match(service.stderr, new RegExp(`breakdowns from the prometheus service at ${url}`))
  checkCells(path.join(dir, 'service'))
  const targets = path.join(dir, 'services', 'prometheus', 'targets')
  assert.deepEqual(fs.readdirSync(targets), [], 'the run\'s targets are gone with it')
  // The service keeps what it scraped: the fleet report reads the run's requests back, with the warm-up's
  // (20) and the probes' (one per distinct path) this time.
  const report = await runCli(['report', '--source', 'prometheus', '--service', 'shop', '--since', '10m', '--json'], { env })
  assert.equal(report.code, 0, report.stderr)
  const beyond = JSON.parse(report.stdout).operations.find((o) => o.route === '/items/:id').count - 300 - 20
  assert.ok(beyond >= 1 && beyond <= 10, `${beyond} probes`)
})

test('--breakdown-source: prometheus or app, and prometheus only for an app bench starts', async () => {
  const wrong = await runCli(['bench', '--breakdown-source', 'jaeger'])
  assert.equal(wrong.code, 2)
  assert.match(wrong.stderr, /^nodebench: bench: --breakdown-source must be app \(the app's \/__nodebench\) or prometheus \(every instance's metrics\); received 'jaeger'/)
  const running = await runCli(['bench', '--url', 'http://127.0.0.1:3000', '--workload', path.join(SHOP, 'nodebench.workload.js'), '--breakdown-source', 'prometheus'])
  assert.equal(running.code, 2)
  assert.equal(running.stderr.trim().split('\n').length, 1)
  assert.match(running.stderr, /--breakdown-source prometheus needs an app nodebench starts/)
})
