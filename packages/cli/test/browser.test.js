'use strict'

// nodebench-test: once. Chromium loads the example's pages and bench reads its figures: the Node.js version does not change what this tests.
// `nodebench browser`: the study's client-side half in real Chromium (Debian's, through playwright-core),
// against the real example app on the embedded database, and against a small server of the test's own for
// the ways a page goes wrong.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { parseBrowserArguments } = require('../lib/commands/browser')
const { splitPageTime } = require('../lib/browser/time-split')
const { checkReportInBrowser } = require('./page-check')
const { runCli, isolatedEnv, temporaryDir } = require('../../../test/support')

const usage = (message) => (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message)

test('options: the workload\'s front ends and default pages, paths as pages, and usage errors', () => {
  const { config } = parseBrowserArguments([], { now: new Date('2026-11-25T10:00:00Z') })
  assert.deepEqual([config.frontEnds, config.pages, config.caches, config.runs, config.network, config.timeoutSec],
    [['server-rendered', 'single-page'], ['home', 'collection'], ['cold', 'warm'], 5, 'none', 30])
  assert.equal(config.outDir, path.resolve('runs', 'browser-2026-11-25T10-00-00-000Z'))
  const custom = parseBrowserArguments(['--pages', 'document,/db/nodebench/reviews', '--front-ends', 'single-page', '--runs', '2',
    '--cache', 'warm', '--network', 'slow-3g']).config
  assert.deepEqual([custom.pages, custom.frontEnds, custom.runs, custom.caches, custom.network],
    [['document', '/db/nodebench/reviews'], ['single-page'], 2, ['warm'], 'slow-3g'])
  for (const [argv, message] of [
    [['--pages', 'settings'], /unknown page 'settings'; expected one of home, database, collection, document, or a path such as \/db\/nodebench/],
    [['--front-ends', 'react'], /unknown front end 'react'; expected one of server-rendered, single-page/],
    [['--network', '5g'], /--network must be one of none, lan, fast-3g, slow-3g; received '5g'/],
    [['--cache', 'hot'], /unknown cache 'hot'; expected one of cold, warm/],
    [['--runs', '0'], /--runs must be a whole number from 1 to 100/],
    [['--app', 'a', '--url', 'http://x'], /--app excludes --cmd and --url/]
  ]) {
    assert.throws(() => parseBrowserArguments(argv), usage(message), argv.join(' '))
  }
})

test('the time split counts each moment of the page once: server, else network, else client', () => {
  // The page (0-100 ms) and two overlapping scripts (40-70, 50-90); the app worked 10 ms on the page
  // (first byte at 30) and 5 ms on each script (first bytes at 60 and 80). Until ready at 120 ms.
  const requests = [
    { startMs: 0, firstByteMs: 30, endMs: 35, serverMs: 10 },
    { startMs: 40, firstByteMs: 60, endMs: 70, serverMs: 5 },
    { startMs: 50, firstByteMs: 80, endMs: 90, serverMs: 5 },
    { startMs: 95, firstByteMs: 0, endMs: 100, serverMs: null } // from the browser's cache: no Server-Timing
  ]
  // In flight: 0-35, 40-90, 95-100 = 90 ms; server: 20-30, 55-60, 75-80 = 20 ms; client: 120 - 90 = 30 ms.
  assert.deepEqual(splitPageTime(requests, 120), { serverMs: 20, networkMs: 70, clientMs: 30, requestsWithServerTiming: 3 })
  // Server time never starts before its request did, and nothing counts past the page's end.
  assert.deepEqual(splitPageTime([{ startMs: 10, firstByteMs: 12, endMs: 200, serverMs: 50 }], 100),
    { serverMs: 2, networkMs: 88, clientMs: 10, requestsWithServerTiming: 1 })
})

test('both front ends in Chromium: every load\'s figures, a stable heap after a forced collection, AngularJS read from the page', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-browser-')
  const out = path.join(dir, 'run')
  const run = await runCli(['browser', '--pages', 'home,collection', '--runs', '3', '--cache', 'cold', '--out', out], { env: isolatedEnv(dir) })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /│ page +│ front end +│ cache │ runs │ load ms │ ready ms │ heap after GC MB │/)
  assert.match(run.stdout, /│ collection +│ single-page +│ cold +│ 3\/3 +│ [\d.]+ +│ [\d.]+ +│/)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'browser.json'), 'utf8'))
  assert.equal(results.schema, 1)
  assert.equal(results.loads.length, 2 * 2 * 3, 'every load is written')
  for (const load of results.loads) {
    assert.equal(load.status, 'ok', load.failure)
    for (const figure of ['domContentLoadedMs', 'loadMs', 'heapUsedBytes', 'heapUsedAfterGcBytes', 'scriptMs', 'layoutMs', 'styleMs', 'requests', 'bytes']) {
      assert.ok(typeof load[figure] === 'number' && load[figure] >= 0, `${load.page} ${load.frontEnd}: ${figure} ${load[figure]}`)
    }
    assert.ok(load.heapUsedAfterGcBytes <= load.heapUsedBytes * 1.05, 'a collection frees, it does not grow the heap')
    assert.ok(load.split.requestsWithServerTiming >= 1, 'the app\'s Server-Timing reached the page')
    const { serverMs, networkMs, clientMs } = load.split
    assert.ok(Math.abs(serverMs + networkMs + clientMs - (load.readyMs ?? load.loadMs)) < 0.01, `the split adds up: ${JSON.stringify(load.split)}`)
    if (load.frontEnd === 'single-page') {
      assert.ok(load.readyMs >= load.domContentLoadedMs, 'the port shows its data after DOMContentLoaded')
      assert.equal(load.angular.version, '1.8.3')
      assert.ok(load.angular.scopes > 1 && load.angular.watchers > 0 && load.angular.digestMeanMs > 0, JSON.stringify(load.angular))
    } else {
      assert.equal(load.angular, null)
    }
  }
  // AngularJS's figures come from the running page: the collection page has a scope per row of its table.
  const angularOf = (page) => results.summary.find((row) => row.page === page && row.frontEnd === 'single-page').angular
  assert.ok(angularOf('collection').scopes > 1000, `scopes on the 1000-document page: ${angularOf('collection').scopes}`)
  assert.ok(angularOf('collection').watchers > angularOf('home').watchers)
  // The heap after a forced collection is stable: within 10% across the runs of each page and front end.
  for (const row of results.summary) assert.ok(row.heapAfterGcSpread < 0.1, `${row.page} ${row.frontEnd}: spread ${row.heapAfterGcSpread}`)
  const profiled = results.loads.filter((load) => load.functions)
  assert.equal(profiled.length, 4, 'one function profile per page and front end')
  const spaCollection = profiled.find((load) => load.page === 'collection' && load.frontEnd === 'single-page')
  assert.ok(spaCollection.functions.byTotal.some((fn) => fn.name === '$digest' || fn.name === '$apply'), spaCollection.functions.byTotal.map((fn) => fn.name).join())
  const markdown = fs.readFileSync(path.join(out, 'browser.md'), 'utf8')
  assert.match(markdown, /collection \(cold cache\): the single-page port fired load [\d.]+ ms (after|before) the server-rendered page/)
  assert.match(markdown, /\| collection \| AngularJS scopes \| \d+ \| 273 \|/)
  const check = await checkReportInBrowser(path.join(out, 'browser.html'))
  assert.deepEqual([check.emptyCharts, check.consoleErrors, check.externalRequests], [[], [], []])
  assert.deepEqual([check.wideTables, check.overlappingLabels], [[], []], 'tables fit a 1400 px window; no chart label over another')
  assert.equal(check.charts, 3)
})

