'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { CODES, codes, NodebenchError, NodebenchTypeError, isNodebenchError } = require('..')

const REPO = path.join(__dirname, '..', '..', '..')
// The code of every package: what throws at users (tests, fixtures and dependencies aside).
const CODE_DIRS = ['middleware', 'collector', 'packages/breakdown', 'packages/cli', 'packages/services', 'examples/mongo-admin']

function sourceFiles (dir) {
  const files = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'test', 'benchmarks', 'fixtures'].includes(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(full))
    else if (entry.name.endsWith('.js')) files.push(full)
  }
  return files
}

test('every code thrown in the repository is in the table, and every code in the table is thrown', () => {
  const used = new Map()
  for (const dir of CODE_DIRS) {
    for (const file of sourceFiles(path.join(REPO, dir))) {
      for (const [code] of fs.readFileSync(file, 'utf8').matchAll(/NB_ERR_[A-Z][A-Z_]*[A-Z]/g)) {
        if (!used.has(code)) used.set(code, path.relative(REPO, file))
      }
    }
  }
  const missing = [...used].filter(([code]) => !Object.hasOwn(CODES, code)).map(([code, file]) => `${code} (${file})`)
  assert.deepEqual(missing, [], 'codes written in the code but not in @nodebench/errors')
  const unused = Object.keys(CODES).filter((code) => !used.has(code))
  assert.deepEqual(unused, [], 'codes in the table that nothing uses')
  for (const [code, meaning] of Object.entries(CODES)) {
    assert.equal(codes[code], code)
    assert.match(meaning, /\S/, `${code} says what it means`)
  }
})

test('one error type: a code from the table, the message as given, instanceof whichever class or copy made it', () => {
  const err = new NodebenchError(codes.NB_ERR_USAGE, 'bench: --reps must be a whole number')
  assert.deepEqual([err.name, err.code, err.message], ['NodebenchError', 'NB_ERR_USAGE', 'bench: --reps must be a whole number'])
  assert.ok(err instanceof Error)
  assert.ok(err instanceof NodebenchError)
  const typeError = new NodebenchTypeError(codes.NB_ERR_SAMPLE_RATIO, 'nodebenchTrace: option "sampleRatio" must be a number from 0 to 1; received 2')
  assert.ok(typeError instanceof TypeError)
  assert.ok(typeError instanceof NodebenchError, 'a NodebenchTypeError is a nodebench error too')
  assert.ok(isNodebenchError(typeError))
  assert.equal(new NodebenchError(codes.NB_ERR_FLAME, 'x', { cause: typeError }).cause, typeError)

  // Another installed copy of this package (another version in node_modules) makes errors this one knows.
  const copy = path.join(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'nodebench-errors-')), 'errors.js')
  fs.copyFileSync(path.join(__dirname, '..', 'lib', 'errors.js'), copy)
  const other = require(copy)
  assert.ok(new other.NodebenchError(codes.NB_ERR_USAGE, 'x') instanceof NodebenchError)
  fs.rmSync(path.dirname(copy), { recursive: true, force: true })

  for (const value of [new Error('plain'), Object.assign(new Error('coded elsewhere'), { code: 'NB_ERR_USAGE' }), null, 'NB_ERR_USAGE']) {
    assert.equal(value instanceof NodebenchError, false, String(value))
  }
  assert.throws(() => new NodebenchError('NB_ERR_NOT_A_CODE', 'x'), /^TypeError: not a nodebench error code: NB_ERR_NOT_A_CODE/)
})
