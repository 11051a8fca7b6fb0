'use strict'

// The servers a bench run measures side by side (kernel/targets.js): a workload's `targets` checked, the ones
// --baseline-targets adds (and the app without nodebench with them), their run order, and the errors a user
// sees for a kind nodebench does not know: one line, exit 2.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { checkTargets, runTargets, targetOf } = require('../lib/kernel/targets')
const { parseBenchArguments } = require('../lib/commands/bench')
const { cellsOf } = require('../lib/kernel/plan')
const { checkOpenFiles } = require('../lib/kernel/open-files')
const { targetsSummary } = require('../lib/bench/baselines/data')
const { ladderSentence, costSentence } = require('../lib/bench/baselines/findings')
const { baselinesSection } = require('../lib/bench/baselines')
const { targetReferenceTable } = require('../lib/bench/baselines/tables')
const { temporaryDir, runCli } = require('../../../test/support')

const FIXTURES = path.join(__dirname, 'fixtures')
const BASELINES = path.join(FIXTURES, 'baselines')
const BASELINE_EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'baseline')

function failing (message) {
  throw new Error(message)
}

const check = (source) => checkTargets(source, { fail: failing, dir: BASELINES })

test('a workload\'s targets: kinds, names, a script or pages beside the workload, Apache\'s prefork settings', () => {
  assert.equal(check(undefined), null)
  const targets = check(['app', 'app-untraced', { kind: 'node', name: 'mine', label: 'my server', script: 'silent.js' },
    { kind: 'apache-php', root: 'php', prefork: { maxRequestWorkers: 1000, keepAlive: false } }, 'express'])
  assert.deepEqual(targets.map((t) => [t.name, t.kind, t.traced, t.builtIn]), [
    ['app', 'app', true, false], ['app-untraced', 'app-untraced', false, false], ['mine', 'node', false, false],
    ['apache-php', 'apache-php', false, false], ['express', 'express', false, true]
  ])
  assert.equal(targets[2].script, path.join(BASELINES, 'silent.js'))
  assert.equal(targets[3].root, path.join(BASELINES, 'php'))
  assert.deepEqual(targets[3].prefork, { maxRequestWorkers: 1000, keepAlive: false })
  assert.ok(Object.isFrozen(targets) && Object.isFrozen(targets[0]))
  for (const [source, message] of [
    [[], /^targets must be a list of servers \(app, app-untraced, node, express, apache-php\); received \[\]$/],
    [['nginx'], /^targets\[0\]: unknown target kind "nginx"; expected one of app, app-untraced, node, express, apache-php$/],
    [[{ kind: 'node', port: 1 }], /^targets\[0\]: unknown key 'port'; expected one of kind, name, label, script, root, prefork$/],
    [['node', 'node'], /^targets\[1\]: a second target named 'node'; give each a name of its own$/],
    [[{ kind: 'node', name: 'My Node' }], /^targets\[0\]\.name must be lower-case letters/],
    [[{ kind: 'node', script: 'missing.js' }], /^targets\[0\]\.script missing\.js is not a file \(paths are from the workload's folder\)$/],
    [[{ kind: 'apache-php', root: 'exits.js' }], /^targets\[0\]\.root exits\.js is not a directory/],
    [[{ kind: 'express', root: 'php' }], /^targets\[0\]\.root is for apache-php targets, not express$/],
    [[{ kind: 'apache-php', script: 'exits.js' }], /^targets\[0\]\.script is for node and express targets, not apache-php$/],
    [[{ kind: 'apache-php', prefork: { threads: 4 } }], /^targets\[0\]\.prefork: unknown key 'threads'/],
    [[{ kind: 'apache-php', prefork: { maxRequestWorkers: -1 } }], /^targets\[0\]\.prefork\.maxRequestWorkers must be a whole number from 0 to 100000; received -1$/]
  ]) {
    assert.throws(() => check(source), (err) => message.test(err.message), JSON.stringify(source))
  }
})

test('--baseline-targets adds ceilings to any run, and the app without nodebench with them; the app runs first', () => {
  const { targets, notes } = runTargets(null, ['node', 'express'], { appStarts: true })
  assert.deepEqual(targets.map((t) => t.name), ['app', 'app-untraced', 'express', 'node'])
  assert.deepEqual(notes, [])
  const atUrl = runTargets(null, ['node'], { appStarts: false })
  assert.deepEqual(atUrl.targets.map((t) => t.name), ['app', 'node'])
  assert.match(atUrl.notes[0], /the app without nodebench is not measured: nodebench does not start an app at --url alone/)
  // A workload's own targets keep their order after the app, those of the option come after them once.
  const workload = [targetOf({ kind: 'apache-php' }), targetOf({ kind: 'node', name: 'study-node' }), targetOf({ kind: 'app' })]
  assert.deepEqual(runTargets(workload, ['node', 'apache-php'], { appStarts: true }).targets.map((t) => t.name),
    ['app', 'app-untraced', 'study-node', 'apache-php'])
  assert.deepEqual(runTargets(null, [], { appStarts: true }).targets.map((t) => t.name), ['app'])
})

test('bench\'s options: --baseline-targets, a workload of other servers only, and its cells: Apache once, the app first', () => {
  // The default app, the study's: one scenario in one format.
  const { config } = parseBenchArguments(['--baseline-targets', 'node,express,apache-php', '--processes', '1,2', '--scenarios', 'doc-read', '--formats', 'json'])
  assert.deepEqual(config.targets.map((t) => t.name), ['app', 'app-untraced', 'express', 'node', 'apache-php'])
  assert.deepEqual(cellsOf(config).map((c) => `${c.processes} ${c.target.name} ${c.topology}`), [
    '1 app cluster', '1 app-untraced cluster', '1 express cluster', '1 node cluster', 'null apache-php prefork',
    '2 app cluster', '2 app-untraced cluster', '2 express cluster', '2 node cluster'
  ])
  const study = parseBenchArguments(['--app', BASELINE_EXAMPLE, '--quick']).config
  assert.deepEqual(study.targets.map((t) => [t.name, t.kind]), [['node', 'node'], ['apache-php', 'apache-php']])
  assert.equal(study.targets[0].script, path.join(BASELINE_EXAMPLE, 'node-server.js'))
  assert.deepEqual([study.connections, study.amounts], [{ hello: 1000 }, { hello: 10_000 }])
  assert.deepEqual(parseBenchArguments(['--app', BASELINE_EXAMPLE]).config.amounts, { hello: 100_000 })
  assert.throws(() => parseBenchArguments(['--url', 'http://127.0.0.1:9', '--workload', path.join(FIXTURES, 'shop', 'nodebench.workload.js'), '--baseline-targets', 'nginx']),
    (err) => err.code === 'NB_ERR_USAGE' && /^bench: unknown baseline target 'nginx'; expected one of node, express, app-untraced, apache-php$/.test(err.message))
})

test('an unknown target: one line and exit 2, from the option and from a workload', { timeout: 60_000 }, async (t) => {
  const option = await runCli(['bench', '--app', BASELINE_EXAMPLE, '--baseline-targets', 'node,iis'])
  assert.equal(option.code, 2)
  assert.equal(option.stderr, "nodebench: bench: unknown baseline target 'iis'; expected one of node, express, app-untraced, apache-php (usage: nodebench --help)\n")
  const dir = temporaryDir(t)
  const workload = path.join(dir, 'nodebench.workload.json')
  fs.writeFileSync(workload, JSON.stringify({ targets: ['node', { kind: 'lighttpd' }], scenarios: { hello: { request: { path: '/' } } } }))
  const file = await runCli(['bench', '--app', dir])
  assert.equal(file.code, 2)
  assert.match(file.stderr, /^nodebench: workload .*nodebench\.workload\.json: targets\[1\]: unknown target kind "lighttpd"; expected one of app, app-untraced, node, express, apache-php[^\n]*\n$/)
})

test('the open-file limit against a run\'s connections: enough, or what to do, in words', () => {
  const config = { connections: { hello: 1000 }, findMax: null }
  assert.deepEqual(checkOpenFiles(config, { limits: { soft: 20000, hard: 20000 } }),
    { soft: 20000, hard: 20000, needed: 1256, enough: true, note: '1000 connections fit in the open-file limit (20000)' })
  const short = checkOpenFiles(config, { limits: { soft: 1024, hard: 1024 } })
  assert.equal(short.enough, false)
  assert.match(short.note, /^this run opens up to 1000 connections, each a file in nodebench's process and in the server's, but this process may open 1024 files \(ulimit -n; hard limit 1024\): requests beyond it fail with EMFILE\. Raise the limit before running bench, to 1256 or more \(`ulimit -n 1256`/)
  assert.equal(checkOpenFiles({ connections: { a: 10 }, findMax: { maxConnections: 4096 } }, { limits: { soft: 4096, hard: 8192 } }).needed, 4352)
})

/** A cell as bench records it, with `reps` repetitions of these requests/s. */
function measuredCell (target, rates, extra = {}) {
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length
  return {
    target,
    scenario: 'read',
    format: 'json',
    processes: 1,
    topology: 'cluster',
    status: 'ok',
    connections: 100,
    requestsPerSec: { mean, min: Math.min(...rates), max: Math.max(...rates) },
    latencyMs: { mean: 10 },
    latencyPercentilesMs: { 50: 1, 66: 2, 75: 3, 80: 4, 90: 5, 95: 6, 98: 7, 99: 8, 100: 9 },
    requests: 1000,
    reps: rates.map((rate) => ({ requestsPerSec: rate, failures: {} })),
    breakdown: target === 'app' ? { operations: [] } : null,
    ...extra
  }
}

const described = (kinds) => kinds.map((kind) => ({ name: kind, kind, label: kind, traced: kind === 'app' }))

test('the ladder: each step\'s cost per request, shares of the gap that add up, steps within the noise and steps not measured named', () => {
  const results = {
    workload: { scenarios: { read: { label: 'read' } } },
    targets: described(['app', 'app-untraced', 'express', 'node']),
    cells: [measuredCell('app', [400, 400])],
    targetCells: [measuredCell('app-untraced', [500, 500]), measuredCell('express', [1000, 1000]), measuredCell('node', [2000, 2000])]
  }
  const { groups } = targetsSummary(results)
  const { ladder } = groups[0]
  // 1/2000 s, 1/1000, 1/500, 1/400: 500, 1000, 2000, 2500 µs.
  assert.deepEqual(ladder.steps.map((step) => [step.kind, Math.round(step.costUs), step.addedUs === null ? null : Math.round(step.addedUs)]),
    [['node', 500, null], ['express', 1000, 500], ['app-untraced', 2000, 1000], ['app', 2500, 500]])
  assert.deepEqual(ladder.steps.slice(1).map((step) => step.share), [0.25, 0.5, 0.25])
  assert.equal(ladderSentence(groups[0], ladder), 'read (json), 1 process: This machine serves bare node:http 2,000 req/s, Express 1,000, ' +
    'your app untraced 500, traced 400. Of the 2,000 µs a request costs above bare node:http, Express 25.00% (500 µs), the app\'s own code ' +
    '50.00% (1,000 µs) and nodebench 25.00% (500 µs).')

  results.cells = [measuredCell('app', [380, 470])]
  results.targetCells[0] = measuredCell('app-untraced', [420, 560])
  const noisy = targetsSummary(results).groups[0]
  assert.equal(noisy.ladder.steps[3].withinNoise, true)
  assert.match(ladderSentence(noisy, noisy.ladder), /The repetitions of the untraced app \(420 to 560 req\/s\) and the traced app \(380 to 470\) overlap, so nodebench's share is within this run's noise\.$/)

  // An "untraced" app that served a breakdown is no step: the app's own code and nodebench are one.
  results.cells = [measuredCell('app', [400, 400])]
  results.targetCells[0] = measuredCell('app-untraced', [500, 500], { tracedAnyway: true })
  const traced = targetsSummary(results)
  assert.deepEqual(traced.groups[0].ladder.steps.map((step) => step.kind), ['node', 'express', 'app'])
  assert.match(ladderSentence(traced.groups[0], traced.groups[0].ladder), /the app's own code and nodebench 75\.00% \(1,500 µs\)\. Not measured: your app untraced\.$/)
  assert.ok(traced.notes.some((note) => /ignores NODEBENCH=off/.test(note)))

  // Without the bare ceiling, or without the traced app, no ladder.
  results.targetCells = results.targetCells.filter((cell) => cell.target !== 'node')
  assert.equal(targetsSummary(results).groups[0].ladder, null)
})

test('what nodebench costs the app: the app traced against NODEBENCH=off, in a group without a ladder', () => {
  const results = {
    workload: { scenarios: { read: { label: 'read' } } },
    targets: described(['app', 'app-untraced']),
    cells: [measuredCell('app', [380, 420])],
    targetCells: [measuredCell('app-untraced', [490, 510])]
  }
  const summary = targetsSummary(results)
  const [group] = summary.groups
  assert.equal(group.ladder, null)
  // 1/400 s against 1/500: 2,500 against 2,000 µs, 500 µs more, a quarter of the untraced app's.
  assert.equal(Math.round(group.nodebenchCost.addedUs), 500)
  assert.equal(group.nodebenchCost.share, 0.25)
  assert.equal(costSentence(group, group.nodebenchCost), 'read (json), 1 process: nodebench costs this app 500 µs a request at saturation, ' +
    '25.00% of the untraced app\'s 2,000 µs (1 / requests/s: traced 400 req/s (380 to 420), untraced 500 (490 to 510)). ' +
    'Noise alone parts 2 and 2 repetitions so one run in 3: --reps 4 or more tells it from the noise.')
  assert.equal(group.nodebenchCost.chance, 1 / 3)
  assert.match(baselinesSection.markdown(summary), /### What nodebench costs this app\n[^]*- read \(json\), 1 process: nodebench costs this app 500 µs/)
  assert.match(baselinesSection.text(summary), /read \(json\), 1 process: nodebench costs this app 500 µs a request/)

  // The traced app's snapshot says its requests' context is kept by async hooks: the cost's sentence says what that
  // costs and the way out, wherever it is shown; kept by AsyncContextFrame (Node.js 24), nothing more to say.
  results.cells = [measuredCell('app', [380, 420], { breakdown: { operations: [], requestContext: 'async-hooks' } })]
  const hooked = targetsSummary(results)
  const [hookedGroup] = hooked.groups
  assert.match(costSentence(hookedGroup, hookedGroup.nodebenchCost), new RegExp('^read \\(json\\), 1 process: nodebench costs this app 500 µs ' +
    '[^]* nodebench keeps the app\'s requests\' async context [^]*with async hooks: every promise of the app pays for it[^]*' +
    'On Node.js 22, node --experimental-async-context-frame in the app\'s command \\(traced and untraced alike\\) takes that away; ' +
    'Node.js 24 needs nothing\\.$'))
  assert.match(baselinesSection.text(hooked), /takes that away; Node.js 24 needs nothing\.\n/)
  assert.match(baselinesSection.markdown(hooked), /node --experimental-async-context-frame/)
  results.cells = [measuredCell('app', [380, 420], { breakdown: { operations: [], requestContext: 'async-context-frame' } })]
  const framed = targetsSummary(results).groups[0]
  assert.doesNotMatch(costSentence(framed, framed.nodebenchCost), /async context/)

  // Overlapping repetitions: within the run's noise, no figure claimed.
  results.cells = [measuredCell('app', [450, 520])]
  const noisy = targetsSummary(results).groups[0]
  assert.equal(costSentence(noisy, noisy.nodebenchCost), 'read (json), 1 process: nodebench\'s cost is within this run\'s noise: ' +
    'traced 485 req/s (450 to 520), untraced 500 (490 to 510); the repetitions overlap.')

  // Four repetitions each that do not overlap: noise alone parts them so one run in 35 (2 / C(8, 4)).
  results.cells = [measuredCell('app', [380, 390, 410, 420])]
  results.targetCells = [measuredCell('app-untraced', [490, 495, 505, 510])]
  const four = targetsSummary(results).groups[0]
  assert.deepEqual(four.nodebenchCost.reps, { traced: 4, untraced: 4 })
  assert.equal(four.nodebenchCost.chance, 2 / 70)
  assert.match(costSentence(four, four.nodebenchCost), /\)\)\. Noise alone parts 4 and 4 repetitions so one run in 35\.$/)
  // Three against two: 2 / C(5, 2), one run in 5.
  results.cells = [measuredCell('app', [380, 400, 420])]
  results.targetCells = [measuredCell('app-untraced', [490, 510])]
  assert.equal(targetsSummary(results).groups[0].nodebenchCost.chance, 2 / 10)
  results.targetCells = [measuredCell('app-untraced', [490, 510])]

  // One repetition each: a figure, said to have no spread.
  results.cells = [measuredCell('app', [400])]
  results.targetCells = [measuredCell('app-untraced', [500])]
  const single = targetsSummary(results).groups[0]
  assert.match(costSentence(single, single.nodebenchCost), /500 µs a request at saturation, .*\(one repetition each: no spread to judge it by\)\.$/)

  // An "untraced" app that still served a breakdown says nothing of nodebench's cost; nor does a group with a ladder.
  results.targetCells = [measuredCell('app-untraced', [500], { tracedAnyway: true })]
  assert.equal(targetsSummary(results).groups[0].nodebenchCost, null)
  results.targets = described(['app', 'app-untraced', 'node'])
  results.targetCells = [measuredCell('app-untraced', [500]), measuredCell('node', [2000])]
  const laddered = targetsSummary(results)
  assert.notEqual(laddered.groups[0].ladder, null)
  assert.equal(laddered.groups[0].nodebenchCost, null)
  assert.doesNotMatch(baselinesSection.markdown(laddered), /What nodebench costs this app/)
})

test('the reference beside the run: the study\'s figures per target, this run\'s as Apache Bench computes them', () => {
  const results = {
    workload: {
      scenarios: { read: { label: 'read' } },
      reference: { source: 'a study', targets: { table: 'Table 2', figures: { node: { requestsPerSec: 1000, failed: 3, timePerRequestMs: 100, percentilesMs: { 98: 300 } } } } }
    },
    targets: described(['node', 'apache-php']),
    cells: [],
    targetCells: [measuredCell('node', [2000]), { ...measuredCell('apache-php', [500]), status: 'failed', failure: 'no', requestsPerSec: null }]
  }
  results.targetCells[0].reps[0].failures = { timeout: 2, 'connection reset': 1 }
  const summary = targetsSummary(results)
  const table = targetReferenceTable(summary)
  const row = (label) => table.rows.find((r) => r.cells[0] === label).cells
  assert.deepEqual(table.head, ['figure', 'node: study', 'node: here'])
  assert.deepEqual(row('requests per second'), ['requests per second', '1,000', '2,000'])
  // ab's time per request: the concurrency's time over the requests, 100 connections / 2,000 req/s.
  assert.deepEqual(row('time per request, mean (ms)'), ['time per request, mean (ms)', '100.0', '50.0'])
  assert.deepEqual(row('failed requests'), ['failed requests', '3', '3'])
  assert.deepEqual(row('98% within (ms)'), ['98% within (ms)', '300.0', '7.00'])
  assert.deepEqual(row('here ÷ study, req/s'), ['here ÷ study, req/s', '', '2.00×'])
})

test('the cost sentence says whether the repetitions were interleaved, and what a drift does when they were not', () => {
  // Each repetition's start (ms), as bench records it since it interleaves the app's with the untraced app's.
  const started = (cell, starts) => ({ ...cell, reps: cell.reps.map((rep, i) => ({ ...rep, startedAtMs: starts[i] })) })
  const sentence = (appStarts, untracedStarts, appRates = [380, 420]) => {
    const results = {
      workload: { scenarios: { read: { label: 'read' } } },
      targets: described(['app', 'app-untraced']),
      cells: [appStarts ? started(measuredCell('app', appRates), appStarts) : measuredCell('app', appRates)],
      targetCells: [untracedStarts ? started(measuredCell('app-untraced', [490, 510]), untracedStarts) : measuredCell('app-untraced', [490, 510])]
    }
    const [group] = targetsSummary(results).groups
    return costSentence(group, group.nodebenchCost)
  }
  // Interleaved pair by pair (app, untraced, untraced, app): judged from the pairs (cost-pairs.test.js).
  assert.match(sentence([1000, 4000], [2000, 3000]),
    /\(the median of 2 interleaved pairs, 420 to 591 µs\).*\. Noise alone sets 2 interleaved pairs' differences this far from zero one run in 2: --reps 6 or more tells it from the noise\.$/)
  // Interleaved, a repetition more of the app's: no pairs, the two samples' judgement.
  assert.match(sentence([1000, 4000, 5000], [2000, 3000], [380, 400, 420]),
    /\. Noise alone parts 3 and 2 interleaved repetitions so one run in 5: --reps 4 or more tells it from the noise\.$/)
  assert.match(sentence([1000, 2000], [3000, 4000]),
    /\. Noise alone parts 2 and 2 repetitions so one run in 3: --reps 4 or more tells it from the noise\. One server's ran after the other's: a machine whose load drifted meanwhile adds its drift to the cost\.$/)
  // Results written before repetitions had their start: nothing said of their order.
  assert.match(sentence(null, null), /\. Noise alone parts 2 and 2 repetitions so one run in 3: --reps 4 or more tells it from the noise\.$/)
})
