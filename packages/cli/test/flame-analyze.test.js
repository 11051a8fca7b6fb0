'use strict'

// The analysis of a 0x profile folder: synthetic profiles in the format of `node --prof-process --preprocess`
// (what 0x leaves as isolate-*-v8.log.json) with known ticks, and one real profile taken by 0x here.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { analyzeProfile, compareProfiles, CATEGORIES } = require('../lib/flame/analyze')
const { renderComparisonMarkdown, renderComparisonHtml, renderComparisonText } = require('../lib/flame/render-comparison')
const { frameCategory } = require('../lib/flame/categories')
const { waitForProfile } = require('../lib/flame/read-profile')
const { temporaryDir } = require('../../../test/support')

const VM = { JS: 0, GC: 1, COMPILER: 4, EXTERNAL: 6, IDLE: 8 }

/**
 * A 0x profile folder holding one isolate-*-v8.log.json. `ticks`: [{ vm, stack: [code name or address], times }],
 * a name being a key of `code`, a number an address no code holds.
 */
function writeProfile (dir, name, code, ticks) {
  const names = Object.keys(code)
  const profileDir = path.join(dir, `${name}.0x`)
  fs.mkdirSync(profileDir)
  const json = {
    code: names.map((key) => code[key]),
    functions: [],
    ticks: ticks.flatMap(({ vm, stack, times = 1 }) => Array.from({ length: times }, (_, i) => ({
      tm: 1000 * i,
      vm,
      s: stack.flatMap((frame) => (typeof frame === 'number' ? [-1, frame] : [names.indexOf(frame), 16]))
    }))),
    scripts: []
  }
  fs.writeFileSync(path.join(profileDir, 'isolate-0x5581d7f0-4242-4242-v8.log.json'), JSON.stringify(json))
  fs.writeFileSync(path.join(profileDir, 'meta.json'), JSON.stringify({ argv: ['server.js'], name }))
  return profileDir
}

// The code entries of the synthetic profiles: key, V8's type[:kind], and the name V8 logs.
const CODE = Object.fromEntries(`
node              SHARED_LIB     /usr/bin/node
epoll             CPP            epoll_pwait@@GLIBC_2.6
memberLookup      JS:Opt         memberLookup /srv/app/node_modules/nunjucks/src/runtime.js:197:22
template          JS:Sparkplug   b_content :40:19
renderTemplate    JS:Unopt       render /srv/app/node_modules/nunjucks/src/environment.js:520:10
loadIc            CODE:Builtin   LoadIC
jsonStringify     CODE:Builtin   JsonStringify
expressStringify  JS:Opt         stringify /srv/app/node_modules/express/lib/response.js:1026:19
jsonStringifier   CPP            v8::internal::JsonStringifier::SerializeString(v8::internal::Handle<v8::internal::String>)
deserialize       JS:Opt         deserializeObject /srv/app/node_modules/bson/lib/bson.cjs:3357:27
initializer       JS:Opt         <instance_members_initializer> /srv/app/node_modules/bson/lib/bson.cjs:2680:5
writev            JS:Sparkplug   writevGeneric node:internal/stream_base_commons:123:23
layer             JS:Opt         handle /srv/app/node_modules/router/lib/layer.js:100:3
performanceNow    JS:Sparkplug   now node:internal/perf/performance:137:6
wrapLayer         JS:Opt         wrappedHandle /srv/app/node_modules/@nodebench/trace/lib/wrap-layer.js:30:5
viewDocument      JS:Sparkplug   exp.viewDocument /srv/app/lib/controllers/html.js:40:3
`.trim().split('\n').map((line) => {
    const [, key, typeAndKind, name] = /^(\S+)\s+(\S+)\s+(.+)$/.exec(line)
    const [type, kind] = typeAndKind.split(':')
    return [key, kind ? { name, type, kind } : { name, type }]
  }))

// Serving HTML: 18 samples on CPU, 3 idle, 1 compiling (apart).
const HTML_TICKS = [
  { vm: VM.JS, stack: ['memberLookup', 'template', 'renderTemplate'], times: 3 },
  // A builtin on top of a compiled template (code made by new Function, no script): both nunjucks'.
  { vm: VM.JS, stack: ['loadIc', 'template', 'renderTemplate'], times: 2 },
  { vm: VM.JS, stack: ['jsonStringify', 'expressStringify'], times: 2 },
  // An unknown address, then V8's JSON C++: JSON serialisation, charged to the app function calling it.
  { vm: VM.JS, stack: [0x7f0000001234, 'jsonStringifier', 'viewDocument'] },
  { vm: VM.JS, stack: ['deserialize'], times: 2 },
  { vm: VM.EXTERNAL, stack: ['writev', 'layer'] },
  // Node.js core called by nodebench is nodebench's.
  { vm: VM.JS, stack: ['performanceNow', 'wrapLayer', 'layer'] },
  { vm: VM.JS, stack: ['wrapLayer', 'layer'] },
  { vm: VM.GC, stack: ['deserialize'], times: 2 },
  { vm: VM.IDLE, stack: ['epoll'], times: 3 },
  { vm: VM.JS, stack: ['node'] },
  { vm: VM.JS, stack: [0x7f0000009999] },
  { vm: VM.JS, stack: ['viewDocument'] },
  { vm: VM.COMPILER, stack: ['memberLookup'] }
]

// Serving JSON: 10 samples on CPU, 1 idle.
const JSON_TICKS = [
  { vm: VM.JS, stack: ['jsonStringify', 'expressStringify'], times: 4 },
  { vm: VM.JS, stack: ['initializer', 'deserialize'], times: 3 },
  { vm: VM.EXTERNAL, stack: ['writev', 'layer'], times: 2 },
  { vm: VM.JS, stack: ['wrapLayer', 'layer'] },
  { vm: VM.IDLE, stack: ['epoll'] }
]

function categoriesOf (analysis) {
  return Object.fromEntries(analysis.categories.map(({ category, samples }) => [category, samples]))
}

