'use strict'

// `nodebench flame`: its options, and real profiles of one scenario against the embedded database: V8's sampling
// profiler in the app (the agent) in both formats, 0x's --prof log and clinic. The app runs on the Node.js that
// runs nodebench, so these run on every line: V8's profiles and logs, and what clinic supports, change with it.
// What nodebench renders of a profile (the HTML-against-JSON comparison, the pages, bench --flame's report) is
// flame-report.test.js, run once. One database for the file: each run's setup seeds what its scenario reads.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startDatabase } = require('@nodebench/services')
const { parseFlameArguments } = require('../lib/commands/flame')
const { runCli } = require('../../../test/support')

let database
before(async () => { database = await startDatabase({ dataDir: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-db-')), 'data') }) })
after(async () => {
  await database?.stop()
  if (database) fs.rmSync(path.dirname(database.dataDir), { recursive: true, force: true })
})

const usage = (message) => (err) => ['NB_ERR_USAGE', 'NB_ERR_WORKLOAD'].includes(err.code) && message.test(err.message)

test('options: defaults, choices, and usage errors', () => {
  const { config } = parseFlameArguments([])
  assert.deepEqual([config.scenario, config.formats, config.profiler, config.warmup, config.duration, config.connections],
    ['doc-read', ['html', 'json'], 'v8', 5, 10, 10])
  assert.equal(config.outDir, path.resolve('flamegraphs'))
  assert.match(config.argv[0], /examples[/\\]mongo-admin[/\\]server\.js$/)
  const custom = parseFlameArguments(['--scenario', 'write', '--format', 'json', '--profiler', 'clinic', '--duration', '3',
    '--cmd', 'node my-app.js --port 3000', '--workload', path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin', 'nodebench.workload.js')]).config
  assert.deepEqual([custom.formats, custom.profiler, custom.duration, custom.target.app, custom.argv], [['json'], 'clinic', 3, null, ['my-app.js', '--port', '3000']])
  for (const [argv, message] of [
    [['--scenario', 'browse'], /unknown scenario 'browse'/],
    [['--format', 'xml'], /--format must be html, json or both \(scenario 'doc-read'\); received 'xml'/],
    [['--scenario', 'review-list', '--format', 'html'], /--format must be json or both \(scenario 'review-list'\); received 'html'/],
    [['--cmd', 'node my-app.js'], /no workload: \. has no nodebench\.workload\.js or nodebench\.workload\.json/],
    [['--profiler', 'perf'], /--profiler must be v8, 0x, clinic; received 'perf'/],
    [['--warmup', 'soon'], /--warmup must be a whole number from 0 to 600; received 'soon'/],
    [['--duration', 'long'], /--duration must be a whole number from 1 to 600; received 'long'/],
    [['--cmd', 'python app.py', '--profiler', '0x'], /--cmd must be a Node\.js script and its arguments/],
    [['--app', 'a', '--cmd', 'node b.js'], /--app excludes --cmd and --url/]
  ]) {
    assert.throws(() => parseFlameArguments(argv), usage(message), argv.join(' '))
  }
})

/**
 * A flame run's summary (its comparison JSON) and its output. `duration`: the profiled window's seconds (1 where
 * what is checked is shares of a few hundred samples; template rendering under viewDocument, a few % of
 * doc-read's html samples, needs the 3 s of the default test).
 */
async function flameRun (t, args, { env, duration = 1 }) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-')), 'flamegraphs')
  t.after(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }))
  const run = await runCli(['flame', '--scenario', 'doc-read', '--warmup', '2', '--duration', String(duration), '--connections', '5', '--out', out, ...args], { env })
  assert.equal(run.code, 0, run.stderr)
  return { run, out, summary: JSON.parse(fs.readFileSync(path.join(out, 'doc-read-comparison.json'), 'utf8')) }
}

test('time or CPU on doc-read: document owns the time but little of the CPU; the template engine is viewDocument\'s', { timeout: 300_000 }, async (t) => {
  const { run, summary } = await flameRun(t, [], { env: { ...process.env, MONGODB_URI: database.uri }, duration: 3 })
  assert.match(run.stdout, /^Time or CPU: doc-read \(html\)$/m)
  assert.match(run.stdout, /^ +HTTP and routing \(Node\.js, Express; outside the segments\) +- +[\d.]+% +[\d,]+ +.*Express routing /m)
  for (const side of summary.flamegraphs) {
    const { segments } = side.analysis
    const document = segments.segments.find((s) => s.name === 'document')
    assert.ok(document.wallShare > document.cpuShare, `${side.format}: document waits (${document.wallShare} of the time, ${document.cpuShare} of the CPU)`)
    assert.ok(document.wallShare > 0.5)
    assert.ok(side.overhead.ratio > 0 && side.overhead.unprofiledRequestsPerSec > 0, JSON.stringify(side.overhead))
    // Every sample on CPU is a segment's, garbage collection's, a named piece of work outside the segments, or
    // said to be nobody's: nothing is spread or lost.
    const outside = segments.outsideSegments.reduce((sum, row) => sum + row.samples, 0)
    const counted = segments.segments.reduce((sum, s) => sum + s.samples, 0) + segments.garbageCollection.samples + outside + segments.notAttributed.samples
    assert.equal(counted, side.analysis.samples)
    // Node.js parsing each request and Express routing it to its first segment have a row; nobody's is what is left.
    const http = segments.outsideSegments.find((row) => row.key === 'httpAndRouting')
    assert.ok(http.samples > 0, JSON.stringify(segments.outsideSegments))
    assert.ok(segments.notAttributed.share < 0.1, `${side.format}: not attributed ${segments.notAttributed.share}`)
    assert.equal(side.analysis.source, 'cpuprofile')
    assert.equal(side.analysis.profilerShare, null, 'V8\'s sampling profiler runs on a thread of its own')
  }
  const html = summary.flamegraphs.find((f) => f.format === 'html').analysis
  const view = html.segments.segments.find((s) => s.name === 'viewDocument')
  const templates = html.categories.find((c) => c.category === 'template rendering')
  const underView = view.categories.find((c) => c.category === 'template rendering')
  assert.ok(templates && underView, `template rendering under viewDocument: ${JSON.stringify(view.categories)}`)
  // The template engine's samples, all under viewDocument's segment (res.render runs inside it).
  assert.ok(underView.share * view.samples >= templates.samples * 0.9, `${underView.share * view.samples} of ${templates.samples}`)
})

test('0x and clinic: a flamegraph and the comparison each; 0x\'s log writing and compiling counted apart, out of the shares', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const env = { ...process.env, MONGODB_URI: database.uri }
  const zeroEks = await flameRun(t, ['--profiler', '0x', '--format', 'json'], { env })
  const [side] = zeroEks.summary.flamegraphs
  const { analysis } = side
  assert.equal(analysis.source, 'v8-log')
  assert.equal(analysis.windowed, true, 'the window\'s samples only')
  assert.ok(analysis.profilerSamples > 0 && analysis.profilerShare > 0, 'V8 writing its log is the profiler\'s own cost')
  assert.ok(Number.isInteger(analysis.compileSamples) && analysis.compileShare < 0.1, `compiling: ${analysis.compileShare}`)
  assert.equal(analysis.categories.reduce((sum, c) => sum + c.samples, 0), analysis.samples, 'on-CPU shares exclude them')
  // Their labels exactly: Node.js's own HTTP parser callbacks (parserOnIncoming) are the app's work and may rank.
  const apart = /^\((?:V8 writing the --prof log|parser|bytecode compiler|compiler)\)$/
  assert.ok(!analysis.topFunctions.some((f) => apart.test(f.name)), `neither is among the app's functions: ${analysis.topFunctions.map((f) => f.name)}`)
  assert.ok(fs.statSync(path.join(zeroEks.out, 'doc-read-json.html')).size > 10_000)
  assert.ok(side.overhead.ratio > 0)
  assert.match(zeroEks.run.stdout, /Measured overhead of 0x \(node --prof\): (the app served [\d.]+% of its unprofiled requests\/s under it|within noise) \(\d+ requests\/s under it against \d+ without/)

  const clinic = await runCli(['flame', '--scenario', 'doc-read', '--format', 'json', '--profiler', 'clinic', '--warmup', '2', '--duration', '1',
    '--connections', '5', '--out', path.join(dir, 'clinic')], { env })
  if (clinic.code !== 0) {
    // clinic is unmaintained: where it does not run, it says so and points to the others.
    assert.match(clinic.stderr, /clinic flame (failed|wrote no flamegraph) on Node\.js .*; use --profiler v8 or 0x/)
    return
  }
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'clinic', 'doc-read-comparison.json'), 'utf8'))
  assert.equal(summary.flamegraphs[0].analysis.source, 'ticks')
  assert.ok(summary.flamegraphs[0].analysis.segments.segments.some((s) => s.name === 'document' && s.samples > 0))
  assert.ok(fs.existsSync(path.join(dir, 'clinic', 'doc-read-json.html')))
})

