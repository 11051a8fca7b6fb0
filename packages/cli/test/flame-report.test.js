'use strict'

// nodebench-test: once. The comparison, the pages and bench's report are what nodebench renders of a profile; the profile itself (V8's sampling profiler in the app, 0x, clinic) runs on every line in flame.test.js: the Node.js version does not change what this tests.
// What `nodebench flame` makes of its profiles: the HTML-against-JSON comparison of a collection read (its JSON
// and Markdown, the template engine's share on each side), the flamegraph pages opened in headless Chromium, and
// bench --flame's report linking them. One database for the file: each run's setup seeds what its scenario reads.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startDatabase } = require('@nodebench/services')
const { checkReportInBrowser } = require('./page-check')
const { runCli } = require('../../../test/support')

let database
before(async () => { database = await startDatabase({ dataDir: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-db-')), 'data') }) })
after(async () => {
  await database?.stop()
  if (database) fs.rmSync(path.dirname(database.dataDir), { recursive: true, force: true })
})

test('a collection read profiled in HTML and JSON: valid flamegraphs, samples, and template rendering on the HTML side', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'flamegraphs')
  const run = await runCli(['flame', '--scenario', 'collection-read', '--format', 'both', '--warmup', '2', '--duration', '3', '--connections', '5', '--out', out],
    { env: { ...process.env, MONGODB_URI: database.uri } })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /template rendering/)
  assert.match(run.stderr, /html: .*collection-read-html\.html \(\d+ samples, \d+ requests in the profiled window, \d+ in the whole load; nodebench itself \d+\.\d%\)/)

  const summary = JSON.parse(fs.readFileSync(path.join(out, 'collection-read-comparison.json'), 'utf8'))
  assert.equal(summary.schema, 2)
  for (const side of summary.flamegraphs) {
    assert.ok(side.analysis.samples > 0, `${side.format}: samples`)
    assert.ok(side.load.requests > 0, `${side.format}: requests served under the profiler`)
    assert.equal(side.load.unexpectedStatus, 0)
    assert.equal(side.profile, `collection-read-${side.format}.cpuprofile`)
    const profile = JSON.parse(fs.readFileSync(path.join(out, side.profile), 'utf8'))
    assert.ok(Array.isArray(profile.nodes) && profile.samples.length > 0, `${side.format}: a .cpuprofile DevTools opens`)
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
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--scenarios', 'doc-read', '--processes', '1', '--amount', '20', '--warmup', '5', '--reps', '1',
    '--connections', '5', '--flame', '--flame-duration', '1', '--out', out], { env: { ...process.env, MONGODB_URI: database.uri } })
  assert.equal(run.code, 0, run.stderr)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  const [profile] = results.flame
  assert.equal(profile.scenario, 'doc-read')
  assert.deepEqual(profile.flamegraphs.map((f) => f.html), [path.join('flamegraphs', 'doc-read-html.html'), path.join('flamegraphs', 'doc-read-json.html')])
  for (const f of profile.flamegraphs) assert.ok(fs.existsSync(path.join(out, f.html)) && f.samples > 0)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<a href="flamegraphs\/doc-read-html\.html">html flamegraph<\/a>/)
  assert.match(html, /class="flame-comparison"/)
  assert.match(html, /<section class="flame-segments" data-format="html">\n<h3>Time or CPU: doc-read \(html\)<\/h3>/)
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /\[json flamegraph\]\(flamegraphs\/doc-read-json\.html\)/)
  // Each segment's own CPU, dependencies (document's database look-up) and rest; the hottest functions.
  assert.match(markdown, /#### What each segment's time is\n[^]*\| \d+ \| document \| [\d.]+ \| [\d.]+ \([\d.]+%\) \| [\d.]+ \([\d.]+%\) \| [^|]+ \| mongodb find /)
  assert.match(markdown, /#### Hottest functions/)
  assert.match(html, /<h4>What each segment&#39;s time is<\/h4>/)
  const document = profile.flamegraphs[0].analysis.segments.segments.find((s) => s.name === 'document')
  assert.ok(document.time.dependencyMs > 0, JSON.stringify(document.time))
  const check = await checkReportInBrowser(path.join(out, 'report.html'))
  assert.deepEqual(check.consoleErrors, [])
  assert.deepEqual(check.emptyCharts, [])
})