test('analyzeProfile: self time by category, idle and compiling apart, shares over the samples on CPU', (t) => {
  const analysis = analyzeProfile(writeProfile(temporaryDir(t, 'nodebench-flame-analyze-'), 'doc-read-html', CODE, HTML_TICKS))
  assert.equal(analysis.samples, 18)
  assert.equal(analysis.idleSamples, 3)
  assert.deepEqual([analysis.compileSamples, analysis.compileShare, analysis.profilerSamples, analysis.profilerShare], [1, 1 / 19, 0, 0])
  assert.deepEqual(categoriesOf(analysis), {
    [CATEGORIES.TEMPLATE]: 5,
    [CATEGORIES.V8]: 3, // 2 in GC, 1 in the node binary with no JavaScript under it
    [CATEGORIES.JSON]: 3,
    [CATEGORIES.DATABASE]: 2,
    [CATEGORIES.NODEBENCH]: 2,
    [CATEGORIES.NODE_IO]: 1,
    [CATEGORIES.APP]: 1,
    [CATEGORIES.OTHER]: 1 // an address in no known code
  })
  // Most first; equal counts in the table's order.
  assert.deepEqual(analysis.categories.map((c) => c.category), [CATEGORIES.TEMPLATE, CATEGORIES.JSON, CATEGORIES.V8,
    CATEGORIES.DATABASE, CATEGORIES.NODEBENCH, CATEGORIES.NODE_IO, CATEGORIES.APP, CATEGORIES.OTHER])
  assert.equal(analysis.categories[0].share, 5 / 18)
  assert.equal(analysis.categories.reduce((sum, c) => sum + c.samples, 0), 18)
  assert.deepEqual(analysis.nodebench, { samples: 2, share: 2 / 18 })
})

test('analyzeProfile: each sample counts for the JavaScript function on top of its stack', (t) => {
  const analysis = analyzeProfile(writeProfile(temporaryDir(t, 'nodebench-flame-analyze-'), 'doc-read-html', CODE, HTML_TICKS), { top: 5 })
  assert.deepEqual(analysis.topFunctions, [
    { name: 'memberLookup', file: '/srv/app/node_modules/nunjucks/src/runtime.js', line: 197, category: CATEGORIES.TEMPLATE, samples: 3, share: 3 / 18 },
    { name: '(garbage collector)', file: null, line: null, category: CATEGORIES.V8, samples: 2, share: 2 / 18 },
    // A template nunjucks compiled with new Function: no script, as 0x labels it.
    { name: 'b_content', file: '[eval]', line: 40, category: CATEGORIES.TEMPLATE, samples: 2, share: 2 / 18 },
    { name: 'deserializeObject', file: '/srv/app/node_modules/bson/lib/bson.cjs', line: 3357, category: CATEGORIES.DATABASE, samples: 2, share: 2 / 18 },
    { name: 'stringify', file: '/srv/app/node_modules/express/lib/response.js', line: 1026, category: CATEGORIES.JSON, samples: 2, share: 2 / 18 }
  ])
  const all = (analyzeProfile(writeProfile(temporaryDir(t, 'nodebench-flame-analyze-'), 'all', CODE, HTML_TICKS), { top: 100 })).topFunctions
  const find = (name, category) => all.find((fn) => fn.name === name && fn.category === category)
  assert.equal(find('exp.viewDocument', CATEGORIES.JSON).samples, 1, 'V8\'s JSON C++ counts for the function calling it')
  assert.equal(find('exp.viewDocument', CATEGORIES.APP).samples, 1)
  assert.equal(find('now', CATEGORIES.NODEBENCH).file, 'node:internal/perf/performance')
  assert.equal(find('(compiler)', CATEGORIES.V8), undefined, 'compiling is apart, in no share')
  assert.equal(find('/usr/bin/node', CATEGORIES.V8).samples, 1)
  assert.equal(find('(unknown code)', CATEGORIES.OTHER).samples, 1)
  assert.equal(all.reduce((sum, fn) => sum + fn.samples, 0), 18)
  assert.equal((analyzeProfile(writeProfile(temporaryDir(t, 'nodebench-flame-analyze-'), 'none', CODE, HTML_TICKS), { top: 0 })).topFunctions.length, 0)
})

test('frameCategory: the rules on real frame names and paths', () => {
  const js = (file, name = 'fn') => ({ kind: 'js', name, file, line: 1 })
  const traceDir = path.dirname(require.resolve('@nodebench/trace/package.json'))
  const cases = [
    [js('/a/node_modules/nunjucks/src/compiler.js'), CATEGORIES.TEMPLATE],
    [js('/a/node_modules/express/lib/response.js', 'json'), CATEGORIES.JSON],
    [js('/a/node_modules/express/lib/response.js', 'send'), CATEGORIES.EXPRESS],
    [js('/a/node_modules/express/node_modules/body-parser/lib/types/json.js', 'parse'), CATEGORIES.JSON],
    [js('/a/node_modules/mongodb/lib/cmap/connection.js'), CATEGORIES.DATABASE],
    [js('/a/node_modules/@mongodb-js/saslprep/dist/index.js'), CATEGORIES.DATABASE],
    [js('/a/node_modules/path-to-regexp/dist/index.js'), CATEGORIES.EXPRESS],
    [js('/a/node_modules/method-override/index.js'), CATEGORIES.EXPRESS],
    [js(path.join(traceDir, 'lib', 'wrap-layer.js')), CATEGORIES.NODEBENCH],
    [js('/a/node_modules/hdr-histogram-js/dist/index.js'), CATEGORIES.NODEBENCH],
    [js('/a/node_modules/@opentelemetry/sdk-trace-base/build/src/Span.js'), CATEGORIES.NODEBENCH],
    [js('node:_http_outgoing'), CATEGORIES.NODE_IO],
    [js('/srv/examples/mongo-admin/lib/controllers/html.js'), CATEGORIES.APP],
    [js('/a/node_modules/left-pad/index.js'), CATEGORIES.OTHER],
    [js(''), null],
    [{ kind: 'v8', name: 'JsonParse', file: '' }, CATEGORIES.JSON],
    [{ kind: 'v8', name: 'StringAdd_CheckNone', file: '' }, null],
    [{ kind: 'native', name: 'v8::internal::Scavenger::ScavengePage(v8::internal::MemoryChunk*)', file: '' }, CATEGORIES.V8],
    [{ kind: 'native', name: '__memmove_avx_unaligned_erms', file: '' }, null]
  ]
  for (const [frame, category] of cases) assert.equal(frameCategory(frame), category, `${frame.kind} ${frame.name} ${frame.file}`)
})

