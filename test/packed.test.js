'use strict'

// nodebench-test: once. The tarballs npm packs, shared by the tests of a run: the Node.js version does not change what this tests.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { temporaryDir } = require('./support')
const { packedPackages } = require('./packed')
const { packPublished, PUBLISHED } = require('../tools/pack')

test('the published packages are packed once per run: a later test gets the same tarballs, untouched', { timeout: 180_000 }, (t) => {
  const runDir = temporaryDir(t, 'nodebench-test-run-')
  let packs = 0
  const pack = (destination) => {
    packs++
    return packPublished(destination)
  }
  const first = packedPackages({ runDir, pack })
  assert.equal(first.length, PUBLISHED.length)
  for (const { file } of first) assert.ok(file.startsWith(path.join(runDir, 'packed') + path.sep) && fs.existsSync(file), file)
  const packedAt = first.map(({ file }) => fs.statSync(file).mtimeMs)
  const again = packedPackages({ runDir, pack })
  assert.equal(packs, 1, 'packed once')
  assert.deepEqual(again, first)
  assert.deepEqual(again.map(({ file }) => fs.statSync(file).mtimeMs), packedAt, 'the tarballs untouched')
  assert.deepEqual(fs.readdirSync(runDir), ['packed'], 'no packing folder left behind')
})
