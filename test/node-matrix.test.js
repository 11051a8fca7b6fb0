'use strict'

// nodebench-test: once. The matrix runs on the first line's Node.js and fetches Node.js 24 itself: another line would test the same.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Writable } = require('node:stream')
const { parseArguments, filesToRun, environmentFor, engineWarnings, suiteCounts, main } = require('./node-matrix')

function collector () {
  let text = ''
  const stream = new Writable({ write (chunk, encoding, done) { text += chunk; done() } })
  return { stream, text: () => text }
}

test('versions and test files are told apart; anything else is a usage error', () => {
  assert.deepEqual(parseArguments(['22', '24.21.0', 'middleware/test/options.test.js']),
    { versions: ['22', '24.21.0'], files: ['middleware/test/options.test.js'], all: false })
  assert.deepEqual(parseArguments(['22', '--all']), { versions: ['22'], files: [], all: true })
  assert.throws(() => parseArguments(['22', '--all', 'test/lint.test.js']), (err) => err.usage && /^--all runs every file; name test files or give --all, not both/.test(err.message))
  assert.throws(() => parseArguments([]), (err) => err.usage && /^name at least one Node\.js version; usage: npm run test:node -- /.test(err.message))
  assert.throws(() => parseArguments(['latest']), (err) => err.usage && /^"latest" is neither a Node\.js version .* nor a test file/.test(err.message))
})

test('bad arguments exit 2 with one line on stderr, before anything is fetched', async () => {
  const stdout = collector()
  const stderr = collector()
  assert.equal(await main(['v24'], { stdout: stdout.stream, stderr: stderr.stream }), 2)
  assert.equal(stdout.text(), '')
  assert.match(stderr.text(), /^nodebench tests: "v24" is neither a Node\.js version .*\n$/)
})

test('without named files, the files tagged to run once are left out, each with why; named files and --all run them', () => {
  const listed = ['test/engines.test.js', 'test/prepare.test.js', 'packages/services/test/nginx.test.js']
  const { files, skipped } = filesToRun({ files: [], all: false }, listed)
  assert.deepEqual(files, ['test/engines.test.js', 'test/prepare.test.js'])
  assert.deepEqual(skipped.map(({ file }) => file), ['packages/services/test/nginx.test.js'])
  assert.match(skipped[0].reason, /Node\.js version/)
  assert.deepEqual(filesToRun({ files: [], all: true }, listed), { files: [], skipped: [] }, 'run.js runs its whole list')
  assert.deepEqual(filesToRun({ files: ['packages/services/test/nginx.test.js'], all: false }, listed),
    { files: ['packages/services/test/nginx.test.js'], skipped: [] })
})

test('the version under test comes first on PATH, in a test run of its own', () => {
  const env = environmentFor('/cache/node/24.21.0/bin/node', { PATH: '/usr/bin', NODE_TEST_CONTEXT: 'child-v8' })
  assert.equal(env.PATH, `/cache/node/24.21.0/bin${path.delimiter}/usr/bin`)
  assert.equal('NODE_TEST_CONTEXT' in env, false, 'the suite under test is a run of its own, not a child of this one')
})

test('engine warnings and the suite totals are read from the output', () => {
  const npmOutput = 'npm warn EBADENGINE Unsupported engine {\nnpm warn EBADENGINE   package: \'x@1.0.0\',\nadded 1 package\n'
  assert.equal(engineWarnings(npmOutput).length, 2)
  assert.deepEqual(engineWarnings('added 1 package\n'), [])
  const tap = '# Subtest: a\nok 1 - a\n  # pass 9\n# tests 262\n# suites 4\n# pass 261\n# fail 1\n'
  assert.deepEqual(suiteCounts(tap), { tests: 262, pass: 261, fail: 1 })
  const spec = '\u2714 a (1ms)\n\u2139 tests 262\n\u2139 suites 4\n\u2139 pass 262\n\u2139 fail 0\n'
  assert.deepEqual(suiteCounts(spec), { tests: 262, pass: 262, fail: 0 })
})

test('a version runs the engine check and the named test files under that Node.js', { timeout: 180_000 }, async () => {
  const stdout = collector()
  const stderr = collector()
  const code = await main(['24', 'test/engines.test.js'], { stdout: stdout.stream, stderr: stderr.stream })
  assert.equal(code, 0, stderr.text())
  assert.match(stderr.text(), /nodebench tests: Node\.js 24\.\d+\.\d+: npm ci --dry-run \(engine check\)\.\.\./)
  assert.match(stderr.text(), /nodebench tests: Node\.js 24\.\d+\.\d+: ok: 3 of 3 tests passed \(\d+ s\)\n$/)
  // The suite's own output went to stdout, and it ran under Node.js 24 (engines.test.js checks the running version).
  assert.match(stdout.text(), /^(# |\u2139 )pass 3$/m)
})
