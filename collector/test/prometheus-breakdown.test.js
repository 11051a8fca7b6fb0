'use strict'

// The arithmetic of breakdowns read from Prometheus, on series shaped as its HTTP API returns them: exact
// increases over a window (baselines, series born in the window, restarts), histogram_quantile's
// interpolation, and the configuration and targets nodebench writes for it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { windowIncrease, bucketQuantile, foldSeries } = require('../lib/prometheus-breakdown')
const { parseTarget, writeTargets, prometheusConfig, promDuration } = require('../lib/prometheus')
const { parseInterval, prometheusService } = require('../lib/prometheus-service')

const samples = (...pairs) => pairs.map(([time, value]) => [time, String(value)])

test('the increase over (since, until]: from the last sample at or before since, never extrapolated', () => {
  assert.equal(windowIncrease(samples([90, 10], [100, 12], [110, 20], [120, 26], [130, 40]), 100, 120), 14)
  assert.equal(windowIncrease(samples([90, 10], [105, 10]), 100, 120), 0, 'no request in the window')
  // A series that begins in the window (an instance started, or an operation first served): from zero.
  assert.equal(windowIncrease(samples([105, 7], [115, 9]), 100, 120), 9)
  // A restart: the counter goes down and counts from zero again, as increase() reads it.
  assert.equal(windowIncrease(samples([95, 30], [105, 35], [110, 4], [115, 20]), 100, 120), 5 + 4 + 16)
  assert.equal(windowIncrease(samples([95, 30], [105, 2]), 100, 120), 2, 'a restart between the baseline and the first sample')
  assert.equal(windowIncrease([], 100, 120), 0)
})

test('quantiles from cumulative buckets, interpolated within a bucket as histogram_quantile() does', () => {
  const buckets = [[0.001, 10], [0.005, 30], [0.01, 40], [Infinity, 40]]
  assert.equal(bucketQuantile(0.25, buckets), 0.001, 'the rank 10 is the first bucket\'s top')
  assert.ok(Math.abs(bucketQuantile(0.5, buckets) - (0.001 + 0.004 * (20 - 10) / 20)) < 1e-12)
  assert.ok(Math.abs(bucketQuantile(0.1, buckets) - 0.0004) < 1e-12, 'the lowest bucket from 0')
  assert.equal(bucketQuantile(0.99, [[0.001, 1], [Infinity, 10]]), 0.001, 'a rank in +Inf: the highest finite bound')
  assert.ok(Number.isNaN(bucketQuantile(0.5, [[Infinity, 0]])))
  assert.ok(Number.isNaN(bucketQuantile(0.5, [])))
})

test('series fold into operations, segments in path order, the remainder and the instances', () => {
  const op = { http_request_method: 'GET', http_route: '/x', nodebench_format: 'json', service_name: 's' }
  const series = [
    { metric: { ...op, __name__: 'http_server_request_duration_count', http_response_status_code: '200', service_instance_id: 'a', instance: 'h:1' }, values: samples([5, 4]) },
    { metric: { ...op, __name__: 'http_server_request_duration_count', http_response_status_code: '503', service_instance_id: 'b', instance: 'h:2' }, values: samples([5, 1]) },
    { metric: { ...op, __name__: 'http_server_request_duration_seconds_sum', http_response_status_code: '200', service_instance_id: 'a' }, values: samples([5, 0.5]) },
    { metric: { ...op, __name__: 'nodebench_segment_duration_count', nodebench_segment_name: 'load', nodebench_segment_kind: 'param', nodebench_segment_order: '1' }, values: samples([5, 5]) },
    { metric: { ...op, __name__: 'nodebench_segment_duration_count', nodebench_segment_name: 'auth', nodebench_segment_kind: 'middleware', nodebench_segment_order: '0' }, values: samples([5, 5]) },
    { metric: { ...op, __name__: 'nodebench_segment_duration_sum', nodebench_segment_name: 'unattributed', nodebench_segment_kind: 'unattributed', nodebench_segment_order: '2' }, values: samples([5, 0.1]) },
    { metric: { __name__: 'up', instance: 'h:1' }, values: samples([5, 1]) }
  ]
  const { operations, instances } = foldSeries(series, 0, 10)
  const operation = operations.get('GET /x json')
  assert.equal(operation.requests.count, 5)
  assert.equal(operation.errors, 1)
  assert.equal(operation.requests.sum, 0.5, 'the unit suffix of OTLP ingestion is read too')
  assert.equal(operation.unattributedSeconds, 0.1)
  assert.deepEqual([...operation.segments.values()].map((s) => [s.name, s.orderWeight / s.histogram.count]), [['load', 1], ['auth', 0]])
  assert.deepEqual([...instances.values()].map((i) => [i.id, i.address, i.requests]), [['a', 'h:1', 4], ['b', 'h:2', 1]])
})

test('targets: host:port[/path] or an http URL; written as file_sd groups by path, atomically; config as JSON', (t) => {
  assert.deepEqual(parseTarget('127.0.0.1:9464'), { address: '127.0.0.1:9464', path: '/metrics' })
  assert.deepEqual(parseTarget('http://app.internal:3000/admin/metrics'), { address: 'app.internal:3000', path: '/admin/metrics' })
  for (const bad of ['localhost', 'https://a:1/m', 'a:1/m?x=1', ':9']) {
    assert.throws(() => parseTarget(bad), (err) => err.code === 'NB_ERR_PROMETHEUS_TARGET' && err.message.includes(`"${bad}"`))
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-targets-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = writeTargets(dir, 'bench-1', [parseTarget('a:1'), parseTarget('b:2/m'), parseTarget('c:3')], { cell: 'x' })
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), [
    { targets: ['a:1', 'c:3'], labels: { __metrics_path__: '/metrics', cell: 'x' } },
    { targets: ['b:2'], labels: { __metrics_path__: '/m', cell: 'x' } }
  ])
  assert.deepEqual(fs.readdirSync(dir), ['bench-1.json'], 'no temporary file left')
  writeTargets(dir, 'bench-1', [])
  assert.deepEqual(fs.readdirSync(dir), [])
  const config = prometheusConfig({ targetsDir: dir, scrapeIntervalMs: 1500, targetsFiles: ['/etc/x.yml'] })
  assert.equal(config.global.scrape_interval, '1500ms')
  assert.deepEqual(config.scrape_configs[0].file_sd_configs[0].files, [path.join(dir, '*.json'), '/etc/x.yml'])
  assert.deepEqual([1000, 60000, 250].map(promDuration), ['1s', '60s', '250ms'])
})

test('services start prometheus: its options, checked before anything starts', () => {
  assert.deepEqual(prometheusService.parseOptions({ target: ['a:1', 'b:2/x'], 'scrape-interval': '2s' }),
    { targets: [{ address: 'a:1', path: '/metrics' }, { address: 'b:2', path: '/x' }], scrapeIntervalMs: 2000 })
  assert.deepEqual(prometheusService.parseOptions({}), {})
  assert.equal(parseInterval('500ms'), 500)
  for (const bad of ['0s', '10m', 'soon', '1.5s']) {
    assert.throws(() => parseInterval(bad), (err) => err.code === 'NB_ERR_USAGE' && /is not a duration from 100ms to 5m/.test(err.message))
  }
  assert.throws(() => prometheusService.parseOptions({ 'targets-file': ['/no/such/file.json'] }),
    (err) => err.code === 'NB_ERR_USAGE' && /--targets-file \/no\/such\/file\.json does not exist/.test(err.message))
})
