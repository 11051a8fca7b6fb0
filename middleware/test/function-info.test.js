'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { InspectorBatch, nameFromSource, anonymousName } = require('../lib/function-info')

function describeAll (...fns) {
  const batch = new InspectorBatch()
  try {
    return fns.map((fn) => batch.describe(fn))
  } finally {
    batch.close()
  }
}

test('an anonymous function assigned to a property is named after the property', () => {
  const exp = {}
  exp.viewDocument = function (req, res) {}
  exp.addDocument = async function (req, res) {}
  exp.deleteDocument = async (req, res) => {}
  exp['view-collection'] = function (req, res) {}
  const [view, add, del, keyed] = describeAll(exp.viewDocument, exp.addDocument, exp.deleteDocument, exp['view-collection'])
  assert.equal(exp.viewDocument.name, '')
  assert.equal(view.name, 'viewDocument')
  assert.equal(add.name, 'addDocument')
  assert.equal(del.name, 'deleteDocument')
  assert.equal(keyed.name, 'view-collection')
})

test('file and line are the definition site', () => {
  const here = new Error().stack.split('\n')[1].match(/:(\d+):\d+\)?$/)[1]
  const defined = function () {}; const line = Number(here) + 1
  const [info] = describeAll(defined)
  assert.equal(info.file, __filename)
  assert.equal(info.line, line)
  assert.equal(info.name, 'defined')
})

test('a function with nothing to go by stays anonymous, shown with its file and line', () => {
  const fns = [function () {}]
  const [info] = describeAll(fns[0])
  assert.equal(info.name, null)
  assert.equal(anonymousName(info), `<anonymous> ${path.relative(process.cwd(), __filename)}:${info.line}`)
})

test('the closure variable of a function can be read (how mounted sub-apps are found)', () => {
  function mount (fn) {
    return function mounted_app (req, res, next) { fn.handle(req, res, next) }
  }
  const subApp = { handle () {} }
  const batch = new InspectorBatch()
  try {
    assert.equal(batch.closureValue(mount(subApp), 'fn'), subApp)
    assert.equal(batch.closureValue(mount(subApp), 'missing'), undefined)
  } finally {
    batch.close()
  }
  assert.equal(globalThis.__nodebench_inspect_target__, undefined)
})

test('results are cached per function', () => {
  const fn = function () {}
  const [first] = describeAll(fn)
  const [second] = describeAll(fn)
  assert.equal(first, second)
})

test('nameFromSource reads the assignment target in front of the function', () => {
  const cases = [
    ['exp.viewDocument = function ', 'viewDocument'],
    ['  exports.addDocument = async function ', 'addDocument'],
    ['const handlers = { viewCollection: ', 'viewCollection'],
    ['routes["view-db"] = ', 'view-db'],
    ['let render = async ', 'render'],
    ['app.get("/x", ', null],
    ['return ', null]
  ]
  for (const [before, expected] of cases) {
    assert.equal(nameFromSource([before + '(req, res) {}'], 0, before.length, '/app/x.js'), expected, before)
  }
  assert.equal(nameFromSource(['module.exports = function ('], 0, 'module.exports = function '.length, '/app/logger.js'),
    'logger.js (module.exports)')
  // The assignment on the line above.
  assert.equal(nameFromSource(['exp.viewDocument =', '  function (req, res) {}'], 1, 11, null), 'viewDocument')
})
