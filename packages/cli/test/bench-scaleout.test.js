'use strict'

// nodebench-test: once. nginx and Prometheus are Debian's, the topology and its events bench's: the Node.js version does not change what this tests.
// Scale-out as the TU Berlin study ran it: independent instances of the example app behind a real nginx
// (Debian's, started by the project), on the real embedded database, their breakdowns read from a real
// Prometheus; instances killed and added mid-run; --find-max; and the options that ask for them.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { parseBenchArguments } = require('../lib/commands/bench')
const { cellsOf } = require('../lib/kernel/plan')
const { checkReportInBrowser } = require('./page-check')
const { runCli, isolatedEnv, temporaryDir } = require('../../../test/support')

const usage = (message) => (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message)

test('options: topologies, the balancer, --find-max and events, checked before anything starts', () => {
  const { config } = parseBenchArguments(['--topology', 'cluster,nginx', '--scenarios', 'review-list', '--processes', '1,3'])
  assert.deepEqual([config.topologies, config.balancer, config.breakdownSource], [['cluster', 'nginx'], 'least_conn', 'prometheus'])
  assert.deepEqual(cellsOf(config).map((c) => `${c.processes} ${c.topology} ${c.scenario} ${c.format}`),
    ['1 cluster review-list json', '1 nginx review-list json', '3 cluster review-list json', '3 nginx review-list json'])
  assert.equal(parseBenchArguments([]).config.breakdownSource, 'app', 'a cluster keeps reading its primary')

  const findMax = parseBenchArguments(['--topology', 'nginx', '--find-max', '--max-connections', '64']).config
  assert.deepEqual([findMax.findMax, findMax.duration, findMax.requestTimeoutSec], [{ maxConnections: 64 }, 5, 10])
  const events = parseBenchArguments(['--topology', 'nginx', '--duration', '20', '--kill-instance-at', '12', '--add-instance-at', '5,15']).config
  assert.deepEqual(events.events, [{ type: 'add', atSec: 5 }, { type: 'kill', atSec: 12 }, { type: 'add', atSec: 15 }])

  for (const [argv, message] of [
    [['--topology', 'swarm'], /unknown topology 'swarm'; expected one of cluster, nginx/],
    [['--topology', 'nginx', '--balancer', 'ip_hash'], /--balancer must be least_conn or round_robin; received 'ip_hash'/],
    [['--topology', 'nginx', '--breakdown-source', 'app'], /--topology nginx reads its breakdowns from Prometheus/],
    [['--topology', 'nginx', '--cmd', 'node app.js', '--url', 'http://127.0.0.1'], /needs a \{port\} placeholder/],
    [['--topology', 'nginx', '--url', 'http://127.0.0.1:3000'], /--topology nginx needs an app nodebench starts/],
    [['--add-instance-at', '5', '--duration', '10'], /--add-instance-at and --kill-instance-at change the instances behind nginx: they need --topology nginx/],
    [['--topology', 'nginx', '--kill-instance-at', '5'], /give --duration/],
    [['--topology', 'nginx', '--duration', '10', '--kill-instance-at', '10'], /--kill-instance-at 10 is not within the run's 10 s/],
    [['--find-max', '--amount', '100'], /--find-max runs steps of --duration seconds/],
    [['--max-connections', '8'], /--max-connections goes with --find-max/],
    [['--topology', 'nginx', '--find-max', '--duration', '9', '--add-instance-at', '3'], /exclude each other/],
    [['--scenarios', 'review-list', '--formats', 'html'], /scenario 'review-list' has format json only; --formats html leaves it nothing to measure/]
  ]) {
    assert.throws(() => parseBenchArguments(argv), usage(message), argv.join(' '))
  }
})

function results (out) {
  return JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
}

test('an nginx cell serves through every instance, and the breakdown counts what the load generator got', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-nginx-')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--topology', 'nginx', '--processes', '3', '--scenarios', 'review-list', '--reps', '1',
    '--amount', '900', '--warmup', '30', '--out', out], { env: isolatedEnv(dir) })
  assert.equal(run.code, 0, run.stderr)
  const [cell] = results(out).cells
  assert.deepEqual([cell.topology, cell.balancer, cell.status, cell.requests, cell.errors], ['nginx', 'least_conn', 'ok', 900, 0])
  assert.equal(cell.instances.length, 3)
  const { breakdown } = cell
  assert.equal(breakdown.source, 'prometheus')
  assert.equal(breakdown.instances.length, 3, 'each instance is in the breakdown')
  for (const instance of breakdown.instances) assert.ok(instance.requests > 0, `${instance.address} served requests`)
  assert.deepEqual(breakdown.instances.map((i) => i.pid).sort(), cell.instances.map((i) => i.pid).sort(), 'the instances bench started')
  assert.equal(breakdown.instances.reduce((sum, i) => sum + i.requests, 0), 900)
  const operation = breakdown.operations.find((o) => o.route === '/api/reviews/' && o.method === 'GET')
  assert.equal(operation.count, 900, 'the breakdown counts exactly what autocannon got')
  assert.ok(operation.segments.some((s) => s.name === 'listReviews'))
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /\| review list \| json \| 3 \| not run \| [\d,.]+ \| - \| none \|/)
})

