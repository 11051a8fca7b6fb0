'use strict'

// benchmarks/allocation.js counts bytes, not time: what these runs assert holds on any machine (a segment's `next`
// is allocated whatever the load), and a run whose every window saw a collection says so instead of a figure.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { parseArguments } = require('../benchmarks/allocation')

const SCRIPT = path.join(__dirname, '..', 'benchmarks', 'allocation.js')

function runAllocation (args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 180_000 }, (err, stdout, stderr) => {
      if (err) return reject(Object.assign(new Error(`allocation.js failed: ${err.message}\n${stderr}`), { code: err.code, stderr }))
      resolve(JSON.parse(stdout))
    })
  })
}

test('allocation.js: bad options refused in one line, exit 2', async () => {
  assert.throws(() => parseArguments(['--app', 'nest']), /--app must be one of segment-path, bench, real; received nest/)
  assert.throws(() => parseArguments(['--semi-space', '512']), /--semi-space must be a whole number from 1 to 256/)
  assert.throws(() => parseArguments(['--layer']), /--layer needs an app served over HTTP/)
  assert.equal(parseArguments(['--app', 'real', '--layer', '--sites', '5']).sites, 5)
  const refused = await runAllocation(['--requests', '0']).then(() => null, (err) => err)
  assert.equal(refused.code, 2)
  assert.equal(refused.stderr.trim().split('\n').length, 1)
})

test('allocation.js: the segment path\'s bytes, bare and timed; each timed segment allocates at least its `next`', { timeout: 180_000 }, async () => {
  const report = await runAllocation(['--app', 'segment-path', '--requests', '3000', '--warmup', '3000', '--windows', '3', '--semi-space', '32', '--json'])
  assert.equal(report.segments, 11)
  assert.ok(report.bare.young !== null && report.nodebench.young !== null, 'a window without a collection in each variant')
  assert.ok(report.bare.young.median > 0)
  // A segment's `next` and its context: more than 40 bytes on any Node.js.
  assert.ok(report.addedPerSegment.young > 40, `added ${report.addedPerSegment.young} bytes a segment`)
  assert.ok(report.addedPerRequest.young < 20_000, `added ${report.addedPerRequest.young} bytes a request`)
})

test('allocation.js: the benchmark app over HTTP, bare, timed and with one more layer, only the server counted', { timeout: 180_000 }, async () => {
  const report = await runAllocation(['--app', 'bench', '--requests', '300', '--warmup', '300', '--windows', '3', '--layer', '--sites', '5', '--json'])
  assert.equal(report.segments, 11)
  assert.ok(report.nodebench.young.median > report.bare.young.median)
  assert.ok(report.oneMoreLayer.young.median > report.bare.young.median)
  assert.ok(report.sites.some(({ site }) => /middleware\/lib\/wrap-layer\.js/.test(site)), 'nodebench\'s own sites named')
})