test('a page that fails or never loads is a failed row with the reason, the others measured; no hang', { timeout: 120_000 }, async (t) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/slow') return // never answers
    if (req.url === '/missing') return res.writeHead(404).end('no such page')
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ok</title><p>ok</p>')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const dir = temporaryDir(t, 'nodebench-browser-')
  const workload = path.join(dir, 'nodebench.workload.json')
  fs.writeFileSync(workload, JSON.stringify({
    scenarios: { home: { request: { path: '/' } } },
    browser: { frontEnds: { plain: { url: '{path}' } }, pages: { ok: '/', slow: '/slow', missing: '/missing' } }
  }))
  const out = path.join(dir, 'run')
  const run = await runCli(['browser', '--url', `http://127.0.0.1:${server.address().port}`, '--workload', workload, '--pages', 'ok,slow,missing',
    '--runs', '1', '--cache', 'cold', '--timeout', '2', '--out', out])
  assert.equal(run.code, 1)
  assert.match(run.stderr, /\nnodebench: 2 loads failed: slow, plain: no load event within 2 s\n$/)
  assert.match(run.stdout, /│ slow +│ plain +│ cold +│ 0\/1 +│ failed: no load event within 2 s +│/)
  const { loads } = JSON.parse(fs.readFileSync(path.join(out, 'browser.json'), 'utf8'))
  assert.deepEqual(loads.map((load) => [load.page, load.status, load.failure ?? null]), [
    ['ok', 'ok', null], ['slow', 'failed', 'no load event within 2 s'], ['missing', 'failed', 'the page answered 404']
  ])

  const noChromium = await runCli(['browser', '--url', `http://127.0.0.1:${server.address().port}`, '--workload', workload, '--pages', 'ok',
    '--runs', '1', '--out', path.join(dir, 'none')], { env: { ...process.env, CHROMIUM_PATH: path.join(dir, 'no-chromium') } })
  assert.equal(noChromium.code, 1)
  assert.match(noChromium.stderr, /^nodebench: measuring page loads \(nodebench browser\) needs Chromium, but CHROMIUM_PATH is ".*no-chromium", which is not an executable file/)
})

test('bench --browser: a quick browser pass after the cells, its section in report.md and report.html', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-browser-')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--scenarios', 'doc-read', '--formats', 'json', '--processes', '1', '--reps', '1', '--amount', '300',
    '--browser', '--out', out], { env: isolatedEnv(dir) })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /\nThe browser, here and in the study \(medians of 2 loads in Chromium\):\n {2}home \(cold cache\): the single-page port fired load /)
  assert.match(run.stderr, /nodebench bench --browser: \[16\/16\] collection, single-page, warm cache, run 2: load \d+ ms, ready \d+ ms/)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.cells[0].status, 'ok')
  const { browser } = results
  assert.deepEqual([browser.config.runs, browser.config.caches, browser.config.pages], [2, ['cold', 'warm'], ['home', 'collection']])
  assert.deepEqual(browser.loads.filter((load) => load.status !== 'ok'), [])
  assert.ok(fs.existsSync(path.join(out, 'browser.json')), 'the pass keeps its own file beside results.json')
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /\n## The browser: the study's client-side half\n[^]*\| collection \| heap after GC, port ÷ pages \| [\d.]+× \| 1\.93× \|/)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<a href="#browser">Browser<\/a>/)
  assert.equal(html.match(/<figure class="chart" data-kind="browser"/g).length, 3)
  const check = await checkReportInBrowser(path.join(out, 'report.html'))
  assert.deepEqual([check.emptyCharts, check.consoleErrors, check.externalRequests], [[], [], []])
  assert.deepEqual([check.wideTables, check.overlappingLabels], [[], []], 'tables fit a 1400 px window; no chart label over another')
})
