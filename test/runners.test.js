'use strict'

// nodebench-test: once. How npm resolves the tarballs and how test runners' module registries load them (`node:` specifiers, ES modules in node_modules) do not depend on the Node.js line.
// An app's own test suite passes the same with nodebench's line as without it, under every test runner Express
// apps still use. Small Express apps, one per runner (Jest 26, 27, 29 and 30, Mocha, Vitest, `node --test`),
// each with a real suite of its own (supertest requests through a middleware, a handler, a validation error and
// an error handler, and one request on a real socket), get the packed tarballs of what an app loads at run time
// (@nodebench/trace, @nodebench/breakdown, @nodebench/errors: tools/pack.js) with `npm install`, outside the
// checkout; the apps with their runners stay installed in the user's cache between runs (test/app-install.js).
// Each suite runs without `app.use(nodebenchTrace({ expose: true }))` and with it, as the README writes it: the
// same tests pass, and the runner exits by itself both times. With the line, the suite also reads the
// breakdown and makes a span of its own through the provider nodebench registers (the SDK it then loads).
// What this catches: Jest 26's registry does not know `node:` specifiers, Jest 27's fails to parse
// hdr-histogram-js's ES module loader (both failed an app's suite before).
//
// It installs from the registry (through the npm cache) and runs once per CI run, on the first line of the
// matrix (its tag; `npm run test:node -- 24 test/runners.test.js` runs it on another: Node.js 24.22.3,
// 2026-11-29, every runner the same with and without the line).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { RUN_TIME } = require('../tools/pack')
const { packedPackages } = require('./packed')
const { userCacheDir } = require('@nodebench/services')
const { runCommand, npmEnv, inPool, withDirLock, cachedApp } = require('./app-install')

const SUITE_TIMEOUT_MS = 240_000
// Two installs at once, the suites running beside them: with nothing installed yet, 101 s for the seven
// runners against 151 s one install at a time (Node.js 20, 2 busy cores, the npm cache warm, 2026-11-29).
// Once installed, a run takes about a minute.
const PARALLEL_INSTALLS = 2

// Each runner's app: its runner, its Express (4 and 5, the lowest Express 4 nodebench supports for one) and
// its supertest (7 unless said).
const RUNNERS = Object.freeze([
  // Jest 26's app has the supertest of its time (6.1, superagent 6): later ones load what Jest 26's
  // environment cannot, whoever requires it (superagent 10 `node:url`, superagent 8's formidable TextEncoder).
  { name: 'jest26', label: 'Jest 26', devDependencies: { jest: '^26.6.3', supertest: '~6.1.6' }, express: '4.17.1', style: 'jest' },
  { name: 'jest27', label: 'Jest 27', devDependencies: { jest: '^27.5.1', supertest: '^6.3.4' }, express: '^4.21.2', style: 'jest' },
  { name: 'jest29', label: 'Jest 29', devDependencies: { jest: '^29.6.3' }, express: '^5.1.0', style: 'jest' },
  { name: 'jest30', label: 'Jest 30', devDependencies: { jest: '^30.0.0' }, express: '^5.1.0', style: 'jest' },
  { name: 'mocha', label: 'Mocha', devDependencies: { mocha: '^11.7.0' }, express: '^4.21.2', style: 'mocha' },
  // Vitest 4 runs on Node.js 20, 22 and 24 (5 needs 22); its app is an ES module importing ours.
  { name: 'vitest', label: 'Vitest', devDependencies: { vitest: '^4.1.0' }, express: '^5.1.0', style: 'vitest' },
  { name: 'node-test', label: 'node --test', devDependencies: {}, express: '^5.1.0', style: 'node-test' }
])

const TRACE_REQUIRE = "const { nodebenchTrace } = require('@nodebench/trace')"
const TRACE_IMPORT = "import { nodebenchTrace } from '@nodebench/trace'"
const TRACE_USE = 'app.use(nodebenchTrace({ expose: true }))'

/** The app: a middleware, two handlers, a validation error, an error passed to an error handler. */
function appSource ({ esm, traced }) {
  return [
    esm ? "import express from 'express'" : "'use strict'\nconst express = require('express')",
    traced ? (esm ? TRACE_IMPORT : TRACE_REQUIRE) : '',
    '',
    'const app = express()',
    traced ? TRACE_USE : '',
    'let served = 0',
    'app.use(express.json())',
    'app.use(function requestId (req, res, next) {',
    "  res.set('x-request-id', String(++served))",
    '  next()',
    '})',
    "app.get('/items/:id', function readItem (req, res) {",
    "  res.json({ id: Number(req.params.id), name: 'item ' + req.params.id })",
    '})',
    "app.post('/items', function createItem (req, res) {",
    "  if (typeof req.body.name !== 'string') return res.status(400).json({ error: 'name is required' })",
    '  res.status(201).json({ id: 7, name: req.body.name })',
    '})',
    "app.get('/fail', function failing (req, res, next) {",
    "  next(new Error('database down'))",
    '})',
    'app.use(function errorHandler (err, req, res, next) {',
    '  res.status(500).json({ error: err.message })',
    '})',
    esm ? 'export default app' : 'module.exports = app',
    ''
  ].join('\n')
}

