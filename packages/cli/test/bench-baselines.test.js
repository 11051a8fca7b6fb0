'use strict'

// nodebench-test: once. Apache and PHP are Debian's, the baseline targets and their ladder bench's: the Node.js version does not change what this tests.
// bench with servers beside the app (kernel/targets.js), run as users run it: the shop app traced and untraced,
// nodebench's bare node:http and Express servers answering the app's bytes and Apache httpd with PHP on
// loopback, each cell's processes sampled, the ladder from bare node:http to the traced app in the report;
// Paliwal's study at a small scale (examples/baseline); and targets that cannot start or answer failing their
// own cells only, each in one coded line. The tests with Apache are skipped, saying why, only where Debian's
// apache2 and libapache2-mod-php cannot be installed.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ensureApachePhp } = require('@nodebench/services')
const { AB_PERCENTILES } = require('../lib/kernel/load-observer')
const { temporaryDir, runCli } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')
const BASELINES = path.join(__dirname, 'fixtures', 'baselines')
const BASELINE_EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'baseline')
const SMALL = ['--processes', '1', '--reps', '1', '--warmup', '20']

const apacheUnavailable = ensureApachePhp().then(() => null, (err) => {
  if (err.code !== 'NB_ERR_APACHE_MISSING') throw err
  return `Debian's apache2 and libapache2-mod-php cannot be installed here: ${err.message.split('\n')[0]}`
})

function readResults (out) {
  return JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
}

function assertPercentiles (table, where) {
  assert.deepEqual(Object.keys(table), AB_PERCENTILES.map(String), where)
  const values = Object.values(table)
  assert.ok(values.every((value, i) => value > 0 && (i === 0 || value >= values[i - 1])), `${where}: ${JSON.stringify(table)}`)
}

