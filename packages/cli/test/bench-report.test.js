'use strict'

// nodebench-test: once. The report rendered from figures and checked in Chromium: the Node.js version does not change what this tests.
// The bench report: its derived figures and sentences (summarize), its two files (writeReport), and the
// HTML page opened in the real headless Chromium.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { summarize, renderMarkdown, renderHtml, writeReport } = require('../lib/bench/report')
const { chartsOf } = require('../lib/bench/report')
const { checkReportInBrowser } = require('./page-check')
const { temporaryDir } = require('../../../test/support')

const FIXTURE = path.join(__dirname, 'fixtures', 'results-quick.json')

/** A fresh copy of the fixture (processes 1 and 2, three scenarios, one failed cell, one with 500s). */
function fixture () {
  return JSON.parse(fs.readFileSync(FIXTURE, 'utf8'))
}

function cellOf (results, scenario, format, processes) {
  return results.cells.find((c) => c.scenario === scenario && c.format === format && c.processes === processes)
}

test('summarize: throughput ratios, Table 1 beside the study, dominant functions, sizes', () => {
  const summary = summarize(fixture())
  const ratio = (scenario, processes) => summary.htmlVsJson.find((r) => r.scenario === scenario && r.processes === processes)
  assert.equal(ratio('collection-read', 1).jsonOverHtml, 45.1 / 20.4)
  assert.equal(ratio('doc-read', 2).jsonOverHtml, 1264.8 / 1172.3)
  assert.equal(ratio('collection-read', 2).jsonOverHtml, null)
  assert.deepEqual(ratio('collection-read', 2).missing, ['json failed'])

  const row = (scenario, format) => summary.table1.find((r) => r.scenario === scenario && r.format === format)
  assert.equal(summary.table1.length, 6)
  assert.deepEqual(row('doc-read', 'html').here, { 1: 98.9, 2: 98.75 })
  assert.deepEqual(row('doc-read', 'html').study, { 1: 98.83, 2: 98.56, 3: 98.55, 4: 98.43, 8: 98.47 })
  assert.equal(row('write', 'json').function, 'addDocument')
  assert.deepEqual(Object.keys(row('collection-read', 'json').here), ['1'], 'the failed cell has no share')
  assert.deepEqual(row('collection-read', 'json').failed, [2])

  assert.equal(summary.dominance.length, 11)
  assert.ok(summary.dominance.every((d) => d.matches))
  assert.deepEqual(summary.throughput.find((s) => s.scenario === 'doc-read' && s.format === 'json').points.map((p) => [p.processes, p.mean]), [[1, 861.2], [2, 1264.8]])
  assert.deepEqual(summary.responseSizes.find((s) => s.scenario === 'collection-read' && s.format === 'html'),
    { scenario: 'collection-read', label: 'collection read', format: 'html', bytes: 433402, varies: false, studyBytes: 783799 })
  assert.equal(summary.sizeRatios.find((r) => r.scenario === 'doc-read').here, 1476 / 111)

  const docRead = summary.cells.find((c) => c.scenario === 'doc-read' && c.format === 'json' && c.processes === 1)
  assert.equal(docRead.operation.format, 'json', 'the breakdown operation of the cell, not the "other" one beside it')
  const write = summary.cells.find((c) => c.scenario === 'write' && c.format === 'html' && c.processes === 1)
  assert.deepEqual(write.responses, { unexpected: 0, redirects: 500, unexpectedCodes: {}, codesKnown: true })
})