test('analyzeProfile: a folder without a profile is an NB_ERR_FLAME error that says what is missing', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  assert.throws(() => analyzeProfile(dir), (err) => err.code === 'NB_ERR_FLAME' && /^no isolate-\*-v8\.log\.json \(nor ticks\.json\) in /.test(err.message))
  assert.throws(() => analyzeProfile(path.join(dir, 'absent')), (err) => err.code === 'NB_ERR_FLAME' && /^cannot read the profile folder/.test(err.message))
  fs.writeFileSync(path.join(dir, 'isolate-0x1-1-1-v8.log.json'), '{"code": [], "ticks": [')
  assert.throws(() => analyzeProfile(dir), (err) => err.code === 'NB_ERR_FLAME' && /^cannot read the profile .*isolate-0x1-1-1-v8\.log\.json: /.test(err.message))
  assert.throws(() => analyzeProfile(dir, { top: -1 }), (err) => err instanceof TypeError && /^top must be a whole number/.test(err.message))
})

test('compareProfiles: a row per category, HTML share against JSON share, and each side\'s functions', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const html = analyzeProfile(writeProfile(dir, 'doc-read-html', CODE, HTML_TICKS), { top: 3 })
  const json = analyzeProfile(writeProfile(dir, 'doc-read-json', CODE, JSON_TICKS), { top: 3 })
  const comparison = compareProfiles({ html, json })
  assert.deepEqual(comparison.html, {
    source: 'v8-log', samples: 18, idleSamples: 3, profilerSamples: 0, profilerShare: 0, compileSamples: 1, compileShare: 1 / 19, windowed: false
  })
  assert.deepEqual(comparison.json, {
    source: 'v8-log', samples: 10, idleSamples: 1, profilerSamples: 0, profilerShare: 0, compileSamples: 0, compileShare: 0, windowed: false
  })
  assert.deepEqual(comparison.rows.map((row) => row.category), Object.values(CATEGORIES))
  const row = (category) => comparison.rows.find((r) => r.category === category)
  assert.deepEqual(row(CATEGORIES.JSON), { category: CATEGORIES.JSON, html: { samples: 3, share: 3 / 18 }, json: { samples: 4, share: 0.4 }, difference: 3 / 18 - 0.4 })
  assert.deepEqual(row(CATEGORIES.TEMPLATE).json, { samples: 0, share: 0 })
  assert.equal(row(CATEGORIES.TEMPLATE).difference, 5 / 18)
  assert.deepEqual(row(CATEGORIES.EXPRESS), { category: CATEGORIES.EXPRESS, html: { samples: 0, share: 0 }, json: { samples: 0, share: 0 }, difference: 0 })
  assert.deepEqual(comparison.nodebench, { html: { samples: 2, share: 2 / 18 }, json: { samples: 1, share: 0.1 }, difference: 2 / 18 - 0.1 })
  assert.equal(comparison.topFunctions.html, html.topFunctions)
  assert.equal(comparison.topFunctions.json[0].name, 'stringify')
  assert.throws(() => compareProfiles({ html }), (err) => err instanceof TypeError && /^json must be a result of analyzeProfile/.test(err.message))
})

