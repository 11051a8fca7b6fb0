'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { temporaryDir } = require('./support')
const { slowestTable, reporterArguments } = require('./file-timings')

/** Runs `node --test` in `cwd` as `npm test` does; resolves to `{ code, stdout, stderr }`. */
function nodeTest (cwd, args, env) {
  return new Promise((resolve) => {
    const { NODE_TEST_CONTEXT, ...parentEnv } = process.env
    execFile(process.execPath, ['--test', '--test-concurrency=1', ...args], { cwd, env: { ...parentEnv, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr })
    })
  })
}

test('node\'s own reporter is the one it picks unnamed: TAP off a terminal before Node.js 23, spec on one and after', () => {
  assert.equal(reporterArguments({ version: '20.19.0', terminal: undefined })[0], '--test-reporter=tap')
  assert.equal(reporterArguments({ version: '22.12.0', terminal: false })[0], '--test-reporter=tap')
  assert.equal(reporterArguments({ version: '22.12.0', terminal: true })[0], '--test-reporter=spec')
  assert.equal(reporterArguments({ version: '24.0.0', terminal: false })[0], '--test-reporter=spec')
})

test('the slowest files, longest first, at most the number asked, a failed one marked', () => {
  const timings = [{ file: 'a.test.js', seconds: 1.04, passed: true }, { file: 'b.test.js', seconds: 12.5, passed: false },
    { file: 'c.test.js', seconds: 3, passed: true }]
  assert.equal(slowestTable(timings, { shown: 2, node: 'v20.19.0' }),
    'nodebench tests: the 2 slowest of 3 files under Node.js v20.19.0 (15.5 of 16.5 s in all):\n' +
    '     12.5 s  b.test.js  (failed)\n' +
    '      3.0 s  c.test.js\n')
})

test('a run of real files: node\'s closing lines last on stdout as before, each file\'s time on stderr and in the JSON file', { timeout: 120_000 }, async (t) => {
  const dir = temporaryDir(t)
  fs.mkdirSync(path.join(dir, 'sub'))
  fs.writeFileSync(path.join(dir, 'sub', 'slow.test.js'),
    "require('node:test')('waits', () => new Promise((resolve) => setTimeout(resolve, 1500)))\n")
  fs.writeFileSync(path.join(dir, 'fast.test.js'), "const { describe, it } = require('node:test')\ndescribe('d', () => { it('a', () => {}); it('b', () => {}) })\n")
  const json = path.join(dir, 'timings.json')
  const run = await nodeTest(dir, [...reporterArguments({ terminal: false }), 'fast.test.js', path.join('sub', 'slow.test.js')],
    { NODEBENCH_TEST_TIMINGS: json })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^(# |\u2139 )pass 3\n(# |\u2139 )fail 0\n(# |\u2139 )cancelled 0\n(# |\u2139 )skipped 0\n(# |\u2139 )todo 0\n(# |\u2139 )duration_ms [\d.]+\n$/m)
  assert.match(run.stderr, /^nodebench tests: the 2 slowest of 2 files under Node\.js v[\d.]+ \([\d.]+ of [\d.]+ s in all\):\n +[\d.]+ s {2}sub\/slow\.test\.js\n +[\d.]+ s {2}fast\.test\.js\n$/)
  const { node, files } = JSON.parse(fs.readFileSync(json, 'utf8'))
  assert.equal(node, process.version)
  assert.deepEqual(files.map(({ file, passed }) => [file, passed]), [['fast.test.js', true], [path.join('sub', 'slow.test.js'), true]])
  assert.ok(files[1].seconds >= 1.5, `the slow file's time holds its wait: ${files[1].seconds} s`)
})