test('killing an instance and adding one mid-run: nginx routes around the dead one, the new one gets traffic, all is counted',
  { timeout: 300_000 }, async (t) => {
    const dir = temporaryDir(t, 'nodebench-nginx-')
    const out = path.join(dir, 'run')
    const run = await runCli(['bench', '--topology', 'nginx', '--processes', '2', '--scenarios', 'review-list', '--reps', '1',
      '--duration', '10', '--connections', '20', '--warmup', '30', '--kill-instance-at', '3', '--add-instance-at', '6', '--out', out],
    { env: isolatedEnv(dir) })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, /3(\.\d+)? s: killed the instance at 127\.0\.0\.1:\d+ \(pid \d+\)/)
    assert.match(run.stderr, /6(\.\d+)? s: added an instance at 127\.0\.0\.1:\d+ \(pid \d+\); nginx reloaded/)
    const [cell] = results(out).cells
    assert.equal(cell.status, 'ok')
    assert.equal(cell.instances.length, 3)
    assert.equal(cell.instances.filter((i) => i.killedAt !== null).length, 1)
    const [rep] = cell.reps
    const { events, traffic } = rep.elasticity
    const [kill, add] = events
    assert.deepEqual([kill.type, add.type], ['kill', 'add'])

    // None hidden: every request autocannon did not get the expected answer for is in a class.
    const failed = Object.values(rep.failures).reduce((sum, n) => sum + n, 0)
    assert.equal(failed, rep.errors + rep.unexpectedStatus, JSON.stringify(rep.failures))
    // The killed instance answers nothing after it died; nginx's retries of requests it had are counted.
    assert.ok(kill.lastServedSec === null || kill.lastServedSec <= kill.atSec + 0.1, JSON.stringify(kill))
    assert.ok(Number.isInteger(kill.retriedElsewhere))
    const killed = traffic.instances.find((i) => i.address === kill.address)
    assert.ok(killed.served > 0, 'it served before it was killed')

    // The added instance serves within 2 s of nginx's reload; any failure after it is a reset at the reload.
    assert.ok(add.firstServedAfterReloadSec !== null && add.firstServedAfterReloadSec <= 2, JSON.stringify(add))
    assert.ok(add.served > 0)
    assert.deepEqual(Object.keys(add.failuresWithin5s).filter((kind) => kind !== 'connection reset'), [], JSON.stringify(add))
    assert.equal(add.failuresWithin5s['connection reset'] ?? 0, add.resetsAtReload, 'resets after the add came at the reload')
    assert.ok(cell.breakdown.instances.some((i) => i.address !== null && i.requests > 0 &&
      i.pid === cell.instances.find((c) => c.address === add.address).pid), 'the added instance is in the breakdown')

    const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
    assert.match(report, /killed at 3(\.\d+)? s/)
    assert.match(report, /an instance added at 6(\.\d+)? s \(127\.0\.0\.1:\d+\): it served its first request [\d.]+ s after nginx's reload/)
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
    assert.match(html, /data-kind="elasticity"/)
    const check = await checkReportInBrowser(path.join(out, 'report.html'))
    assert.deepEqual([check.emptyCharts, check.consoleErrors, check.externalRequests], [[], [], []])
    assert.deepEqual([check.wideTables, check.overlappingLabels], [[], []], 'tables fit a 1400 px window; no chart label over another')
    assert.ok(check.charts >= 1)
  })

test('--find-max raises connections until the first failure and reports the best error-free step', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-nginx-')
  const out = path.join(dir, 'run')
  // A request timeout far below what 64 connections wait on this app makes the search stop on timeouts.
  const run = await runCli(['bench', '--topology', 'nginx', '--processes', '1', '--scenarios', 'review-list', '--find-max',
    '--duration', '2', '--connections', '4', '--max-connections', '512', '--timeout', '1', '--warmup', '20', '--out', out],
  { env: isolatedEnv(dir) })
  assert.equal(run.code, 0, run.stderr)
  const [cell] = results(out).cells
  const { steps, best, stoppedBy, firstFailure } = cell.findMax
  assert.deepEqual(steps.map((s) => s.connections), steps.map((_, i) => 4 * 2 ** i))
  for (const step of steps.slice(0, -1)) assert.ok(step.ok, JSON.stringify(step.failures))
  if (stoppedBy === 'failures') {
    assert.equal(steps.at(-1).ok, false)
    assert.deepEqual(firstFailure.failures, steps.at(-1).failures)
    assert.ok(Object.keys(firstFailure.failures).every((kind) => ['timeout', 'connection reset', 'connection refused', '5xx from nginx', '5xx from the app'].includes(kind)))
  } else {
    assert.equal(steps.at(-1).connections, 512)
  }
  const clean = steps.filter((s) => s.ok)
  assert.equal(best.requestsPerSec, Math.max(...clean.map((s) => s.requestsPerSec)))
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /the highest throughput without a failure was [\d,.]+ req\/s at \d+ connections/)
})