test('renderComparison*: the same tables as Markdown, an escaped HTML fragment and terminal text', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const html = analyzeProfile(writeProfile(dir, 'doc-read-html', CODE, HTML_TICKS), { top: 3 })
  const json = analyzeProfile(writeProfile(dir, 'doc-read-json', CODE, JSON_TICKS), { top: 3 })
  const comparison = compareProfiles({ html, json })

  const markdown = renderComparisonMarkdown(comparison, { scenario: 'doc-read' })
  assert.match(markdown, /^# Where the CPU goes in doc-read: HTML against JSON\n/)
  assert.match(markdown, /\n\| category \| HTML \| JSON \| HTML - JSON \|\n\|---\|---:\|---:\|---:\|\n\| template rendering \| 27\.78% \| 0\.00% \| \+27\.78 pp \|\n/)
  assert.match(markdown, /\n\| JSON serialisation \| 16\.67% \| 40\.00% \| -23\.33 pp \|\n/)
  assert.match(markdown, /nodebench's own overhead: 11\.11% of the CPU serving HTML, 10\.00% serving JSON\./)
  assert.match(markdown, /\n## What the categories hold\n\n- template rendering: template engines \(pug, ejs, handlebars, nunjucks, .*\n- JSON serialisation: /)
  assert.match(markdown, /\n\| 2 \| \\<instance\\_members\\_initializer\\> \| bson\/lib\/bson\.cjs:2680 \| database driver \/ BSON \| 3 \| 30\.00% \|\n/)

  const fragment = renderComparisonHtml(comparison, { scenario: 'doc-read' })
  assert.match(fragment, /^<section class="flame-comparison" data-scenario="doc-read">/)
  // The reports' one table layout (render/tables.js): text columns marked, numbers right-aligned by default.
  assert.match(fragment, /<tr><td class="text">template rendering<\/td><td>27\.78%<\/td><td>0\.00%<\/td><td>\+27\.78 pp<\/td><\/tr>/)
  assert.match(fragment, /<td class="text">&lt;instance_members_initializer&gt;<\/td>/)
  assert.doesNotMatch(fragment, /<instance_members_initializer>/)
  assert.match(renderComparisonHtml(comparison, { scenario: '<b>' }), /in &lt;b&gt;: HTML against JSON<\/h2>/)

  const text = renderComparisonText(comparison, { scenario: 'doc-read' })
  assert.match(text, /^Where the CPU goes in doc-read: HTML against JSON\n/)
  // Text left-aligned, numbers right-aligned, two spaces between columns.
  assert.ok(text.includes([
    'category                  HTML    JSON  HTML - JSON',
    '----------------------  ------  ------  -----------',
    'template rendering      27.78%   0.00%    +27.78 pp',
    'JSON serialisation      16.67%  40.00%    -23.33 pp',
    'database driver / BSON  11.11%  30.00%    -18.89 pp',
    'Express routing          0.00%   0.00%      0.00 pp',
    ''
  ].join('\n')), text)
  assert.ok(text.includes([
    'Hottest functions serving HTML:',
    '#  function             where                        category            samples   share',
    '-  -------------------  ---------------------------  ------------------  -------  ------',
    '1  memberLookup         nunjucks/src/runtime.js:197  template rendering        3  16.67%',
    ''
  ].join('\n')), text)
})

test('analyzeProfile: clinic flame\'s samples (0x\'s ticks.json), without V8 states', (t) => {
  const profileDir = path.join(temporaryDir(t, 'nodebench-flame-analyze-'), '4242.clinic-flame')
  fs.mkdirSync(profileDir)
  // Root first, as 0x writes them; the frames no code matched are already gone (an empty stack is one).
  const stacks = [
    ...Array(3).fill([CODE.renderTemplate, CODE.template, CODE.memberLookup]),
    ...Array(2).fill([CODE.expressStringify, CODE.jsonStringify]),
    [CODE.layer, CODE.wrapLayer, CODE.performanceNow],
    ...Array(4).fill([CODE.epoll]),
    []
  ]
  fs.writeFileSync(path.join(profileDir, '4242.clinic-flame-samples'), JSON.stringify(stacks))
  const analysis = analyzeProfile(profileDir, { top: 1 })
  assert.equal(analysis.source, 'ticks')
  assert.equal(analysis.samples, 7)
  assert.equal(analysis.idleSamples, 4, 'a stack holding only the event loop\'s wait is idle')
  assert.deepEqual(categoriesOf(analysis), { [CATEGORIES.TEMPLATE]: 3, [CATEGORIES.JSON]: 2, [CATEGORIES.NODEBENCH]: 1, [CATEGORIES.OTHER]: 1 })
  assert.deepEqual(analysis.topFunctions, [
    { name: 'memberLookup', file: '/srv/app/node_modules/nunjucks/src/runtime.js', line: 197, category: CATEGORIES.TEMPLATE, samples: 3, share: 3 / 7 }
  ])
  const comparison = compareProfiles({ html: analysis, json: analysis })
  assert.match(renderComparisonMarkdown(comparison), /These samples carry no V8 state \(clinic flame keeps none\)/)
})

test('analyzeProfile reads a profile 0x takes of a script busy in JSON.stringify', async (t) => {
  const zeroEks = require('0x')
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const script = path.join(dir, 'serialise.js')
  fs.writeFileSync(script, [
    "'use strict'",
    // eslint-disable-next-line no-template-curly-in-string -- the profiled script's own template literal
    'const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ["a", "b"], nested: { x: i / 3 } }))',
    'function serialiseRows (until) {',
    '  let length = 0',
    '  while (Date.now() < until) length += JSON.stringify(rows).length',
    '  return length',
    '}',
    'if (serialiseRows(Date.now() + 1000) === 0) process.exitCode = 1',
    ''
  ].join('\n'))
  const profileDir = await zeroEks({
    argv: [script], workingDir: dir, outputDir: path.join(dir, 'p.0x'), collectOnly: true, pathToNodeBinary: process.execPath
  })
  // 0x may still be writing its copy of the processed log when it resolves.
  await waitForProfile(profileDir)
  const analysis = analyzeProfile(profileDir)
  assert.equal(analysis.source, 'v8-log')
  assert.ok(analysis.samples > 100, `${analysis.samples} samples on CPU in about a second`)
  const json = analysis.categories.find((c) => c.category === CATEGORIES.JSON)
  // JSON.stringify runs in V8's C++, which the tick processor of Node 20 leaves unnamed: nm names it.
  if (spawnSync('nm', ['--version']).status !== 0) {
    t.diagnostic('no nm on this machine: the JSON category cannot be checked')
    return
  }
  assert.ok(json && json.share > 0.5, `JSON serialisation is most of the CPU: ${JSON.stringify(analysis.categories)}`)
  const top = analysis.topFunctions[0]
  assert.deepEqual([top.name, top.file, top.category], ['serialiseRows', script, CATEGORIES.JSON])
})

test('a .cpuprofile (V8\'s sampling profiler): states from its special nodes, and each segment\'s CPU beside its time', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const frame = (id, functionName, url, lineNumber, children = []) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' }, children })
  const profile = {
    nodes: [
      frame(1, '(root)', '', -1, [2, 3, 4, 5, 9]),
      frame(2, '(idle)', '', -1),
      frame(3, '(garbage collector)', '', -1),
      frame(4, '(program)', '', -1),
      // viewDocument (html.js:40) renders: nunjucks under it; the param handler (param.js:24) looks a document up.
      frame(5, 'handle', 'file:///srv/app/node_modules/router/lib/layer.js', 99, [6, 8]),
      frame(6, 'exp.viewDocument', 'file:///srv/app/lib/controllers/html.js', 39, [7]),
      frame(7, 'memberLookup', 'file:///srv/app/node_modules/nunjucks/src/runtime.js', 196),
      frame(8, 'exp.document', 'file:///srv/app/lib/param-middleware.js', 23),
      // A driver's callback after the lookup: no layer below it.
      frame(9, 'deserializeObject', 'file:///srv/app/node_modules/bson/lib/bson.cjs', 3356)
    ],
    startTime: 0,
    endTime: 10_000,
    samples: [2, 2, 3, 4, 7, 7, 7, 6, 8, 9, 9],
    timeDeltas: Array(11).fill(1000)
  }
  const file = path.join(dir, 'doc-read-html.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(profile))
  const operation = {
    segments: [
      { name: 'document', kind: 'param', order: 0, file: '/srv/app/lib/param-middleware.js', line: 24, share: 0.9 },
      { name: 'viewDocument', kind: 'handler', order: 1, file: '/srv/app/lib/controllers/html.js', line: 40, share: 0.08 }
    ]
  }
  const analysis = analyzeProfile(file, { operation })
  assert.deepEqual([analysis.source, analysis.samples, analysis.idleSamples, analysis.profilerShare, analysis.compileShare], ['cpuprofile', 9, 2, null, null])
  const { segments, garbageCollection, notAttributed, onCpu } = analysis.segments
  assert.equal(onCpu, 9)
  assert.deepEqual(segments.map((s) => [s.name, s.samples, s.cpuShare, s.wallShare]), [['document', 1, 1 / 9, 0.9], ['viewDocument', 4, 4 / 9, 0.08]])
  assert.deepEqual(segments[1].categories, [{ category: CATEGORIES.TEMPLATE, share: 0.75 }, { category: CATEGORIES.APP, share: 0.25 }])
  assert.deepEqual(garbageCollection, { samples: 1, share: 1 / 9 })
  // (program) and the driver's callbacks: on CPU, nobody's.
  assert.equal(notAttributed.samples, 3)
  assert.ok(analysis.topFunctions.some((f) => f.name === '(program: V8 and native code)' && f.category === CATEGORIES.V8))
})

test('analyzeProfile keeps the window\'s samples where the profile has their times', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  // writeProfile's ticks of one entry are 1 ms apart: 10 samples at 0..9 ms.
  const profileDir = writeProfile(dir, 'windowed', CODE, [{ vm: VM.JS, stack: ['viewDocument'], times: 10 }])
  const all = analyzeProfile(profileDir)
  const window = analyzeProfile(profileDir, { window: { startUs: 3000, endUs: 6000 } })
  assert.deepEqual([all.samples, all.windowed, window.samples, window.windowed], [10, false, 4, true])
})

test('the profiler\'s overhead in words: a cost as a share, more requests/s under it as within noise, never above 100%', () => {
  const { renderSegmentsText } = require('../lib/flame/render-segments')
  const flamegraph = (ratio) => ({
    format: 'json',
    operation: { method: 'GET', route: '/items/:id', format: 'json', count: 128 },
    analysis: { samples: 900, idleSamples: 12, source: 'cpuprofile', segments: null, apart: { profiler: 0, compiler: 0, gc: 0 }, programSamples: 0 },
    overhead: { profiledRequestsPerSec: 150 * ratio, unprofiledRequestsPerSec: 150, ratio, how: 'the same process' },
    breakdownFailure: 'none served'
  })
  const options = { scenario: 'item-read', profiler: 'v8' }
  const faster = renderSegmentsText(flamegraph(1.202), options)
  assert.match(faster, /Measured overhead of V8's sampling profiler: within noise \(180 requests\/s under it against 150 without, the same process: the windows varied more than the profiler costs\)\./)
  assert.doesNotMatch(faster, /120\.\d\d%/)
  assert.match(renderSegmentsText(flamegraph(0.95), options), /the app served 95\.00% of its unprofiled requests\/s under it \(143 requests\/s under it against 150 without/)
  assert.match(faster, /^GET \/items\/:id \[json\], 128 requests in the profiled window\. /m)
})

test('the flamegraph page: the hottest frame drawn in the key\'s hot colour (not white) and in view at 1400x1000', { timeout: 120_000 }, async (t) => {
  const { finishFlamegraphPage } = require('../lib/flame/flamegraph-page')
  const { hotFramePixels } = require('./page-check')
  const dir = temporaryDir(t, 'nodebench-flamegraph-page-')
  // A profile whose hottest function (97.6% at the top of the stack) ends a chain 80 frames deep: its frame is at
  // the top of a chart taller than the window, which 0x opens scrolled to its root.
  const frame = (id, functionName, line, hitCount, children = []) =>
    ({ id, callFrame: { functionName, scriptId: '1', url: 'file:///app/lib/render.js', lineNumber: line, columnNumber: 1 }, hitCount, children })
  const nodes = [frame(1, '(root)', -1, 0, [2]), frame(2, 'main', 1, 0, [3, 4]), frame(3, 'renderHeader', 5, 24)]
  for (let depth = 0; depth < 80; depth++) nodes.push(frame(4 + depth, `renderRow${depth}`, 10 + depth, depth === 79 ? 976 : 0, depth === 79 ? [] : [5 + depth]))
  const hottest = nodes[nodes.length - 1].id
  const samples = [...Array(24).fill(3), ...Array(976).fill(hottest)]
  const profile = path.join(dir, 'deep.cpuprofile')
  fs.writeFileSync(profile, JSON.stringify({ nodes, startTime: 0, endTime: 1_000_000, samples, timeDeltas: samples.map(() => 1000) }))
  const zeroEks = require('0x')
  const draw = (name) => zeroEks({ visualizeCpuProfile: profile, workingDir: dir, outputHtml: path.join(dir, `${name}.html`), name, title: name })
  await draw('as-0x-draws-it')
  await draw('finished')
  assert.deepEqual(finishFlamegraphPage(path.join(dir, 'finished.html')), [], 'both edits apply to the 0x installed')
  const raw = await hotFramePixels(path.join(dir, 'as-0x-draws-it.html'), { chromiumPath: '/usr/bin/chromium' })
  assert.equal(raw.hotPixels, 0, '0x alone draws the 97.6% frame white')
  const finished = await hotFramePixels(path.join(dir, 'finished.html'), { chromiumPath: '/usr/bin/chromium' })
  assert.ok(finished.hotPixels > 1000, `the hottest frame filled: ${finished.hotPixels} pixels`)
  assert.ok(finished.hotPixelsInView > 1000, `and in view without scrolling: ${finished.hotPixelsInView} pixels`)
})

test('sampleContexts: each sample of a .cpuprofile gets the context the app logged for its moment', () => {
  const { sampleContexts } = require('../lib/flame/sample-contexts')
  // Samples at 1000, 2000, ... 6000 µs; the fifth handed over before the fourth, as V8 sometimes does.
  const profile = { startTime: 0, samples: [1, 1, 1, 1, 1, 1], timeDeltas: [1000, 1000, 1000, 1500, -1000, 2500] }
  const login = { method: 'POST', route: '/login', format: 'json', position: 1, kind: 'handler', name: 'login', file: '/app.js', line: 9 }
  const log = {
    // No request until 1500; login from 1500; between segments from 2500; nobody from 3200; login again from 3800.
    times: Float64Array.from([0, 1500, 2500, 3200, 3800]),
    contexts: Int32Array.from([-1, 0, -2, -1, 0]),
    table: [login],
    truncated: false
  }
  // Sample times: 1000, 2000, 3000, 4500, 3500, 6000.
  const result = sampleContexts(profile, [log])
  assert.deepEqual(result.samples, [-1, 0, -2, 0, -1, 0])
  assert.deepEqual(result.table, [login])
  assert.deepEqual([result.transitions, result.truncated], [5, false])
  // A second copy of nodebench's log: its table follows the first's; a sample either knows counts once.
  const other = { times: Float64Array.from([0, 5500]), contexts: Int32Array.from([-1, 0]), table: [{ ...login, name: 'other' }], truncated: true }
  const both = sampleContexts(profile, [log, other])
  assert.equal(both.table.length, 2)
  // The truncated log ends at its last moment: the sample at 6000 µs is past it, so the first log's answer stands.
  assert.deepEqual(both.samples, [-1, 0, -2, 0, -1, 0])
  assert.equal(both.truncated, true)
})

test('a .cpuprofile with its contexts: a continuation counts for the segment awaiting it; each segment\'s time split', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const frame = (id, functionName, url, lineNumber, children = []) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' }, children })
  const profile = {
    nodes: [
      frame(1, '(root)', '', -1, [2, 3, 4, 6]),
      frame(2, '(idle)', '', -1),
      frame(3, '(garbage collector)', '', -1),
      // bcrypt's rounds in a setImmediate callback, under the service the controller awaits: no layer frame.
      frame(4, 'processImmediate', 'node:internal/timers', 437, [5]),
      frame(5, '_encipher', 'file:///srv/app/node_modules/bcryptjs/umd/index.js', 795),
      // The controller's own synchronous code.
      frame(6, 'login', 'file:///srv/app/server.js', 44)
    ],
    // Samples at 1, 2, ... 10 ms, each standing for the millisecond to the next (the last to the end).
    startTime: 0,
    endTime: 11_000,
    samples: [2, 2, 3, 5, 5, 5, 5, 6, 5, 5],
    timeDeltas: Array(10).fill(1000)
  }
  const file = path.join(dir, 'login-json.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(profile))
  const context = (name, position, line, kind = 'handler') => ({ method: 'POST', route: '/login', format: 'json', position, kind, name, file: '/srv/app/server.js', line })
  fs.writeFileSync(path.join(dir, 'login-json.contexts.json'), JSON.stringify({
    schema: 1,
    table: [context('login', 1, 45), { ...context('login', 1, 45), route: '/elsewhere' }, context('session', 0, 30, 'middleware')],
    // Four bcrypt samples in login's context, one in another operation's, one between segments, one in none.
    samples: [-1, -1, 0, 0, 0, 0, 0, -1, 1, -2],
    transitions: 12,
    truncated: false
  }))
  const operation = {
    method: 'POST',
    route: '/login',
    format: 'json',
    segments: [
      { name: 'session', kind: 'middleware', order: 0, file: '/srv/app/server.js', line: 30, share: 0.3, count: 10, meanMs: 3 },
      {
        name: 'login',
        kind: 'handler',
        order: 1,
        file: '/srv/app/server.js',
        line: 45,
        share: 0.7,
        count: 10,
        meanMs: 7,
        dependencies: [
          { system: 'mongodb', operation: 'find', target: 'users', count: 1, meanMs: 1, share: 0.1 },
          { system: 'render', operation: 'pug', target: 'views/home', count: 1, meanMs: 0.5, share: 0.05 }
        ]
      }
    ]
  }
  // The breakdown's window: 10 ms, as long as the samples cover (10 samples of 1 ms, idle ones included).
  const analysis = analyzeProfile(file, { operation, breakdownMs: 10 })
  assert.deepEqual(analysis.contexts, { transitions: 12, truncated: false })
  const { segments, notAttributed, garbageCollection, contexts } = analysis.segments
  assert.equal(contexts, true)
  const login = segments.find((s) => s.name === 'login')
  // Five samples: the controller's own frame, and four bcrypt rounds found by their context.
  assert.deepEqual([login.samples, login.asyncSamples], [5, 4])
  assert.deepEqual([notAttributed.samples, notAttributed.inRequests, garbageCollection.samples], [2, 2, 1])
  // Its time per invocation: 5 samples of 1 ms over 10 invocations of 7 ms; mongodb waited on for 1 ms; the
  // template's rendering is CPU (named, not a wait); the rest is what is left.
  const time = login.time
  assert.deepEqual([time.ms, time.cpuMs, time.dependencyMs, time.restMs], [7, 0.5, 1, 5.5])
  assert.deepEqual(time.dependencies.map((d) => [d.system, d.inProcess]), [['mongodb', false], ['render', true]])
  const session = segments.find((s) => s.name === 'session')
  assert.deepEqual([session.samples, session.time.cpuMs, session.time.restMs, session.time.restShare], [0, 0, 3, 1])

  // Without its contexts, the same profile leaves the continuations to nobody.
  fs.rmSync(path.join(dir, 'login-json.contexts.json'))
  const stacksOnly = analyzeProfile(file, { operation, breakdownMs: 10 })
  assert.equal(stacksOnly.contexts, null)
  assert.deepEqual([stacksOnly.segments.segments[1].samples, stacksOnly.segments.notAttributed.samples], [1, 6])
})

test('outside the segments: Node.js\'s HTTP and Express\'s routing, the driver\'s pooled connections and the log each a row; the rest nobody\'s', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const frame = (id, functionName, url, lineNumber, children = []) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' }, children })
  const profile = {
    nodes: [
      frame(1, '(root)', '', -1, [2, 3, 10, 20, 30]),
      frame(2, '(idle)', '', -1),
      frame(3, '(program)', '', -1),
      // A request parsed, made an IncomingMessage, routed by Express to the login's frame.
      frame(10, 'parserOnHeadersComplete', 'node:_http_common', 71, [11]),
      frame(11, 'parserOnIncoming', 'node:_http_server', 1053, [12, 14]),
      frame(12, 'handle', 'file:///srv/app/node_modules/express/lib/router/index.js', 135, [13]),
      frame(13, 'login', 'file:///srv/app/server.js', 44),
      frame(14, 'IncomingMessage', 'node:_http_incoming', 50),
      // The driver reading a pooled connection's socket.
      frame(20, 'onStreamRead', 'node:internal/stream_base_commons', 165, [21]),
      frame(21, 'deserialize', 'file:///srv/app/node_modules/bson/lib/bson.cjs', 3400),
      // Node.js calling the log's before hook; a stream resumed in a tick, which no stack names.
      frame(30, 'processTicksAndRejections', 'node:internal/process/task_queues', 94, [31, 33, 34]),
      frame(31, 'emitHook', 'node:internal/async_hooks', 220, [32]),
      frame(32, 'before', 'file:///srv/app/node_modules/@nodebench/trace/lib/cpu-context.js', 100),
      frame(33, 'resume_', 'node:internal/streams/readable', 1100),
      // Express sending a response in a tick: in no request by its context, maybe a continuation by its stack.
      frame(34, 'send', 'file:///srv/app/node_modules/express/lib/response.js', 110)
    ],
    startTime: 0,
    endTime: 15_000,
    samples: [2, 3, 12, 14, 13, 21, 21, 21, 32, 33, 12, 12, 34, 32],
    timeDeltas: Array(14).fill(1000)
  }
  const file = path.join(dir, 'login-json.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(profile))
  const context = { method: 'POST', route: '/login', format: 'json', position: 0, kind: 'handler', name: 'login', file: '/srv/app/server.js', line: 45 }
  const contextsFile = path.join(dir, 'login-json.contexts.json')
  fs.writeFileSync(contextsFile, JSON.stringify({
    schema: 1,
    table: [context, { ...context, route: '/elsewhere' }],
    // The driver's read once in no request, once in the login's context, once between segments; routing once in
    // another operation's request, once between this one's segments; the log's hook once in the login's context
    // (flame's own work: not the login's).
    samples: [-1, -1, -1, -1, -1, -1, 0, -2, -1, -1, 1, -2, -1, 0],
    transitions: 20,
    truncated: false
  }))
  const operation = {
    method: 'POST',
    route: '/login',
    format: 'json',
    segments: [{ name: 'login', kind: 'handler', order: 0, file: '/srv/app/server.js', line: 45, share: 0.9 }]
  }
  const rows = (segments) => Object.fromEntries([...segments.outsideSegments.map((row) => [row.key, row.samples]),
    ['login', segments.segments[0].samples], ['notAttributed', segments.notAttributed.samples]])
  const { segments } = analyzeProfile(file, { operation })
  assert.equal(segments.onCpu, 13)
  assert.deepEqual(rows(segments), { contextLog: 2, httpAndRouting: 4, databaseConnections: 1, login: 2, notAttributed: 4 })
  assert.equal(segments.notAttributed.inRequests, 2)
  const http = segments.outsideSegments.find((row) => row.key === 'httpAndRouting')
  assert.equal(http.name, 'HTTP and routing (Node.js, Express; outside the segments)')
  assert.deepEqual([http.share, http.categories.map((c) => c.category)], [4 / 13, [CATEGORIES.EXPRESS, CATEGORIES.NODE_IO]])
  // Every sample on CPU is in exactly one row.
  assert.equal(Object.values(rows(segments)).reduce((sum, n) => sum + n, 0) + segments.garbageCollection.samples, segments.onCpu)

  const flamegraph = { format: 'json', operation: { ...operation, count: 10 }, overhead: null, analysis: { source: 'cpuprofile', samples: 13, idleSamples: 1, segments } }
  const options = { scenario: 'login', profiler: 'v8' }
  const { renderSegmentsMarkdown, renderSegmentsHtml, renderSegmentsText } = require('../lib/flame/render-segments')
  assert.match(renderSegmentsMarkdown(flamegraph, options), /\| {2}\| HTTP and routing \(Node\.js, Express; outside the segments\) \| {2}\| - \| 30\.77% \| 4 \| Express routing 75\.00%, Node\.js HTTP and I\/O 25\.00% \|/)
  assert.match(renderSegmentsHtml(flamegraph, options), /<td class="text">database driver in no request \(reading its pooled connections, monitoring\)<\/td>/)
  assert.match(renderSegmentsText(flamegraph, options), /^ +logging the async contexts \(nodebench flame's, only while it profiles\) +- +15\.38% +2 +nodebench 100\.00%$/m)

  // By the stack alone, the driver's reads and Express's send may be a segment's continuations: nobody's; a
  // request's parsing and routing as it arrives is still named.
  fs.rmSync(contextsFile)
  const stacksOnly = analyzeProfile(file, { operation }).segments
  assert.deepEqual(rows(stacksOnly), { contextLog: 2, httpAndRouting: 4, databaseConnections: 0, login: 1, notAttributed: 6 })
  assert.doesNotMatch(renderSegmentsText({ ...flamegraph, analysis: { ...flamegraph.analysis, segments: stacksOnly } }, options), /^ +database driver in no request/m)
})

test('the segment section: what each segment\'s time is, and the hottest functions, in Markdown, HTML and text', () => {
  const { renderSegmentsMarkdown, renderSegmentsHtml, renderSegmentsText } = require('../lib/flame/render-segments')
  const time = (ms, cpuMs, dependencyMs, dependencies = []) => ({
    ms, cpuMs, dependencyMs, restMs: ms - cpuMs - dependencyMs, cpuShare: cpuMs / ms, dependencyShare: dependencyMs / ms, restShare: (ms - cpuMs - dependencyMs) / ms, dependencies
  })
  const flamegraph = {
    format: 'json',
    operation: { method: 'POST', route: '/login', format: 'json', count: 100 },
    overhead: null,
    analysis: {
      source: 'cpuprofile',
      windowed: true,
      samples: 1000,
      idleSamples: 10,
      profilerShare: null,
      compileShare: null,
      categories: [{ category: 'template rendering', samples: 600, share: 0.6 }, { category: 'app', samples: 400, share: 0.4 }],
      topFunctions: [{ name: 'pug_escape', file: '/srv/app/node_modules/pug-runtime/index.js', line: 3, category: 'template rendering', samples: 600, share: 0.6 }],
      segments: {
        onCpu: 1000,
        contexts: true,
        segments: [
          { name: 'serveStatic', kind: 'middleware', order: 0, wallShare: 0.5, samples: 10, cpuShare: 0.01, categories: [], time: time(50, 0.5, 0) },
          {
            name: 'login',
            kind: 'handler',
            order: 1,
            wallShare: 0.5,
            samples: 900,
            cpuShare: 0.9,
            categories: [],
            time: time(50, 20, 10, [{ system: 'mongodb', operation: 'find', target: 'users', meanMs: 10, inProcess: false }, { system: 'render', operation: 'pug', target: 'views/home', meanMs: 5, inProcess: true }])
          }
        ],
        garbageCollection: { samples: 50, share: 0.05 },
        notAttributed: { samples: 40, share: 0.04, inRequests: 0, categories: [] }
      }
    }
  }
  const options = { scenario: 'login', profiler: 'v8' }
  const markdown = renderSegmentsMarkdown(flamegraph, options)
  assert.match(markdown, /### What each segment's time is/)
  assert.match(markdown, /\| 1 \| serveStatic \| 50\.0 \| 0\.500 \(1\.00%\) \| 0\.000 \(0\.00%\) \| 49\.5 \(99\.00%\) \| - \|/)
  assert.match(markdown, /\| 2 \| login \| 50\.0 \| 20\.0 \(40\.00%\) \| 10\.0 \(20\.00%\) \| 20\.0 \(40\.00%\) \| mongodb find users 10\.0 ms; render pug views\/home 5\.00 ms \(CPU\) \|/)
  // A segment that only waits behind the others' work is said to, so that nobody optimises it.
  assert.match(markdown, /\n- serveStatic \(50\.00% of the response time, 50\.0 ms an invocation\) is 99\.00% waiting behind other work: the process is busy elsewhere \(login holds 90\.00% of the CPU samples\); making its own code faster would not shorten it\.\n/)
  assert.doesNotMatch(markdown, /\n- login/)
  assert.match(markdown, /### Hottest functions\n\nSelf time, as a share of the samples on CPU: template rendering 60\.00%, app 40\.00%\./)
  assert.match(markdown, /\| 1 \| pug\\?_escape \| pug-runtime\/index\.js:3 \| template rendering \| 600 \| 60\.00% \|/)
  assert.match(markdown, /else for the segment in whose async context it ran/)
  assert.match(markdown, /not attributed \(no stack or context names it: the event loop, streams, native code; other operations' requests\)/)
  const html = renderSegmentsHtml(flamegraph, options)
  assert.match(html, /<h4>What each segment&#39;s time is<\/h4>/)
  assert.match(html, /<td class="text">pug_escape<\/td>/)
  assert.match(html, /<ul class="findings"><li>serveStatic \(50\.00% of the response time/)
  const text = renderSegmentsText(flamegraph, options)
  assert.match(text, /^Hottest functions: /m)
  assert.match(text, /serveStatic +50\.0 +0\.500 \(1\.00%\)/)
})

test('template engines by package: a profile of pug, ejs and handlebars rendering is template rendering, not other', async (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-templates-')
  const script = path.join(dir, 'render.js')
  // Each engine as Express runs it (res.render calls the engine's renderFile, which keeps the compiled template).
  fs.writeFileSync(path.join(dir, 'home.pug'), 'ul\n  each row in rows\n    li(class="row")= row.name + " " + row.email\n')
  fs.writeFileSync(path.join(dir, 'home.ejs'), '<ul><% rows.forEach(function (row) { %><li class="row"><%= row.name %> <%= row.email %></li><% }) %></ul>\n')
  fs.writeFileSync(path.join(dir, 'home.hbs'), '<ul>{{#each rows}}<li class="row">{{name}} {{email}}</li>{{/each}}</ul>\n')
  fs.writeFileSync(script, [
    "'use strict'",
    "const inspector = require('node:inspector')",
    "const fs = require('node:fs')",
    "const path = require('node:path')",
    `const pug = require(${JSON.stringify(require.resolve('pug'))})`,
    `const ejs = require(${JSON.stringify(require.resolve('ejs'))})`,
    `const handlebars = require(${JSON.stringify(require.resolve('handlebars'))})`,
    // eslint-disable-next-line no-template-curly-in-string -- the profiled script's own template literals
    'const rows = Array.from({ length: 50 }, (_, i) => ({ name: `user <${i}>`, email: `u${i}@example.com` }))',
    'const view = (name) => path.join(__dirname, name)',
    'const hbs = new Map()',
    // express-handlebars and hbs keep the compiled template per file, as this does.
    'function renderHandlebars (file, locals) {',
    "  if (!hbs.has(file)) hbs.set(file, handlebars.compile(fs.readFileSync(file, 'utf8')))",
    '  return hbs.get(file)(locals)',
    '}',
    'const renders = [',
    "  () => pug.renderFile(view('home.pug'), { rows, cache: true }),",
    "  () => { let html = ''; ejs.renderFile(view('home.ejs'), { rows }, { cache: true }, (err, out) => { if (err) throw err; html = out }); return html },",
    "  () => renderHandlebars(view('home.hbs'), { rows })",
    ']',
    'const session = new inspector.Session()',
    'session.connect()',
    // Compiled and warmed up first, as flame's warm-up does: the window holds rendering, not compiling.
    'for (let i = 0; i < 50; i++) for (const render of renders) render()',
    "session.post('Profiler.enable', () => session.post('Profiler.start', () => {",
    '  const until = Date.now() + 1500',
    '  let length = 0',
    '  while (Date.now() < until) for (const render of renders) length += render().length',
    "  session.post('Profiler.stop', (err, { profile }) => {",
    '    if (err || length === 0) process.exitCode = 1',
    '    fs.writeFileSync(process.argv[2], JSON.stringify(profile))',
    '  })',
    '}))',
    ''
  ].join('\n'))
  const file = path.join(dir, 'templates.cpuprofile')
  const run = spawnSync(process.execPath, [script, file], { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  const analysis = analyzeProfile(file)
  const templates = analysis.categories.find((c) => c.category === CATEGORIES.TEMPLATE)
  const other = analysis.categories.find((c) => c.category === CATEGORIES.OTHER)
  // The engines' own code leads; the rest is this script's loop (app) and the collector.
  assert.ok(templates && templates.share > 0.4 && analysis.categories[0] === templates, `template rendering: ${JSON.stringify(analysis.categories)}`)
  assert.ok(!other || other.share < 0.1, `other: ${JSON.stringify(analysis.categories)}`)
  const engines = new Set(analysis.topFunctions.filter((f) => f.category === CATEGORIES.TEMPLATE)
    .map((f) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f.file ?? '')?.[1] ?? path.basename(f.file ?? '')))
  t.diagnostic(`template functions among the hottest from: ${[...engines].join(', ')}`)
  assert.ok(analysis.topFunctions.some((f) => f.category === CATEGORIES.TEMPLATE), 'the engines\' functions among the hottest')
})

test('a .cpuprofile\'s samples stand for the time to the next one: a late sampler does not shrink the CPU', (t) => {
  const dir = temporaryDir(t, 'nodebench-flame-analyze-')
  const frame = (id, functionName, url, lineNumber, children = []) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' }, children })
  // Idle samples 1 ms apart, the handler's 4 ms apart (its sampler thread late while the app computes, as on a
  // busy machine): 4 idle samples (4 ms) and 4 of the handler (16 ms) from 0 to 20 ms.
  const profile = {
    nodes: [frame(1, '(root)', '', -1, [2, 3]), frame(2, '(idle)', '', -1), frame(3, 'handler', 'file:///srv/app/server.js', 9)],
    startTime: 0,
    endTime: 20_000,
    samples: [2, 2, 2, 2, 3, 3, 3, 3],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 4000, 4000, 4000]
  }
  const file = path.join(dir, 'weights.cpuprofile')
  fs.writeFileSync(file, JSON.stringify(profile))
  const operation = { method: 'GET', route: '/', format: 'json', segments: [{ name: 'handler', kind: 'handler', order: 0, file: '/srv/app/server.js', line: 10, share: 1, count: 4, meanMs: 5 }] }
  const [handler] = analyzeProfile(file, { operation }).segments.segments
  // 16 ms of CPU over 4 invocations: 4 ms each (a count alone, half the samples of 20 ms, would say 2.5 ms).
  assert.equal(handler.samples, 4)
  assert.equal(handler.time.cpuMs, 4)
  assert.equal(handler.time.restMs, 1)
})