// The suite, the same six tests under every runner. Built-in modules without `node:` (the app's own tests
// under Jest 26 cannot load them either). The last test reads nodebench's breakdown when the run has the
// line (APP_TRACED), so a run that passes with it has timed the requests.
const SUITE_BODY = `
describe('items API', () => {
  it('reads an item through the middleware and the handler', async () => {
    const res = await request(app).get('/items/42').expect(200)
    assert.deepStrictEqual(res.body, { id: 42, name: 'item 42' })
    assert.ok(Number(res.headers['x-request-id']) >= 1)
  })

  it('creates an item from a JSON body', async () => {
    const res = await request(app).post('/items').send({ name: 'lamp' }).expect(201)
    assert.deepStrictEqual(res.body, { id: 7, name: 'lamp' })
  })

  it('refuses an item without a name', async () => {
    const res = await request(app).post('/items').send({}).expect(400)
    assert.strictEqual(res.body.error, 'name is required')
  })

  it('answers an error passed to next() from the error handler', async () => {
    const res = await request(app).get('/fail').expect(500)
    assert.deepStrictEqual(res.body, { error: 'database down' })
  })

  it('answers on a real socket', async () => {
    const server = app.listen(0, '127.0.0.1')
    try {
      await new Promise((resolve, reject) => { server.once('listening', resolve); server.once('error', reject) })
      const { status, body } = await new Promise((resolve, reject) => {
        http.get('http://127.0.0.1:' + server.address().port + '/items/1', (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk) => { text += chunk })
          res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }))
        }).on('error', reject)
      })
      assert.strictEqual(status, 200)
      assert.strictEqual(body.name, 'item 1')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('has been timed by nodebench when the app uses it', async () => {
    const res = await request(app).get('/__nodebench')
    if (process.env.APP_TRACED !== '1') return assert.strictEqual(res.status, 404)
    assert.strictEqual(res.status, 200)
    const read = res.body.operations.find((operation) => operation.route === '/items/:id')
    assert.ok(read && read.count >= 2, JSON.stringify(res.body.operations))
    const names = read.segments.map((segment) => segment.name)
    assert.ok(names.includes('requestId') && names.includes('readItem'), names.join(', '))
    // Looked up through the inspector, which under Jest runs beside the test's own global: the app's file.
    const readItem = read.segments.find((segment) => segment.name === 'readItem')
    assert.match(String(readItem.file), /[\\\\/]app\\.m?js$/, JSON.stringify(readItem))
    // A span of the app's own through the provider nodebench registers (the SDK it loads then), and the W3C
    // propagation it registers.
    const span = otel.trace.getTracer('items-app').startSpan('app work')
    span.end()
    const carrier = {}
    otel.propagation.inject(otel.trace.setSpan(otel.context.active(), span), carrier)
    assert.match(carrier.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
  })
})
`

const CJS_HEADER = "'use strict'\nconst assert = require('assert')\nconst http = require('http')\nconst request = require('supertest')\n" +
  "const otel = require('@opentelemetry/api')\nconst app = require('./app')\n"
const SUITES = Object.freeze({
  jest: { file: 'app.test.js', header: CJS_HEADER },
  mocha: { file: 'app.test.js', header: CJS_HEADER },
  'node-test': { file: 'app.test.js', header: CJS_HEADER + "const { describe, it } = require('node:test')\n" },
  vitest: {
    file: 'app.test.mjs',
    header: "import { describe, it } from 'vitest'\nimport assert from 'assert'\nimport http from 'http'\nimport request from 'supertest'\n" +
      "import otel from '@opentelemetry/api'\nimport app from './app.mjs'\n"
  }
})

/** The command that runs the app's suite under its runner, writing its results to `results.*`. */
function suiteCommand (style) {
  const timeouts = '60000'
  if (style === 'jest') {
    return ['node_modules/jest/bin/jest.js', '--ci', '--runInBand', '--no-watchman', '--cacheDirectory', '.jest-cache',
      '--testTimeout', timeouts, '--json', '--outputFile', 'results.json']
  }
  if (style === 'mocha') {
    return ['node_modules/mocha/bin/mocha.js', '--timeout', timeouts, '--reporter', 'json', '--reporter-option', 'output=results.json', 'app.test.js']
  }
  if (style === 'vitest') {
    return ['node_modules/vitest/vitest.mjs', 'run', '--reporter', 'json', '--outputFile', 'results.json', '--testTimeout', timeouts]
  }
  return ['--test', '--test-reporter', 'tap', '--test-reporter-destination', 'results.tap', 'app.test.js']
}

