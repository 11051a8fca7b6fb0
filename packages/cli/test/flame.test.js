'use strict'

// `nodebench flame`: its options, and a real profile of one scenario in both formats against the embedded
// database, opened in headless Chromium.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startDatabase } = require('@nodebench/services')
const { parseFlameArguments } = require('../lib/flame/config')
const { checkReportInBrowser } = require('../lib/bench/browser-check')
const { runCli } = require('../../../test/support')

const usage = (message) => (err) => ['NB_ERR_USAGE', 'NB_ERR_WORKLOAD'].includes(err.code) && message.test(err.message)

test('options: defaults, choices, and usage errors', () => {
  const { config } = parseFlameArguments([])
  assert.deepEqual([config.scenario, config.formats, config.profiler, config.duration, config.connections],
    ['doc-read', ['html', 'json'], '0x', 10, 10])
  assert.equal(config.outDir, path.resolve('flamegraphs'))
  assert.match(config.argv[0], /examples[/\\]mongo-admin[/\\]server\.js$/)
  const custom = parseFlameArguments(['--scenario', 'write', '--format', 'json', '--profiler', 'clinic', '--duration', '3',
    '--cmd', 'node my-app.js --port 3000', '--workload', path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin', 'nodebench.workload.js')]).config
  assert.deepEqual([custom.formats, custom.profiler, custom.duration, custom.app, custom.argv], [['json'], 'clinic', 3, null, ['my-app.js', '--port', '3000']])
  for (const [argv, message] of [
    [['--scenario', 'browse'], /unknown scenario 'browse'/],
    [['--format', 'xml'], /--format must be html, json or both \(scenario 'doc-read'\); received 'xml'/],
    [['--scenario', 'review-list', '--format', 'html'], /--format must be json or both \(scenario 'review-list'\); received 'html'/],
    [['--cmd', 'node my-app.js'], /no workload: \. has no nodebench\.workload\.js or nodebench\.workload\.json/],
    [['--profiler', 'perf'], /--profiler must be 0x or clinic; received 'perf'/],
    [['--duration', 'long'], /--duration must be a whole number from 1 to 600; received 'long'/],
    [['--cmd', 'python app.py'], /--cmd must be a Node\.js script and its arguments/],
    [['--app', 'a', '--cmd', 'node b.js'], /--app and --cmd exclude each other/]
  ]) {
    assert.throws(() => parseFlameArguments(argv), usage(message), argv.join(' '))
  }
})

test('a collection read profiled in HTML and JSON: valid flamegraphs, samples, and template rendering on the HTML side', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const database = await startDatabase({ dataDir: path.join(dir, 'data'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => database.stop())
  const out = path.join(dir, 'flamegraphs')
  const run = await runCli(['flame', '--scenario', 'collection-read', '--format', 'both', '--duration', '3', '--connections', '5', '--out', out],
    { env: { ...process.env, MONGODB_URI: database.uri } })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /template rendering/)
  assert.match(run.stderr, /html: .*collection-read-html\.html \(\d+ samples, \d+ requests; nodebench itself \d+\.\d%\)/)

  const summary = JSON.parse(fs.readFileSync(path.join(out, 'collection-read-comparison.json'), 'utf8'))
  assert.equal(summary.schema, 1)
  for (const side of summary.flamegraphs) {
    assert.ok(side.analysis.samples > 0, `${side.format}: samples`)
    assert.ok(side.load.requests > 0, `${side.format}: requests served under the profiler`)
    assert.equal(side.load.unexpectedStatus, 0)
    assert.ok(fs.existsSync(path.join(out, side.data)), `${side.format}: the profiler's raw data kept`)
  }
  const templates = summary.comparison.rows.find((row) => row.category === 'template rendering')
  assert.ok(templates.html.share > 0.02, `template rendering serving HTML: ${templates.html.share}`)
  assert.ok(templates.html.share > templates.json.share * 5, `HTML ${templates.html.share}, JSON ${templates.json.share}`)
  const htmlTop = summary.flamegraphs.find((f) => f.format === 'html').analysis.topFunctions
  assert.ok(htmlTop.some((f) => f.category === 'template rendering'), `the template engine's functions among the hottest serving HTML: ${htmlTop.map((f) => f.name)}`)
  assert.ok(summary.comparison.nodebench.html.share > 0, 'nodebench\'s own share is measured')
  assert.match(fs.readFileSync(path.join(out, 'collection-read-comparison.md'), 'utf8'), /\| template rendering \|/)

  for (const format of ['html', 'json']) {
    const file = path.join(out, `collection-read-${format}.html`)
    const check = await checkReportInBrowser(file, { screenshotPath: path.join(out, `collection-read-${format}.png`) })
    assert.deepEqual(check.consoleErrors, [], `${format} flamegraph: no console errors`)
    assert.ok(fs.statSync(check.screenshot).size > 1000)
  }
})

test('bench --flame: the report links the flamegraphs and shows the HTML-against-JSON table', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-bench-flame-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const database = await startDatabase({ dataDir: path.join(dir, 'data'), onProgress: (m) => t.diagnostic(m) })
  t.after(() => database.stop())
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--scenarios', 'doc-read', '--processes', '1', '--amount', '20', '--warmup', '5', '--reps', '1',
    '--connections', '5', '--flame', '--flame-duration', '2', '--out', out], { env: { ...process.env, MONGODB_URI: database.uri } })
  assert.equal(run.code, 0, run.stderr)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  const [profile] = results.flame
  assert.equal(profile.scenario, 'doc-read')
  assert.deepEqual(profile.flamegraphs.map((f) => f.html), [path.join('flamegraphs', 'doc-read-html.html'), path.join('flamegraphs', 'doc-read-json.html')])
  for (const f of profile.flamegraphs) assert.ok(fs.existsSync(path.join(out, f.html)) && f.samples > 0)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<a href="flamegraphs\/doc-read-html\.html">html flamegraph<\/a>/)
  assert.match(html, /class="flame-comparison"/)
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /\[json flamegraph\]\(flamegraphs\/doc-read-json\.html\)/)
  const check = await checkReportInBrowser(path.join(out, 'report.html'))
  assert.deepEqual(check.consoleErrors, [])
  assert.deepEqual(check.emptyCharts, [])
})
