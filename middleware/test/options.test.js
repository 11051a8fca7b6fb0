'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { nodebenchTrace, nodebenchPrimary, errorCodes, NodebenchError } = require('..')
const { normalizeOptions, KNOWN_OPTIONS } = require('../lib/options')

// Every coded error, the input that triggers it, and what its message must say.
const INVALID = [
  [42, 'NB_ERR_OPTIONS_TYPE', /options must be an object; received 42/],
  [[], 'NB_ERR_OPTIONS_TYPE', /options must be an object; received \[\]/],
  [{ samplerate: 1 }, 'NB_ERR_UNKNOWN_OPTION', /unknown option "samplerate"; expected one of serviceName, exporter, sampleRatio/],
  [{ serviceName: '' }, 'NB_ERR_SERVICE_NAME', /option "serviceName" must be a non-empty string; received ''/],
  [{ serviceName: 7 }, 'NB_ERR_SERVICE_NAME', /received 7/],
  [{ exporter: 'jaeger' }, 'NB_ERR_EXPORTER', /option "exporter" must be "otlp", "none" or an OpenTelemetry SpanExporter .*; received 'jaeger'/],
  [{ exporter: { export () {} } }, 'NB_ERR_EXPORTER', /received \{ export: \[Function: export\] \}/],
  [{ sampleRatio: 1.5 }, 'NB_ERR_SAMPLE_RATIO', /option "sampleRatio" must be a number from 0 to 1; received 1\.5/],
  [{ sampleRatio: '0.1' }, 'NB_ERR_SAMPLE_RATIO', /received '0\.1'/],
  [{ sampleRatio: NaN }, 'NB_ERR_SAMPLE_RATIO', /received NaN/],
  [{ serverTiming: 'yes' }, 'NB_ERR_SERVER_TIMING', /option "serverTiming" must be true \(every response\), false, or a function \(req\) => boolean .*; received 'yes'/],
  [{ expose: 'metrics' }, 'NB_ERR_EXPOSE', /option "expose" must be false, true, or a path starting with "\/".*; received 'metrics'/],
  [{ expose: '/a?b' }, 'NB_ERR_EXPOSE', /received '\/a\?b'/],
  [{ access: 'local' }, 'NB_ERR_ACCESS', /option "access" must be an object \{ read, reset \}, each 'local' \(this machine only\), 'anyone', or a function \(req\) => boolean; received 'local'/],
  [{ access: { write: 'local' } }, 'NB_ERR_ACCESS', /unknown key "write" in option "access"; expected read and reset/],
  [{ access: { reset: 'everyone' } }, 'NB_ERR_ACCESS', /option "access\.reset" must be 'local' \(this machine only\), 'anyone', or a function \(req\) => boolean; received 'everyone'/],
  [{ maxQueueSize: 0 }, 'NB_ERR_MAX_QUEUE_SIZE', /option "maxQueueSize" must be a positive integer \(spans\); received 0/],
  [{ maxOperations: 2.5 }, 'NB_ERR_MAX_OPERATIONS', /option "maxOperations" must be a positive integer; received 2\.5/],
  [{ activeContext: 1 }, 'NB_ERR_ACTIVE_CONTEXT', /option "activeContext" must be true or false; received 1/],
  [{ layerSpans: 'express' }, 'NB_ERR_LAYER_SPANS', /option "layerSpans" must be 'nodebench' \(nodebench's layer spans stand, instrumentation-express's are turned off\) or 'instrumentation-express'.*; received 'express'/],
  [{ metrics: 'prometheus' }, 'NB_ERR_METRICS', /option "metrics" must be false, true \(OTLP push\), or \{ otlp, prometheus \}; received 'prometheus'/],
  [{ metrics: { push: true } }, 'NB_ERR_METRICS', /unknown key "push" in option "metrics"; expected otlp and prometheus/],
  [{ metrics: {} }, 'NB_ERR_METRICS', /option "metrics" must be .*, with otlp or prometheus on; received \{\}/],
  [{ metrics: { otlp: { intervalMs: 10 } } }, 'NB_ERR_METRICS', /option "metrics\.otlp\.intervalMs" must be a whole number of milliseconds, at least 100; received 10/],
  [{ metrics: { otlp: { every: 5 } } }, 'NB_ERR_METRICS', /option "metrics\.otlp" must be true, false or \{ intervalMs \}/],
  [{ metrics: { prometheus: 'metrics' } }, 'NB_ERR_METRICS', /option "metrics\.prometheus" must be false, a path on the app \("\/metrics"\), or \{ port, host \}.*; received 'metrics'/],
  [{ expose: '/m', metrics: { prometheus: '/m' } }, 'NB_ERR_METRICS', /option "metrics\.prometheus" must be a path other than expose's \("\/m"\); received '\/m'/],
  [{ metrics: { prometheus: { port: 70000 } } }, 'NB_ERR_METRICS', /option "metrics\.prometheus\.port" must be an integer from 1 to 65535; received 70000/],
  [{ metrics: { prometheus: { port: 9464, host: '' } } }, 'NB_ERR_METRICS', /option "metrics\.prometheus\.host" must be an address to listen on/]
]

for (const [options, code, message] of INVALID) {
  test(`nodebenchTrace(${JSON.stringify(options)}) throws ${code}`, () => {
    assert.throws(() => nodebenchTrace(options), (err) => {
      assert.ok(err instanceof NodebenchError)
      assert.ok(err instanceof TypeError)
      assert.equal(err.code, code)
      assert.equal(errorCodes[code], code)
      assert.match(err.message, message)
      return true
    })
  })
}

test('nodebenchPrimary({ timeoutMs: 0 }) throws NB_ERR_CLUSTER', () => {
  assert.throws(() => nodebenchPrimary({ timeoutMs: 0 }), (err) => {
    assert.ok(err instanceof NodebenchError)
    assert.ok(err instanceof TypeError)
    assert.equal(err.code, errorCodes.NB_ERR_CLUSTER)
    assert.match(err.message, /^nodebenchPrimary: timeoutMs must be a positive integer \(milliseconds\); received 0$/)
    return true
  })
})

test('every error code is pinned by a test above', () => {
  const tested = new Set([...INVALID.map(([, code]) => code), 'NB_ERR_CLUSTER'])
  assert.deepEqual([...tested].sort(), Object.keys(errorCodes).sort())
})

test('defaults: otlp exporter, ratio 1, features off, frozen', () => {
  const options = normalizeOptions(undefined, {})
  assert.equal(options.exporter, 'otlp')
  assert.equal(options.sampleRatio, 1)
  assert.equal(options.serverTiming, false)
  assert.equal(options.expose, false)
  assert.deepEqual(options.access, { read: 'local', reset: 'local' })
  assert.equal(options.maxQueueSize, 2048)
  assert.equal(options.activeContext, false)
  assert.ok(Object.isFrozen(options))
  assert.deepEqual(Object.keys(options).sort(), [...KNOWN_OPTIONS].sort())
})

test('metrics: off by default; true is OTLP push every OTEL_METRIC_EXPORT_INTERVAL ms, else every 60 s', () => {
  assert.equal(normalizeOptions({}, {}).metrics, false)
  assert.deepEqual(normalizeOptions({ metrics: true }, {}).metrics, { otlp: { intervalMs: 60000 }, prometheus: false })
  assert.deepEqual(normalizeOptions({ metrics: true }, { OTEL_METRIC_EXPORT_INTERVAL: '5000' }).metrics.otlp, { intervalMs: 5000 })
  assert.deepEqual(normalizeOptions({ metrics: { otlp: { intervalMs: 1000 } } }, { OTEL_METRIC_EXPORT_INTERVAL: '5000' }).metrics.otlp, { intervalMs: 1000 })
  assert.throws(() => normalizeOptions({ metrics: true }, { OTEL_METRIC_EXPORT_INTERVAL: 'soon' }),
    /option "metrics\.otlp\.intervalMs \(from OTEL_METRIC_EXPORT_INTERVAL\)" must be a whole number of milliseconds, at least 100; received NaN/)
  assert.deepEqual(normalizeOptions({ metrics: { prometheus: '/metrics' } }, {}).metrics, { otlp: false, prometheus: { path: '/metrics' } })
  assert.deepEqual(normalizeOptions({ metrics: { prometheus: { port: 9464 } } }, {}).metrics.prometheus, { port: 9464, host: '0.0.0.0' })
})

test('expose: true means /__nodebench', () => {
  assert.equal(normalizeOptions({ expose: true }, {}).expose, '/__nodebench')
})

test('access: each rule defaults to local; a predicate and serverTiming predicate are kept as given', () => {
  const allow = (req) => req.headers['x-ops'] === 'yes'
  const options = normalizeOptions({ access: { read: allow }, serverTiming: allow }, {})
  assert.deepEqual(options.access, { read: allow, reset: 'local' })
  assert.equal(options.serverTiming, allow)
  assert.ok(Object.isFrozen(options.access))
  assert.deepEqual(normalizeOptions({ access: { read: 'anyone', reset: 'anyone' } }, {}).access, { read: 'anyone', reset: 'anyone' })
})

test('OTEL_SERVICE_NAME and OTEL_TRACES_SAMPLER(_ARG) give the defaults', () => {
  assert.equal(normalizeOptions({}, { OTEL_SERVICE_NAME: 'mongo-admin' }).serviceName, 'mongo-admin')
  assert.equal(normalizeOptions({}, { OTEL_TRACES_SAMPLER_ARG: '0.25' }).sampleRatio, 0.25)
  assert.equal(normalizeOptions({}, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).sampleRatio, 0.1)
  assert.equal(normalizeOptions({}, { OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: '0.5' }).sampleRatio, 0)
  assert.equal(normalizeOptions({ sampleRatio: 0.3 }, { OTEL_TRACES_SAMPLER_ARG: '0.9' }).sampleRatio, 0.3)
  assert.throws(() => normalizeOptions({}, { OTEL_TRACES_SAMPLER_ARG: 'lots' }),
    { code: 'NB_ERR_SAMPLE_RATIO', message: /OTEL_TRACES_SAMPLER_ARG.*received 'lots'/ })
})

test("OTEL_TRACES_EXPORTER chooses the exporter when the option is not given: otlp, none, or the app's SDK's", () => {
  assert.equal(normalizeOptions({}, { OTEL_TRACES_EXPORTER: 'none' }).exporter, 'none')
  assert.equal(normalizeOptions({}, { OTEL_TRACES_EXPORTER: ' OTLP ' }).exporter, 'otlp')
  assert.equal(normalizeOptions({}, { OTEL_TRACES_EXPORTER: 'console,otlp' }).exporter, 'otlp')
  assert.equal(normalizeOptions({ exporter: 'otlp' }, { OTEL_TRACES_EXPORTER: 'none' }).exporter, 'otlp', 'the option wins')
  // An exporter only the app's SDK makes: nodebench's spans go through the app's provider (never a throw).
  assert.equal(normalizeOptions({}, { OTEL_TRACES_EXPORTER: 'console' }).exporter, 'app')
  assert.equal(normalizeOptions({}, { OTEL_TRACES_EXPORTER: 'zipkin' }).exporter, 'app')
  assert.throws(() => normalizeOptions({ exporter: 'app' }, {}), (err) => err.code === 'NB_ERR_EXPORTER')
})

test('OTEL_SDK_DISABLED=true: no spans nor metrics of nodebench\'s, whatever the options or variables say; the options are still checked', () => {
  const exporter = { export () {}, shutdown () { return Promise.resolve() } }
  const env = { OTEL_SDK_DISABLED: ' TRUE ', OTEL_METRICS_EXPORTER: 'otlp' }
  const disabled = normalizeOptions({ exporter, metrics: { prometheus: '/metrics' } }, env)
  assert.equal(disabled.exporter, 'none')
  assert.equal(disabled.metrics, false)
  assert.equal(normalizeOptions({}, { OTEL_SDK_DISABLED: 'false' }).exporter, 'otlp')
  assert.throws(() => normalizeOptions({ sampleRatio: 2 }, env), { code: 'NB_ERR_SAMPLE_RATIO' })
})

test('an exporter instance is accepted as it is', () => {
  const exporter = { export () {}, shutdown () { return Promise.resolve() } }
  assert.equal(normalizeOptions({ exporter }, {}).exporter, exporter)
})

test('metrics from OpenTelemetry\'s variables when the option is not given; the option wins when it is', () => {
  const metricsOf = (env, options = {}) => normalizeOptions(options, env).metrics
  assert.equal(metricsOf({ OTEL_METRICS_EXPORTER: 'none' }), false)
  assert.deepEqual(metricsOf({ OTEL_METRICS_EXPORTER: 'prometheus' }), { otlp: false, prometheus: { port: 9464, host: 'localhost' } })
  assert.deepEqual(metricsOf({ OTEL_METRICS_EXPORTER: 'otlp, prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '9500', OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1', OTEL_METRIC_EXPORT_INTERVAL: '1000' }),
    { otlp: { intervalMs: 1000 }, prometheus: { port: 9500, host: '127.0.0.1' } })
  assert.equal(metricsOf({ OTEL_METRICS_EXPORTER: 'prometheus' }, { metrics: false }), false)
  // console is the app's SDK's to make (NodeSDK): nodebench exports nothing for it, and does not fail.
  assert.equal(metricsOf({ OTEL_METRICS_EXPORTER: 'console' }), false)
  assert.deepEqual(metricsOf({ OTEL_METRICS_EXPORTER: 'console,otlp' }), { otlp: { intervalMs: 60000 }, prometheus: false })
  assert.throws(() => metricsOf({ OTEL_METRICS_EXPORTER: 'graphite' }),
    (err) => err.code === 'NB_ERR_METRICS' && /option "metrics \(from OTEL_METRICS_EXPORTER\)" must be a comma-separated list of otlp, prometheus, console \(the app's SDK's\) and none; received 'graphite'/.test(err.message))
  assert.throws(() => metricsOf({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: 'high' }),
    (err) => err.code === 'NB_ERR_METRICS' && /option "metrics\.prometheus\.port \(from OTEL_EXPORTER_PROMETHEUS_PORT\)" must be an integer from 1 to 65535; received NaN/.test(err.message))
})

test('nodebenchPrimary: metrics of its own are a port, never a path; from the variables too', () => {
  const { nodebenchPrimary } = require('..')
  assert.throws(() => nodebenchPrimary({ metrics: { prometheus: '/metrics' } }),
    (err) => err.code === 'NB_ERR_METRICS' && /^nodebenchPrimary: option "metrics\.prometheus" must be \{ port, host \}: the primary serves no app/.test(err.message))
  assert.throws(() => nodebenchPrimary({ metrics: { scrape: true } }), /nodebenchPrimary: unknown key "scrape" in option "metrics"/)
})
