'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const vm = require('node:vm')
const {
  FunctionNamer, layerInfo, paramInfo, containerInfo, hasPendingNames, resolveNames, nameFromSource, anonymousName, packageOf, libraryLabel
} = require('../lib/function-names')
const { FunctionLookup } = require('../lib/function-lookup')
const { factoryParameters, splitParameters } = require('../lib/closure-names')

function describeAll (...fns) {
  const lookup = new FunctionLookup()
  try {
    const namer = new FunctionNamer(lookup)
    return fns.map((fn) => namer.describe(fn))
  } finally {
    lookup.close()
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

test('code whose file is not its source (compiled under a file name, eval\'d) is named from the script V8 holds', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-names-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  // What a transpiler does: the file on disk says one thing, the script V8 runs another.
  const file = path.join(dir, 'routes.ts')
  fs.writeFileSync(file, 'export const routes = {}\nroutes.listUsers = (req: Request) => {}\n')
  const transpiled = vm.runInThisContext('const routes = {}\nroutes.listUsers = function (req) {}\nroutes.listUsers', { filename: file })
  const evaluated = vm.runInThisContext('const api = {}\napi.showItem = function (req, res) {}\napi.showItem')
  const [fromTranspiled, fromEval] = describeAll(transpiled, evaluated)
  const where = ({ name, file, line }) => ({ name, file, line })
  assert.deepEqual(where(fromTranspiled), { name: 'listUsers', file, line: 2 })
  assert.deepEqual(where(fromEval), { name: 'showItem', file: 'evalmachine.<anonymous>', line: 2 })
})

test('the closure variable of a function can be read (how mounted sub-apps are found)', () => {
  function mount (fn) {
    // eslint-disable-next-line camelcase -- the name Express gives a mounted sub-app's function (application.js)
    return function mounted_app (req, res, next) { fn.handle(req, res, next) }
  }
  const subApp = { handle () {} }
  const lookup = new FunctionLookup()
  try {
    assert.equal(lookup.closureValue(mount(subApp), 'fn'), subApp)
    assert.equal(lookup.closureValue(mount(subApp), 'missing'), undefined)
  } finally {
    lookup.close()
  }
  assert.equal(globalThis.__nodebench_inspect_target__, undefined)
})

test('a layer is named when resolveNames() runs, not when it is created; a function is looked up once', () => {
  const exp = {}
  exp.loadDocument = function (req, res, next) {}
  const info = layerInfo('middleware', exp.loadDocument)
  const param = paramInfo(function (req, res, next, id) {}, 'document')
  exp.document = function (req, res, next, id) {}
  const sameName = paramInfo(exp.document, 'document')
  const named = paramInfo(function findDocument (req, res, next, id) {}, 'document')
  assert.equal(hasPendingNames(), true)
  assert.deepEqual([info.name, info.file, info.line, info.key], [null, null, null, null])
  assert.equal(info.kind, 'middleware')
  resolveNames()
  assert.equal(hasPendingNames(), false)
  assert.equal(info.name, 'loadDocument')
  assert.equal(info.file, __filename)
  assert.equal(info.key, `middleware loadDocument ${__filename}:${info.line}`)
  assert.equal(info.fn, null, 'the function is not kept once named')
  assert.equal(param.name, 'document', 'a param callback is named after its parameter')
  assert.equal(param.key, `param document ${__filename}:${param.line}`)
  assert.equal(sameName.name, 'document', 'exp.document = function: the name is the parameter\'s')
  assert.equal(named.name, 'findDocument (:document)', 'a function with a name of its own keeps it, beside its parameter')

  const again = layerInfo('handler', exp.loadDocument)
  assert.equal(hasPendingNames(), false, 'a function named before needs no look-up')
  assert.equal(again.key, `handler loadDocument ${__filename}:${info.line}`)

  const router = containerInfo('router')
  assert.deepEqual([router.kind, router.name, router.key], ['router', 'router', 'router router'])
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

test("an app's requests use no inspector and name nothing; the first breakdown names every layer", async (t) => {
  const inspector = require('node:inspector')
  const express = require('express5')
  const { nodebenchTrace } = require('..')
  const { listen } = require('./helpers')
  resolveNames()
  const connect = inspector.Session.prototype.connect
  let sessions = 0
  inspector.Session.prototype.connect = function () {
    sessions++
    return connect.apply(this, arguments)
  }
  t.after(() => { inspector.Session.prototype.connect = connect })
  const trace = nodebenchTrace({ exporter: 'none' })
  const routes = {}
  routes.listItems = function (req, res) { res.json([]) }
  const app = express()
  app.use(trace)
  app.get('/items', routes.listItems)
  const { base, close } = await listen(app)
  try {
    for (let i = 0; i < 3; i++) await (await fetch(`${base}/items`)).text()
    assert.equal(sessions, 0, 'no inspector session while serving')
    assert.equal(hasPendingNames(), true, 'the layers wait to be named')
    const segment = trace.breakdown().operations[0].segments.find((s) => s.kind === 'handler')
    assert.equal(sessions, 1, 'one session, for the snapshot')
    assert.deepEqual([segment.name, segment.file], ['listItems', __filename])
    assert.equal(hasPendingNames(), false)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('an anonymous function from a package is named after its package; a bound method after its class', () => {
  assert.equal(packageOf('/app/node_modules/express-rate-limit/dist/index.cjs'), 'express-rate-limit')
  assert.equal(packageOf('/app/node_modules/@nestjs/platform-express/adapters/express-adapter.js'), '@nestjs/platform-express')
  assert.equal(packageOf('/app/node_modules/a/node_modules/b/index.js'), 'b')
  assert.equal(packageOf('/app/lib/routes.js'), null)
  assert.equal(anonymousName({ name: null, file: '/app/node_modules/express-rate-limit/dist/index.cjs', line: 881 }), 'express-rate-limit')
  class Limiter {
    handle (req, res, next) { next() }
  }
  const [bound] = describeAll(new Limiter().handle.bind(new Limiter()))
  assert.equal(bound.name, 'Limiter.handle')
  assert.equal(bound.className, 'Limiter')
  assert.equal(bound.file, __filename)
})

test("what a library says a middleware is: express-validator's chains by location and field", () => {
  const { body, param, query, check } = require('express-validator')
  assert.equal(libraryLabel(body('email').isEmail()), "body('email')")
  assert.equal(libraryLabel(param('id').isInt()), "param('id')")
  assert.equal(libraryLabel(query(['page', 'size']).isInt()), "query(['page', 'size'])")
  assert.equal(libraryLabel(check('token')), "check('token')")
  assert.equal(libraryLabel(function plain (req, res, next) {}), null)
})

test('wrappers and factories: what a closure keeps and who made it decide its name', () => {
  const wrap = (fn) => function wrapped (req, res, next) { return fn(req, res, next) }
  const limit = (max, options) => (req, res, next) => next(max > options.floor ? undefined : new Error('limit'))
  function setupRoutes (handlers) {
    const prefix = '/x'
    handlers.push((req, res, next) => { req.url = prefix + req.url; next() })
  }
  function makeThing (setup) {
    return function thing (req, res, next) { setup(); next() }
  }
  const handlers = []
  setupRoutes(handlers)
  const exp = {}
  exp.listThings = wrap(async function listAll (req, res) {})
  const [wrappedFn, limited, setUp, made, calling] = describeAll(
    exp.listThings, limit(5, { floor: 1 }), handlers[0], makeThing(function prepare () {}),
    (req, res, next) => { if (req.skip) return next(); helmet.frameguard({ action: 'deny' })(req, res, next) })
  // Named by the property the wrapper's product is assigned to, the wrapped function's name beside it; file and
  // line are the wrapped function's.
  assert.deepEqual([wrappedFn.name, wrappedFn.aliases], ['listThings', ['listAll']])
  assert.equal(wrappedFn.line, fs.readFileSync(__filename, 'utf8').split('\n').findIndex((l) => l.includes('exp.listThings = wrap(')) + 1)
  // A factory's arguments: short literals shown, an options object left out.
  assert.deepEqual([limited.name, limited.aliases], ['limit(5)', ['limit']])
  // A closure a setup function hands on is not its product; a function that calls what it keeps otherwise is no wrapper.
  assert.match(setUp.name || anonymousName(setUp), /^<anonymous> /)
  assert.deepEqual([made.name, made.aliases], ['thing', ['makeThing(prepare)', 'makeThing']])
  // An anonymous function that calls another middleware with its own (req, res, next): named after what it calls.
  assert.equal(calling.name, "helmet.frameguard({ action: 'deny' })")
})

const helmet = { frameguard: () => (req, res, next) => next() }

test('a factory\'s parameters are read from its declaration before the closure', () => {
  const source = 'const auth = (...requiredRights) => async (req, res, next) => {}\nfunction validate (schema, { strict } = {}) {\n  return (req) => schema\n}'
  assert.deepEqual(factoryParameters(source, source.indexOf('async'), 'auth'), [{ name: 'requiredRights', rest: true }])
  assert.equal(factoryParameters(source, source.lastIndexOf('(req)'), 'validate'), null)
  assert.deepEqual(splitParameters('a, b = 1, ...rest'), [{ name: 'a', rest: false }, { name: 'b', rest: false }, { name: 'rest', rest: true }])
  assert.equal(factoryParameters('const x = 1', 5, 'auth'), null)
})

test('a wrapper that keeps its product in a variable before returning it is still seen through', () => {
  function guard (fn) {
    const handler = (req, res, next) => fn(req, res, next)
    return handler
  }
  const routes = {}
  routes.showItem = guard(async function loadItem (req, res) {})
  const [shown] = describeAll(routes.showItem)
  assert.deepEqual([shown.name, shown.aliases], ['showItem', ['loadItem']])
})

test('a factory\'s argument that would change with the checkout (an absolute path) is not part of the name', () => {
  const serve = (root) => (req, res, next) => next(root === '' ? new Error('no root') : undefined)
  const [absolute, relative] = describeAll(serve(path.join(os.tmpdir(), 'public')), serve('public'))
  assert.equal(absolute.name, 'serve')
  assert.equal(relative.name, "serve('public')")
})

test('a wrapper that passes on its arguments object is seen through too', () => {
  function traced (fn) {
    return function tracedHandler (req, res) { return fn.apply(this, arguments) }
  }
  const [shown] = describeAll(traced(function showReport (req, res) {}))
  assert.deepEqual([shown.name, shown.aliases], ['showReport', []])
})