/** `{ passed, failed, total, failedFiles }` from the runner's result file; null when it wrote none. */
function readResults (dir, style) {
  const file = path.join(dir, style === 'node-test' ? 'results.tap' : 'results.json')
  if (!fs.existsSync(file)) return null
  const text = fs.readFileSync(file, 'utf8')
  if (style === 'node-test') {
    const count = (name) => Number((new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text) ?? [])[1] ?? NaN)
    // A file that fails to load is one failed test of its own in node:test's TAP.
    return { passed: count('pass'), failed: count('fail'), total: count('tests'), failedFiles: 0 }
  }
  const results = JSON.parse(text)
  if (style === 'mocha') return { passed: results.stats.passes, failed: results.stats.failures, total: results.stats.tests, failedFiles: 0 }
  return { passed: results.numPassedTests, failed: results.numFailedTests, total: results.numTotalTests, failedFiles: results.numFailedTestSuites }
}

function devDependencies (runner) {
  return { supertest: '^7.1.0', ...runner.devDependencies }
}

/** The app's package.json before our packages are installed into it: its Express, its runner, supertest. */
function baseManifest (runner) {
  return {
    name: `${runner.name}-app`,
    version: '1.0.0',
    private: true,
    dependencies: { express: runner.express },
    devDependencies: devDependencies(runner)
  }
}

/** Runs the app's suite with or without nodebench's line; resolves to the runner's counts and output. */
async function runSuite (dir, runner, traced) {
  const esm = runner.style === 'vitest'
  fs.writeFileSync(path.join(dir, esm ? 'app.mjs' : 'app.js'), appSource({ esm, traced }))
  for (const file of ['results.json', 'results.tap']) fs.rmSync(path.join(dir, file), { force: true })
  const env = { ...npmEnv(), APP_TRACED: traced ? '1' : '0', CI: '1', NO_COLOR: '1' }
  delete env.OTEL_SERVICE_NAME
  const { code, output, timedOut } = await runCommand(process.execPath, suiteCommand(runner.style), { cwd: dir, env, timeoutMs: SUITE_TIMEOUT_MS })
  return { code, output, timedOut, results: readResults(dir, runner.style) }
}

test('an app\'s suite passes the same with app.use(nodebenchTrace()) under Jest 26, 27, 29, 30, Mocha, Vitest and node --test', {
  timeout: 1_800_000
}, (t) => withDirLock(path.join(userCacheDir(), 'test-apps', 'runners'), async () => {
  const log = (line) => process.stderr.write(`runners: ${line}\n`)
  const runTime = new Set(RUN_TIME.map((dir) => require(`../${dir}/package.json`).name))
  const tarballs = packedPackages().filter(({ name }) => runTime.has(name))
  const started = Date.now()
  // Installs run ahead of the suites; each runner's test waits for its own.
  const installs = new Map(RUNNERS.map((runner) => {
    let settle
    const ready = new Promise((resolve, reject) => { settle = { resolve, reject } })
    ready.catch(() => {})
    return [runner.name, { ready, ...settle }]
  }))
  const queue = inPool(RUNNERS, PARALLEL_INSTALLS, async (runner) => {
    const began = Date.now()
    try {
      const tools = Object.entries(devDependencies(runner)).map(([name, range]) => `${name} ${range}`).join(', ')
      log(`${runner.label} (express ${runner.express}, ${tools}): installing...`)
      const dir = await cachedApp(`runners/${runner.name}`, baseManifest(runner), tarballs, { onProgress: (line) => log(`${runner.label}: ${line}`) })
      const suite = SUITES[runner.style]
      fs.writeFileSync(path.join(dir, suite.file), suite.header + SUITE_BODY)
      log(`${runner.label}: installed in ${Math.round((Date.now() - began) / 1000)} s`)
      installs.get(runner.name).resolve(dir)
    } catch (err) {
      installs.get(runner.name).reject(err)
    }
  })

  for (const runner of RUNNERS) {
    await t.test(runner.label, async () => {
      const dir = await installs.get(runner.name).ready
      const runs = {}
      for (const traced of [false, true]) {
        const run = await runSuite(dir, runner, traced)
        const which = traced ? 'with nodebench' : 'without nodebench'
        const summary = run.results === null ? 'no results' : `${run.results.passed} of ${run.results.total} passed`
        log(`${runner.label} ${which}: ${summary}, exit ${run.timedOut ? 'none (killed)' : run.code}`)
        const context = `${runner.label} ${which}:\n${run.output.slice(-6000)}`
        assert.ok(!run.timedOut, `the runner did not exit by itself within ${SUITE_TIMEOUT_MS / 1000} s: ${context}`)
        assert.notEqual(run.results, null, `no results written: ${context}`)
        runs[which] = { ...run.results, exitCode: run.code }
        if (!traced) assert.deepEqual(runs[which], { passed: 6, failed: 0, total: 6, failedFiles: 0, exitCode: 0 }, context)
        else assert.deepEqual(runs[which], runs['without nodebench'], context)
      }
    })
  }
  await queue
  log(`${RUNNERS.length} runners in ${Math.round((Date.now() - started) / 1000)} s`)
}))