test('summarize: findings and notes are computed from the figures', () => {
  const { findings, notes } = summarize(fixture())
  assert.match(findings[0], /^JSON beat HTML in all 5 compared pairs .*\(1\.07× to 2\.21× HTML's\) and in mean latency, as the study found/)
  assert.match(findings[0], /Not compared: collection read at 2 processes \(json failed\)\.$/)
  assert.equal(findings[1], 'Collection read: JSON\'s requests per second were 2.21× HTML\'s at 1 process (45.1 vs 20.4 req/s); close to the study\'s "almost twice".')
  assert.match(findings[2], /^Going from 1 to 2 processes changed requests per second by \+47% on average over 5 operation-format series/)
  assert.match(findings[2], /Only 1 and 2 processes were measured, so the study's diminishing returns .* are not tested here\. This machine has 2 cores/)
  assert.match(findings[3], /^In all 11 measured cells the function with the largest share of response time is the study's: document \(document read\), addDocument \(document write\) and viewCollection \(collection read\), the one doing the database I\/O\. Its share here: 97\.87% to 99\.93%/)
  assert.match(findings[4], /13\.30× for document read \(study 16\.18×\)/)
  assert.match(findings[5], /^1 cell failed \(collection read \(json\), 2 processes\)/)

  const kinds = notes.map((n) => n.kind)
  assert.deepEqual(kinds, ['failed', 'non2xx', 'redirects', 'repetitions', 'workload', 'workload'])
  assert.match(notes[0].text, /^collection read \(json\), 2 processes: failed: 0 of 100 requests completed within 120 s/)
  assert.equal(notes[1].text, 'document read (html), 2 processes: 12 of 500 responses were not 2xx (500: 12); its requests/s and latency include them.')
})

test('summarize: a redirect counts as expected only where the runner expected it', () => {
  const results = fixture()
  Object.assign(cellOf(results, 'doc-read', 'json', 1), { non2xx: 10, statusCodes: { 200: 490, 302: 10 } })
  delete cellOf(results, 'write', 'html', 2).expectedStatus
  Object.assign(cellOf(results, 'write', 'json', 2), { expectedStatus: undefined, non2xx: 3, statusCodes: {} })
  const responses = (scenario, format, processes) => summarize(results).cells.find((c) => c.scenario === scenario && c.format === format && c.processes === processes).responses
  assert.deepEqual(responses('doc-read', 'json', 1), { unexpected: 10, redirects: 0, unexpectedCodes: { 302: 10 }, codesKnown: true })
  assert.deepEqual(responses('write', 'html', 2), { unexpected: 0, redirects: 500, unexpectedCodes: {}, codesKnown: true }, 'an HTML POST without expectedStatus')
  assert.deepEqual(responses('write', 'json', 2), { unexpected: 3, redirects: 0, unexpectedCodes: {}, codesKnown: false })
})

test('summarize: when HTML wins a cell, the finding says where, unlike the study', () => {
  const results = fixture()
  Object.assign(cellOf(results, 'write', 'json', 2), { requestsPerSec: { mean: 600, min: 590, max: 610 } })
  cellOf(results, 'write', 'json', 2).latencyMs.mean = 41.7
  const { findings } = summarize(results)
  assert.match(findings[0], /^JSON beat HTML in requests per second in 4 of 5 compared pairs and in mean latency in 4 of 5, unlike the study.*HTML held its own in document write at 2 processes \(JSON 600 req\/s, 41\.7 ms; HTML 688 req\/s, 36\.3 ms\)/)
})

test('summarize: one process count, a failed cell, a missing cell and a cell without breakdown', () => {
  const results = fixture()
  results.config.processes = [1]
  results.cells = results.cells.filter((c) => c.processes === 1 && !(c.scenario === 'write' && c.format === 'json'))
  Object.assign(cellOf(results, 'collection-read', 'html', 1), { status: 'failed', failure: 'the app exited with code 1', requestsPerSec: null, breakdown: null })
  cellOf(results, 'doc-read', 'json', 1).breakdown = null
  const summary = summarize(results)
  assert.deepEqual(summary.processes, [1])
  assert.deepEqual(summary.scaling, [])
  assert.equal(summary.findings[0], 'JSON beat HTML in all 1 compared pair (operation and process count), in requests per second (1.07× to 1.07× HTML\'s) and in mean latency, as the study found at every process count. ' +
    'Not compared: document write at 1 process (json not measured) and collection read at 1 process (html failed).')
  assert.equal(summary.findings[1], 'Collection read: no process count has both HTML and JSON measured, so the study\'s "almost twice" is not checked.')
  assert.equal(summary.findings[2], 'Only 1 process measured: how throughput grows with processes is not shown.')
  assert.match(summary.findings[3], /^In all 3 measured cells/)
  const notes = summary.notes.map((n) => n.text)
  assert.ok(notes.includes('collection read (html), 1 process: failed: the app exited with code 1. Left out of the charts, the averages and the comparisons.'))
  assert.ok(notes.includes('Configured but not in the results (the run stopped early?): document write (json), 1 process.'))
  assert.ok(notes.includes('document read (json), 1 process: no breakdown of its operation was recorded, so its time shares are missing.'))

  const charts = chartsOf(summary)
  assert.equal(charts.filter((c) => c.kind === 'time-share').length, 3, 'no time-share chart without a breakdown')
  assert.deepEqual(charts.find((c) => c.kind === 'throughput' && c.scenario === 'collection-read').leftOut.map((c) => c.title), ['collection read (html), 1 process'])
})

test('summarize and the renderers take an empty or partial results object', async () => {
  // With the study's workload (its reference is what the HTML-against-JSON finding checks), and without any.
  const { workload } = fixture()
  for (const results of [{ workload }, { workload, cells: [] }, { workload, cells: [{ scenario: 'doc-read', format: 'html', processes: 1, status: 'failed' }] }]) {
    const summary = summarize(results)
    assert.match(summary.findings[0], /^HTML and JSON could not be compared/)
    assert.match(renderMarkdown(results), /^# nodebench bench report/)
    const html = await renderHtml(results)
    assert.match(html, /<h2>What this shows<\/h2>/)
    assert.doesNotMatch(html, /class="chart"/)
  }
  for (const results of [{}, { cells: [] }, { cells: [{ scenario: 'doc-read', format: 'html', processes: 1, status: 'failed' }] }]) {
    const summary = summarize(results)
    assert.match(summary.findings[0], /^Only no process count measured/)
    assert.doesNotMatch(renderMarkdown(results), /The study found/)
    assert.match(await renderHtml(results), /<h2>What this shows<\/h2>/)
  }
  assert.match(renderMarkdown({ cells: [{ scenario: 'doc-read', format: 'html', processes: 1, status: 'failed' }] }), /\*\*failed\*\*: the runner recorded status "failed"/)
})

test('writeReport: report.md and report.html, checked in headless Chromium', { timeout: 180_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-report-')
  const results = fixture()
  // A hostile segment name and app path: if either reached the page unescaped, the script would log an error.
  const hostile = '<script>console.error("injected")</script>'
  cellOf(results, 'doc-read', 'html', 1).breakdown.operations[0].segments[4].name = hostile
  results.config.app = 'examples/<img src=x onerror="console.error(1)">'

  const written = await writeReport(results, path.join(dir, 'out'))
  assert.deepEqual(written, { html: path.join(dir, 'out', 'report.html'), markdown: path.join(dir, 'out', 'report.md') })
  const html = fs.readFileSync(written.html, 'utf8')
  const markdown = fs.readFileSync(written.markdown, 'utf8')
  const summary = summarize(results)

  const expectedCharts = chartsOf(summary)
  assert.equal(expectedCharts.length, 18)
  assert.equal(html.match(/<figure class="chart"/g).length, expectedCharts.length)
  for (const kind of ['latency', 'throughput', 'html-vs-json', 'time-share']) {
    assert.ok(html.includes(`data-kind="${kind}"`), `a ${kind} chart`)
  }
  assert.equal(html.match(/<svg /g).length, expectedCharts.length, 'every chart is an inline SVG')
  assert.doesNotMatch(html, /<(script|img|link|iframe|object|embed)\b|<[^>]*\s(src|href)=(?!["']?#)|@import|https?:\/\/(?!www\.w3\.org)/i, 'self-contained and escaped')
  assert.ok(html.includes('&lt;script&gt;console.error(&quot;injected&quot;)&lt;/script&gt;'))
  assert.ok(html.includes('examples/&lt;img src=x onerror=&quot;console.error(1)&quot;&gt;'))

  for (const text of [html, markdown]) {
    assert.match(text, /What this shows/)
    assert.match(text, /What limits these figures/)
    assert.match(text, /Comparison with the study/)
    assert.match(text, /98\.83%/, "the study's Table 1")
    assert.match(text, /783,799 B/, "the study's response sizes")
    assert.match(text, /12 \(500: 12\)/, 'the non-2xx responses in the cell table')
    assert.match(text, /AMD EPYC 7B13/)
    assert.match(text, /FerretDB 1\.24\.0/)
  }
  for (const finding of summary.findings) {
    assert.ok(html.includes(`<li>${finding.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</li>`), finding)
  }
  assert.match(html, /<tr class="failed"><td class="text">collection read<\/td><td class="text">json<\/td><td>2<\/td><td class="status-failed">failed<\/td><td class="message" colspan="7">0 of 100 requests completed within 120 s/)
  assert.match(html, /Not drawn, and in no average: collection read \(json\), 2 processes \(failed: 0 of 100/)
  assert.match(markdown, /\| collection read \| json \| 2 \| failed: 0 of 100 requests completed within 120 s/)
  assert.match(markdown, /- JSON beat HTML in all 5 compared pairs/)
  assert.match(markdown, /\\<script\\>console.error\("injected"\)\\<\/script\\>/)
  assert.doesNotMatch(markdown, /(^|[^\\])<(script|img)/m, 'every < escaped')

  const check = await checkReportInBrowser(written.html)
  assert.equal(check.charts, expectedCharts.length)
  assert.deepEqual(check.emptyCharts, [])
  assert.deepEqual(check.wideTables, [], 'every table fits a 1400 px window')
  assert.deepEqual(check.overlappingLabels, [], 'no chart label drawn over another')
  assert.equal(check.sectionOrder[0], 'answer', 'the answer first')
  assert.deepEqual(check.consoleErrors, [])
  assert.deepEqual(check.externalRequests, [])
  assert.equal(check.screenshot, path.join(dir, 'out', 'report.png'))
  const png = fs.readFileSync(check.screenshot)
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG')
  assert.ok(png.length > 50_000, `a full page, not a blank one (${png.length} bytes)`)
})

test('a run of an app of its own, one format, no reference: the answer first, no study section, no HTML-against-JSON chart', { timeout: 180_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-report-')
  const results = fixture()
  // The shop's run: one format, scenarios that name no study figure.
  results.workload = { name: 'shop', file: 'nodebench.workload.js', formats: ['json'], reference: null, scenarios: {} }
  for (const [name, scenario] of Object.entries(fixture().workload.scenarios)) {
    results.workload.scenarios[name] = { ...scenario, reference: null, dominant: name === 'write' ? 'addDocument' : null }
  }
  results.cells = results.cells.filter((c) => c.format === 'json')
  results.config.formats = ['json']
  const summary = summarize(results)
  assert.equal(summary.hasReference, false)
  assert.equal(summary.comparesFormats, false)
  const written = await writeReport(results, path.join(dir, 'out'))
  const html = fs.readFileSync(written.html, 'utf8')
  const markdown = fs.readFileSync(written.markdown, 'utf8')
  for (const text of [html, markdown]) {
    assert.doesNotMatch(text, /Comparison with the study|Table 1|study's function|HTML not measured|not measured<|JSON against HTML/)
    assert.match(text, /Where the time goes/)
  }
  assert.doesNotMatch(html, /data-kind="html-vs-json"/)
  assert.ok(html.indexOf('<h2>Where the time goes</h2>') < html.indexOf('<h2>What this shows</h2>'), 'the answer before the findings')
  assert.ok(markdown.indexOf('## Where the time goes') < markdown.indexOf('## What this shows'))
  // The owners' table: the function that owns the time, and the workload's expected one where it names it.
  const owners = require('../lib/bench/owners/tables').ownerTable(summary)
  assert.deepEqual(owners.head, ['operation', 'format', 'owns the time', 'kind', 'share', 'next', 'unattributed', 'requests', 'mean ms', 'expected'])
  assert.deepEqual(owners.rows.map((row) => [row.cells[0], row.cells[2], row.cells[9]]),
    [['document read', 'document', '-'], ['document write', 'addDocument', 'addDocument (the same)'], ['collection read', 'viewCollection', '-']])
  const check = await checkReportInBrowser(written.html)
  assert.deepEqual(check.sectionOrder.slice(0, 3), ['answer', 'findings', 'limits'])
  assert.ok(!check.sectionOrder.includes('study') && !check.sectionOrder.includes('html-vs-json'), check.sectionOrder.join(', '))
  assert.deepEqual([check.emptyCharts, check.wideTables, check.overlappingLabels, check.consoleErrors], [[], [], [], []])
})

test('checkReportInBrowser: finds empty charts and console errors, and writes the screenshot where told', { timeout: 120_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-report-')
  const page = path.join(dir, 'page.html')
  fs.writeFileSync(page, `<!doctype html><html><body>
<figure class="chart" aria-label="no svg"></figure>
<figure class="chart" aria-label="no marks"><svg width="100" height="100"><g class="role-axis"><line x1="0" x2="10" y1="0" y2="0" stroke="black"/></g></svg></figure>
<figure class="chart" aria-label="drawn"><svg width="100" height="100"><g class="mark-rect role-mark"><path d="M0,0h10v10h-10Z"/></g></svg></figure>
<figure class="chart" aria-label="crowded axis"><svg width="200" height="40"><g class="mark-rect role-mark"><path d="M0,0h10v10h-10Z"/></g><text x="10" y="20">90%</text><text x="22" y="20">100%</text><text x="120" y="20">apart</text></svg></figure>
<table><tr><td><div style="width:1500px">too wide</div></td></tr></table>
<script>console.error('broken'); undefinedFunction()</script></body></html>`)
  const screenshotPath = path.join(dir, 'shots', 'page.png')
  fs.mkdirSync(path.dirname(screenshotPath))
  const check = await checkReportInBrowser(page, { screenshotPath, chromiumPath: '/usr/bin/chromium' })
  assert.equal(check.charts, 4)
  assert.deepEqual(check.emptyCharts, ['no svg', 'no marks'])
  assert.deepEqual(check.overlappingLabels, [{ chart: 'crowded axis', labels: ['90%', '100%'] }])
  assert.equal(check.wideTables.length, 1)
  assert.ok(check.wideTables[0].width >= 1500)
  assert.equal(check.consoleErrors.length, 2)
  assert.equal(check.consoleErrors[0], 'broken')
  assert.match(check.consoleErrors[1], /undefinedFunction is not defined/)
  assert.equal(check.screenshot, screenshotPath)
  assert.ok(fs.existsSync(screenshotPath))
})