test('--baseline-targets: the app traced and untraced, bare node:http and Express serving its bytes, Apache with PHP; the ladder and each process in the report', { timeout: 600_000 }, async (t) => {
  const withoutApache = await apacheUnavailable
  if (withoutApache) t.diagnostic(`without apache-php: ${withoutApache}`)
  const out = temporaryDir(t)
  const kinds = withoutApache ? 'node,express' : 'node,express,apache-php'
  const run = await runCli(['bench', '--cmd', `node ${path.join(SHOP, 'server.js')} --port {port}`, '--workload', path.join(SHOP, 'nodebench.workload.js'),
    '--scenarios', 'item-read', '--amount', '400', '--connections', '4', ...SMALL, '--baseline-targets', kinds, '--out', out])
  assert.equal(run.code, 0, run.stderr)
  const results = readResults(out)
  const names = ['app', 'app-untraced', 'express', 'node', ...(withoutApache ? [] : ['apache-php'])]
  assert.deepEqual(results.config.targets, names)
  assert.deepEqual(results.cells.map((c) => c.target), ['app'])
  assert.deepEqual(results.targetCells.map((c) => [c.target, c.status]), names.slice(1).map((name) => [name, 'ok']))
  const [app] = results.cells
  const cell = (name) => results.targetCells.find((c) => c.target === name)
  assert.ok(app.breakdown.operations.length > 0)
  assert.equal(cell('app-untraced').breakdown, null)
  assert.equal(cell('app-untraced').tracedAnyway, false)
  for (const name of names) {
    const measured = name === 'app' ? app : cell(name)
    assert.equal(measured.requests, 400, name)
    assertPercentiles(measured.latencyPercentilesMs, name)
    assert.equal(measured.bytesPerResponse, app.bytesPerResponse, `${name} answers the app's bytes`)
    const roles = measured.resources.roles.map((role) => role.role)
    assert.ok(roles.includes('nodebench (load generator)'), `${name}: ${roles}`)
    assert.ok(measured.resources.processes.every((process) => process.samples >= 1 && process.rssBytes.max > 0), name)
  }
  assert.ok(app.resources.roles.some((role) => role.role === 'app'), JSON.stringify(app.resources.roles))
  assert.ok(cell('node').resources.roles.some((role) => role.role === 'node:http'))
  const target = (name) => results.targets.find((described) => described.name === name)
  assert.deepEqual(target('node').server.reply, { from: 'app', status: 200, contentType: 'application/json; charset=utf-8', bytes: app.bytesPerResponse })
  assert.match(target('express').server.express.version, /^\d+\.\d+\.\d+$/)
  if (!withoutApache) {
    assert.equal(cell('apache-php').processes, null)
    assert.match(target('apache-php').server.apache, /^2\.\d+\.\d+$/)
    assert.deepEqual(cell('apache-php').resources.roles.slice(0, 2).map((role) => role.role), ['apache2 parent', 'apache2 child'])
    assert.ok(cell('apache-php').resources.roles[1].processes >= 5, 'the prefork pool')
  }
  assert.match(run.stdout, /item read \(json\), 1 process: This machine serves bare node:http [\d,.]+ req\/s, Express [\d,.]+, your app untraced [\d,.]+, traced [\d,.]+/)
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /## Servers side by side/)
  assert.match(markdown, /\| bare node:http \| [\d,.]+ \| - \| [\d,.]+ \| - \| - \| - \|/)
  assert.match(markdown, /app-untraced \(the app without nodebench\), express \(bare Express\)(.*) run without nodebench: no breakdown/)
  assert.match(markdown, /## CPU and memory by process/)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  for (const id of ['targets', 'processes', 'breakdowns']) assert.match(html, new RegExp(`<section id="${id}">`))
  assert.match(html, /<figure class="chart" data-kind="targets"/)
  assert.match(html, /<figure class="chart" data-kind="processes"/)
})

test('an app that ignores NODEBENCH=off: its "untraced" cells are said to have run traced, and no ladder step is made of them', { timeout: 300_000 }, async (t) => {
  const out = temporaryDir(t)
  const run = await runCli(['bench', '--cmd', `NODEBENCH=on node ${path.join(SHOP, 'server.js')} --port {port}`, '--workload', path.join(SHOP, 'nodebench.workload.js'),
    '--scenarios', 'item-read', '--amount', '100', '--connections', '2', ...SMALL, '--baseline-targets', 'app-untraced', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  const results = readResults(out)
  assert.equal(results.targetCells[0].tracedAnyway, true)
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /The app without nodebench still answered \/\\_\\_nodebench \(item-read, json\): it ignores NODEBENCH=off, so its "untraced" cells ran traced\./)
  assert.doesNotMatch(markdown, /From bare Node\.js to the traced app/)
})

test('targets that cannot start or answer fail their own cells, each in one coded line; the others are measured and written', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t)
  const fakeApache = path.join(dir, 'apache2')
  fs.writeFileSync(fakeApache, `#!/bin/sh
case "$*" in
  *-t*) echo "AH00526: Syntax error on line 3 of $4:" >&2; echo "Invalid command 'Frobnicate', perhaps misspelled" >&2; exit 1 ;;
esac
exit 1
`, { mode: 0o755 })
  const out = path.join(dir, 'out')
  const run = await runCli(['bench', '--app', BASELINES, ...SMALL, '--out', out], { env: { ...process.env, APACHE_PATH: fakeApache } })
  assert.equal(run.code, 1, run.stderr)
  const results = readResults(out)
  assert.deepEqual(results.cells, [])
  const byName = Object.fromEntries(results.targetCells.map((cell) => [cell.target, cell]))
  assert.deepEqual(Object.keys(byName), ['express', 'exits', 'silent', 'apache-php'], 'the run order: express, node, apache-php')
  assert.equal(byName.exits.failureCode, 'NB_ERR_TARGET_START')
  assert.match(byName.exits.failure, /^target 'exits' \(a server that exits\): exited \(code 3\) before listening: \| boom: no port for me$/)
  assert.equal(byName.silent.failureCode, 'NB_ERR_TARGET_START')
  assert.match(byName.silent.failure, /^target 'silent' \(a server that answers nothing\) does not answer at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED$/)
  const apacheMissing = await apacheUnavailable
  if (apacheMissing) {
    assert.equal(byName['apache-php'].failureCode, 'NB_ERR_APACHE_MISSING')
  } else {
    assert.equal(byName['apache-php'].failureCode, 'NB_ERR_APACHE_START')
    assert.match(byName['apache-php'].failure, /^Apache httpd: its configuration .*apache2\.conf does not pass `apache2 -t`, which printed: \| AH00526: Syntax error on line 3 of .*: \| Invalid command 'Frobnicate', perhaps misspelled$/)
  }
  assert.equal(byName.express.status, 'ok')
  assert.equal(byName.express.requests, 200)
  assert.equal(results.targets.find((described) => described.name === 'express').server.reply.from, 'fixed')
  const failedLines = run.stderr.split('\n').filter((line) => / failed: /.test(line))
  assert.equal(failedLines.length, 3, run.stderr)
  for (const line of failedLines) assert.match(line, /^nodebench bench: \[\d\/4\] failed: NB_ERR_(TARGET_START|APACHE_START|APACHE_MISSING): /)
  assert.match(run.stderr, /nodebench: 3 cells failed \(marked in the report\): NB_ERR_TARGET_START: target 'exits'/)
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /\| exits \| failed: NB\\_ERR\\_TARGET\\_START: target 'exits'/)
  assert.match(markdown, /\| express \| [\d,.]+ \|/)
})

test('Paliwal\'s study at a small scale: the minimal Node.js server and the PHP page under Apache, Table 2 beside the run', { timeout: 600_000 }, async (t) => {
  const skip = await apacheUnavailable
  if (skip) return t.skip(skip)
  const out = temporaryDir(t)
  const run = await runCli(['bench', '--app', BASELINE_EXAMPLE, ...SMALL, '--amount', '2000', '--connections', '200', '--out', out])
  assert.equal(run.code, 0, run.stderr)
  const results = readResults(out)
  assert.deepEqual(results.targetCells.map((cell) => [cell.target, cell.status, cell.requests + Object.values(cell.reps[0].failures).reduce((a, b) => a + b, 0) >= 2000]),
    [['node', 'ok', true], ['apache-php', 'ok', true]])
  for (const cell of results.targetCells) {
    assert.equal(cell.bytesPerResponse, 'Hello World'.length)
    assert.ok(cell.listenQueue === null || Number.isInteger(cell.listenQueue.overflows))
  }
  assert.ok(results.openFiles.enough, results.openFiles.note)
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /^servers node, apache-php · /m)
  assert.match(markdown, /### Table 2 beside this run/)
  assert.match(markdown, /\| requests per second \| 4,725 \| [\d,.]+ \| 823 \| [\d,.]+ \|/)
  assert.match(markdown, /\| 98% within \(ms\) \| 3030\.0 \| [\d.]+ \| - \| [\d.]+ \|/)
  assert.match(markdown, /apache2 child/)
  assert.doesNotMatch(markdown, /## What this shows|## Cells/)
  assert.match(run.stdout, /^node +[\d,]+ +[\d.]+ +\d+/m)
})