const ASYNC_CPU = path.join(__dirname, 'fixtures', 'async-cpu')

for (const major of ['4', '5']) {
  test(`CPU of async code on Express ${major}: bcrypt's rounds after the login's awaits are the login's; the session only waits`, { timeout: 300_000 }, async (t) => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-async-')), 'flamegraphs')
    t.after(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }))
    const run = await runCli(['flame', '--cmd', `"${process.execPath}" ${path.join(ASYNC_CPU, 'server.js')} --port {port} --express ${major}`,
      '--url', 'http://127.0.0.1', '--workload', path.join(ASYNC_CPU, 'nodebench.workload.js'), '--scenario', 'login',
      '--warmup', '2', '--duration', '1', '--connections', '4', '--out', out])
    assert.equal(run.code, 0, run.stderr)
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'login-comparison.json'), 'utf8'))
    const [{ analysis }] = summary.flamegraphs
    assert.ok(analysis.contexts.transitions > 0 && !analysis.contexts.truncated, JSON.stringify(analysis.contexts))
    const { segments, notAttributed, contexts } = analysis.segments
    assert.equal(contexts, true)
    const login = segments.find((s) => s.name === 'login')
    const session = segments.find((s) => s.name === 'session')
    const table = segments.map((s) => `${s.name} ${s.samples} (${s.asyncSamples} by context)`).join(', ')
    // bcrypt runs under the service the login awaits, never under the login's own frame: found by its context.
    assert.ok(login.cpuShare > 0.6 && login.asyncSamples > login.samples / 2, `login's CPU: ${login.cpuShare}; ${table}`)
    assert.ok(notAttributed.share < 0.1, `not attributed ${notAttributed.share}; ${table}`)
    // The session middleware waits a turn of the event loop behind the other requests' rounds: its time is the rest.
    assert.ok(session.time.restMs > 5 * session.time.cpuMs && session.time.restShare > 0.5, JSON.stringify(session.time))
    assert.ok(login.time.cpuMs > 0 && login.time.cpuMs <= login.time.ms, JSON.stringify(login.time))
    assert.match(run.stdout, /^What each segment's time is: /m)
    assert.match(run.stdout, /^Hottest functions: [^\n]*\n[^]*bcryptjs\//m)
    const markdown = fs.readFileSync(path.join(out, 'login-comparison.md'), 'utf8')
    assert.match(markdown, /### Hottest functions/)
    assert.match(markdown, /\| \d+ \| session \| [\d.]+ \| [\d.]+ \([\d.]+%\) \| /)
  })
}
