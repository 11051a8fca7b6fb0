'use strict'

// Workload files (lib/workload.js): what a bad one is told, how requests are filled in, how a file is loaded (its
// syntax errors as V8 words them, ES modules), on every Node.js line. bench and flame measuring an app of its own
// with its workload are workload-runs.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { checkWorkload, loadWorkload, requestsOf, workloadFileOf } = require('../lib/kernel/workload')
const { temporaryDir } = require('../../../test/support')

const SHOP = path.join(__dirname, 'fixtures', 'shop')

const check = (source) => checkWorkload(source, { file: '/x/nodebench.workload.js', shown: 'nodebench.workload.js' })
const coded = (message) => (err) => err.code === 'NB_ERR_WORKLOAD' && message.test(err.message)

test('a workload gets its defaults, and a bad one a coded error naming the scenario and the field', () => {
  const workload = check({ scenarios: { home: { request: { path: '/' } } } })
  assert.deepEqual(workload.formats, ['default'])
  assert.equal(workload.name, 'x')
  const home = workload.scenarios.home
  assert.deepEqual([home.label, home.connections, home.amount, home.quickAmount, home.dominant], ['home', 10, 1000, 100, null])
  assert.deepEqual(home.requests.default, {
    where: 'request', method: 'GET', paths: ['/'], headers: {}, body: null, status: 200, capture: null, setupRequest: null, placeholders: [], bodyEncoding: null, before: []
  })
  assert.equal(home.session, null)
  assert.deepEqual([home.formats, workload.defaultScenarios], [['default'], ['home']])
  const partial = check({
    formats: ['html', 'json'],
    defaultScenarios: ['page'],
    scenarios: { page: { request: { path: '/' } }, api: { formats: ['json'], requests: { json: { path: '/api' } } } }
  })
  assert.deepEqual([partial.scenarios.api.formats, Object.keys(partial.scenarios.api.requests), partial.defaultScenarios], [['json'], ['json'], ['page']])

  for (const [source, message] of [
    [[], /^workload nodebench\.workload\.js: expected an object of scenarios and options; received \[\]$/],
    [{ scenarios: {}, extra: 1 }, /unknown key 'extra'; expected one of name, description, formats/],
    [{ scenarios: {} }, /scenarios must be an object of named scenarios; received \{\}/],
    [{ scenarios: { 'Home Page': { request: { path: '/' } } } }, /scenario name 'Home Page' must be lower-case/],
    [{ scenarios: { home: { request: { path: '/' }, conections: 5 } } }, /scenario 'home': unknown key 'conections'; expected one of label, request/],
    [{ scenarios: { home: {} } }, /scenario 'home': give request \(the same for every format\) or requests \(one per format\)/],
    [{ scenarios: { home: { request: {} } } }, /scenario 'home': request\.path must be a path starting with '\/' or a list of them; received nothing/],
    [{ scenarios: { home: { request: { path: ['/a', 'b'] } } } }, /scenario 'home': request\.path must be a path starting with '\/'/],
    [{ scenarios: { home: { request: { path: '/', method: 'FETCH' } } } }, /scenario 'home': request\.method must be one of GET, HEAD, POST/],
    [{ scenarios: { home: { request: { path: '/', status: 700 } } } }, /scenario 'home': request\.status must be an HTTP status \(100 to 599\); received 700/],
    [{ scenarios: { home: { request: { path: '/', headers: { accept: 1 } } } } }, /scenario 'home': request\.headers must be an object of header names to string values/],
    [{ scenarios: { home: { request: { path: '/', query: 'a' } } } }, /scenario 'home': request: unknown key 'query'; expected one of method, path, headers, body, status/],
    [{ formats: ['html', 'json'], scenarios: { home: { requests: { html: { path: '/' } } } } }, /scenario 'home': requests\.json is missing; every format \(html, json\) needs a request/],
    [{ formats: ['json'], scenarios: { home: { requests: { json: { path: '/' }, xml: { path: '/' } } } } }, /scenario 'home': requests\.xml: unknown format; the scenario's formats are json/],
    [{ formats: ['html', 'json'], scenarios: { home: { formats: ['json'], requests: { html: { path: '/' }, json: { path: '/' } } } } }, /scenario 'home': requests\.html: unknown format; the scenario's formats are json/],
    [{ formats: ['json'], scenarios: { home: { formats: ['xml'], request: { path: '/' } } } }, /scenario 'home': formats must be a list of the workload's formats \(json\); received \["xml"\]/],
    [{ scenarios: { home: { request: { path: '/' } } }, defaultScenarios: ['away'] }, /defaultScenarios must be a list of the workload's scenarios \(home\); received \["away"\]/],
    [{ scenarios: { home: { request: { path: '/' }, amount: 0 } } }, /scenario 'home': amount must be a whole number from 1 to 10000000; received 0/],
    [{ scenarios: { home: { request: { path: '/' }, teardown: 'reseed' } } }, /scenario 'home': teardown must be a function \(hooks need a \.js workload\)/],
    [{ formats: ['HTML'], scenarios: { home: { request: { path: '/' } } } }, /formats must be a list of distinct names/],
    [{ services: ['redis'], scenarios: { home: { request: { path: '/' } } } }, /services must be a list of mongodb; received \["redis"\]/]
  ]) {
    assert.throws(() => check(source), coded(message), JSON.stringify(source))
  }
})

test('requests: values filled in, a list of paths sent in turn, an object body sent as JSON', () => {
  const workload = check({
    scenarios: {
      read: { request: { path: ['/items/{id}', '/items/2'], headers: { 'x-tenant': '{tenant}' } } },
      create: { request: { method: 'post', path: '/items', body: { name: 'cup' }, status: 201 } }
    }
  })
  assert.deepEqual(requestsOf(workload.scenarios.read, 'default', { id: 7, tenant: 'acme' }).requests, [
    { method: 'GET', path: '/items/7', headers: { 'x-tenant': 'acme' }, body: undefined },
    { method: 'GET', path: '/items/2', headers: { 'x-tenant': 'acme' }, body: undefined }
  ])
  const { flow, ...create } = requestsOf(workload.scenarios.create, 'default')
  assert.deepEqual(create, {
    method: 'POST',
    status: 201,
    requests: [{ method: 'POST', path: '/items', headers: { 'content-type': 'application/json' }, body: '{"name":"cup"}' }],
    where: 'request'
  })
  assert.equal(flow.dynamic, false, 'the same request every time: autocannon builds it once')
  assert.throws(() => requestsOf(workload.scenarios.read, 'default', { id: 7 }),
    coded(/^workload scenario 'read': request\.headers\.x-tenant uses \{tenant\}, which no setup returned, no vary gives and no request captures \(values: id\)$/))
})

test('finding the workload: --workload, else the app directory\'s, else a coded error saying what to do', (t) => {
  assert.equal(workloadFileOf(undefined, SHOP), path.join(SHOP, 'nodebench.workload.js'))
  assert.equal(workloadFileOf('x.json', SHOP), path.resolve('x.json'))
  const empty = temporaryDir(t, 'nodebench-workload-')
  assert.throws(() => workloadFileOf(undefined, empty), coded(/^no workload: .* has no nodebench\.workload\.js or nodebench\.workload\.json; write one/))
  fs.writeFileSync(path.join(empty, 'nodebench.workload.json'), '{\n  "scenarios": { "home": { "request": { "path": "/" } } },\n}')
  assert.throws(() => loadWorkload(path.join(empty, 'nodebench.workload.json')), coded(/nodebench\.workload\.json:3:1: is not JSON: /))
  fs.writeFileSync(path.join(empty, 'nodebench.workload.json'), '{ "scenarios": { "home": { "request": { "path": "/" } } } }')
  assert.equal(loadWorkload(workloadFileOf(undefined, empty)).scenarios.home.requests.default.paths[0], '/')
})

test('a workload with a syntax error is named by file, line and column; an ES module\'s default export is its workload', (t) => {
  const dir = temporaryDir(t, 'nodebench-workload-')
  const write = (name, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
    return path.join(dir, name)
  }
  const broken = [
    'module.exports = {',
    '  scenarios: {',
    "    home: { request: { path: '/' } status: 200 }",
    '  }',
    '}'
  ].join('\n')
  assert.throws(() => loadWorkload(write('cjs/nodebench.workload.js', broken)),
    (err) => err.code === 'NB_ERR_WORKLOAD' && err.message === `workload ${path.join(dir, 'cjs', 'nodebench.workload.js')}:3:36: SyntaxError: Unexpected identifier 'status'`)
  assert.throws(() => loadWorkload(write('json/nodebench.workload.json', '{\n  "scenarios": {\n    "home": { "request": { "path": "/" } "status": 200 }\n  }\n}')),
    (err) => err.code === 'NB_ERR_WORKLOAD' && /nodebench\.workload\.json:3:42: is not JSON: Expected ',' or '}' after property value$/.test(err.message))

  // An ESM project ("type": "module"): nodebench.workload.js is an ES module; so is any .mjs.
  write('esm/package.json', '{ "type": "module" }')
  const esm = loadWorkload(write('esm/nodebench.workload.js', "export default {\n  name: 'cats',\n  async setup () { return { id: 1 } },\n  scenarios: { 'cat-read': { request: { path: '/cats/{id}' } } }\n}\n"))
  assert.equal(esm.name, 'cats')
  assert.deepEqual(esm.scenarioNames, ['cat-read'])
  assert.equal(typeof esm.setup, 'function')
  assert.equal(loadWorkload(write('mjs/nodebench.workload.mjs', "export default { scenarios: { home: { request: { path: '/' } } } }\n")).scenarios.home.label, 'home')
  assert.throws(() => loadWorkload(write('esm-broken/nodebench.workload.mjs', broken.replace('module.exports =', 'export default'))),
    (err) => err.code === 'NB_ERR_WORKLOAD' && /nodebench\.workload\.mjs:3:36: SyntaxError: Unexpected identifier 'status'$/.test(err.message))
  assert.throws(() => loadWorkload(write('named/nodebench.workload.mjs', "export const scenarios = { home: { request: { path: '/' } } }\n")),
    coded(/is an ES module without a default export; expected `export default \{ scenarios: \.\.\. \}`$/))
})
