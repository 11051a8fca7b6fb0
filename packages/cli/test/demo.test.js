'use strict'

// `nodebench demo` end to end, as `npm run demo` runs it, but short: the example app on a real FerretDB in
// a temporary directory (through the embedded-database path, with temporary state and data dirs, so the
// developer's own database is neither used nor touched).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArguments } = require('..')
const { SCENARIOS } = require('../lib/commands/demo')

const BIN = path.join(__dirname, '..', 'bin', 'nodebench.js')

test('parseArguments: demo takes --seconds (or DEMO_SECONDS) and --out; anything else is a usage error', () => {
  assert.deepEqual(parseArguments(['demo', '--seconds', '2', '--out', 'x'], {}), { command: 'demo', seconds: 2, outDir: 'x' })
  assert.equal(parseArguments(['demo'], { DEMO_SECONDS: '5' }).seconds, 5)
  assert.equal(parseArguments(['demo'], {}).seconds, 3)
  assert.match(parseArguments(['demo'], {}).outDir, /^runs[/\\]demo-\d{4}-/)
  assert.throws(() => parseArguments(['demo', '--seconds', '0'], {}), /--seconds must be a whole number from 1 to 600; received '0'/)
  assert.throws(() => parseArguments(['demo'], { DEMO_SECONDS: 'abc' }), /received 'abc'/)
  assert.throws(() => parseArguments(['demo', '--fast'], {}), /demo: Unknown option '--fast'/)
})

test('nodebench demo drives the six studied operations and writes their breakdown', { timeout: 180_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-demo-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const outDir = path.join(dir, 'out')
  const env = {
    ...process.env,
    MONGODB_URI: '',
    NODEBENCH_STATE_DIR: path.join(dir, 'state'),
    NODEBENCH_DATA_DIR: path.join(dir, 'data')
  }
  delete env.MONGODB_URI
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'demo', '--seconds', '1', '--out', outDir], { env, timeout: 170_000 },
      (error, out, err) => resolve({ code: error ? error.code : 0, stdout: out, stderr: err }))
  })
  assert.equal(code, 0, stderr)
  assert.match(stderr, /\[6\/6\] document write \(json\)/)
  assert.match(stdout, /The function that owns each operation's time/)

  const snapshot = JSON.parse(fs.readFileSync(path.join(outDir, 'breakdown.json'), 'utf8'))
  assert.equal(snapshot.schema, 1)
  assert.equal(snapshot.service, 'mongo-admin')
  for (const scenario of SCENARIOS) {
    const operation = snapshot.operations.find((o) => o.method === scenario.method && o.route === scenario.route && o.format === scenario.format)
    assert.ok(operation && operation.count > 0, `${scenario.operation} (${scenario.format}) was measured`)
    assert.ok(operation.segments.some((s) => s.name === scenario.dominant), `${scenario.dominant} in ${scenario.route}`)
    assert.match(stdout, new RegExp(`${scenario.operation} \\(${scenario.format}\\)\\s+${scenario.dominant}\\s+\\d+\\.\\d\\d%`))
  }
  assert.match(fs.readFileSync(path.join(outDir, 'breakdown.html'), 'utf8'), /<table/)
  assert.match(fs.readFileSync(path.join(outDir, 'breakdown.md'), 'utf8'), /\| segment/)
  // The embedded database was stopped and unregistered at the end.
  assert.deepEqual(fs.readdirSync(path.join(dir, 'state')).filter((f) => f.endsWith('.json')), [])
})
