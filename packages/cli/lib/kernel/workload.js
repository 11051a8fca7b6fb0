'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { codes, NodebenchError } = require('@nodebench/errors')
const { checkBrowser } = require('./workload-browser')
const { checkTargets } = require('./targets')
const { displayPath } = require('./paths')
const { checkVary, scenarioVary } = require('./sweep')
const { RequestFlow, formEncode } = require('./request-flow')

// A workload says what `bench` and `flame` send to an app: its scenarios (the requests of one operation),
// in one or more formats (variants of the same operation: the study's HTML pages and JSON API), with the
// status a correct answer has, the load's size, and hooks that prepare the data. It is a file beside the
// app, `nodebench.workload.js` (hooks allowed) or `nodebench.workload.json`:
//
//   module.exports = {
//     name: 'my shop',
//     formats: ['json'],                                // optional, default ['default']
//     services: ['mongodb'],                            // optional: a database nodebench provides (MONGODB_URI)
//     database: 'keep',                                 // optional: reuse the db service's data instead of an
//                                                       //   empty embedded database per run (kernel/database.js)
//     async setup ({ env, log }) { return { id: ... } },  // optional, once before the first cell: values
//     defaultScenarios: ['item-read'],                  // optional: what a run without --scenarios measures
//     targets: ['app', 'app-untraced', 'node'],         // optional: servers side by side (targets.js)
//     scenarios: {
//       'item-read': {
//         label: 'item read', connections: 50, amount: 2000, quickAmount: 200, dominant: 'loadItem',
//         request: { method: 'GET', path: ['/items/{id}', '/items/2'], headers: {}, status: 200 },
//         // or requests: { json: {...}, html: {...} }, one per format of the scenario's
//         formats: ['json'],                            // optional: the workload's formats it has (default all)
//         async teardown ({ env, log, values }) {}      // optional, after each cell of this scenario
//         vary: { size: [10, 100] }, warmup: 5           // optional: its own values (sweep.js), its warm-up requests
//       }
//     },
//     vary: { documents: [1000, 10000] },              // optional: a cell per combination of values (sweep.js)
//     start: { args: ['--backends', '{backends}'], env: { SIZE: '{size}' } }  // optional: what --app's server.js gets
//   }
//
// `{name}` in a path, a header value or a string body is the value `setup` returned under that name, or the
// cell's value of a varied name.
// A path may be a list: each connection sends them in turn (autocannon's `requests`).
//
// Requests that change (request-flow.js sends them; docs/workloads.md has the examples):
//   request: {
//     path: '/users/{$seq}', body: { email: 'u-{$uuid}@x.org' },  // {$seq}, {$uuid}: new for each request
//     setupRequest (request, { seq, uuid, values, captured, connection }) { return request },  // builds each one
//     capture: { csrf: { body: /name="_csrf" value="([^"]+)"/ }, id: { json: 'user.id' }, etag: { header: 'etag' } }
//   },
//   request: [{ ...page }, { ...form }],                 // sent in turn; the last is the scenario's operation
//   session: true | { cookies: true, requests: [...] }  // a cookie jar per connection; requests sent once by each

const WORKLOAD_FILES = Object.freeze(['nodebench.workload.js', 'nodebench.workload.json'])
const WORKLOAD_KEYS = Object.freeze([
  'name', 'description', 'formats', 'services', 'setup', 'teardown', 'scenarios', 'defaultScenarios', 'browser', 'reference',
  'targets', 'vary', 'start', 'database'
])
const SCENARIO_KEYS = Object.freeze([
  'label', 'request', 'requests', 'formats', 'connections', 'amount', 'quickAmount', 'dominant', 'setup', 'teardown', 'reference',
  'vary', 'warmup', 'session'
])
const START_KEYS = Object.freeze(['args', 'env'])
const REQUEST_KEYS = Object.freeze(['method', 'path', 'headers', 'body', 'status', 'capture', 'setupRequest'])
const SESSION_KEYS = Object.freeze(['cookies', 'requests'])
const CAPTURE_SOURCES = Object.freeze(['body', 'json', 'header'])
// Values a request gets anew each time it is sent (request-flow.js).
const PER_REQUEST_VALUES = Object.freeze(['$seq', '$uuid'])
const SERVICES = Object.freeze(['mongodb'])
// 'fresh': an empty embedded database per run; 'keep': the db service's (or nodebench's data directory's).
const DATABASE_MODES = Object.freeze(['fresh', 'keep'])
const METHODS = Object.freeze(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/
const PLACEHOLDER = /\{([A-Za-z_$][\w$]*)\}/g
const DEFAULT_CONNECTIONS = 10
const DEFAULT_AMOUNT = 1000

function workloadError (file, message) {
  return new NodebenchError(codes.NB_ERR_WORKLOAD, `workload ${file}: ${message}`)
}

function describe (value) {
  if (value === undefined) return 'nothing'
  if (typeof value === 'function') return 'a function'
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function isPlainObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The workload file for an app directory: the first of WORKLOAD_FILES in it, or null. */
function workloadFileIn (dir) {
  for (const name of WORKLOAD_FILES) {
    const file = path.join(dir, name)
    if (fs.existsSync(file)) return file
  }
  return null
}

/**
 * The workload file to use: `given` (--workload), else the app directory's, else (an app of the user's
 * command or URL: `dir` null) the current directory's.
 */
function workloadFileOf (given, dir) {
  if (given !== undefined) return path.resolve(given)
  const where = dir ?? process.cwd()
  const found = workloadFileIn(where)
  if (found === null) {
    throw new NodebenchError(codes.NB_ERR_WORKLOAD, `no workload: ${displayPath(where)} has no ${WORKLOAD_FILES.join(' or ')}; ` +
      'write one (README, "Bench your own app") or give --workload <file>')
  }
  return found
}

/** Reads and checks a workload file; returns it frozen, with every default filled in. */
function loadWorkload (file) {
  const shown = displayPath(file)
  if (!fs.existsSync(file)) throw workloadError(shown, 'no such file; expected a nodebench.workload.js or .json')
  const source = file.endsWith('.json') ? readJson(file, shown) : requireModule(file, shown)
  return checkWorkload(source, { file, shown })
}

/** A .json workload; a syntax error is named by line and column (V8's message gives an offset). */
function readJson (file, shown) {
  const text = fs.readFileSync(file, 'utf8')
  try {
    return JSON.parse(text)
  } catch (err) {
    const offset = /at position (\d+)/.exec(err.message)
    const message = err.message.replace(/ in JSON at position \d+.*$/, '').replace(/ \(line \d+ column \d+\)$/, '')
    if (offset === null) throw workloadError(shown, `is not JSON: ${message}`)
    const before = text.slice(0, Number(offset[1]))
    const line = before.split('\n').length
    const column = Number(offset[1]) - before.lastIndexOf('\n')
    throw workloadError(`${shown}:${line}:${column}`, `is not JSON: ${message}`)
  }
}

/**
 * A .js (or .cjs, .mjs) workload: CommonJS's `module.exports`, or an ES module's `export default` (an ESM
 * project's nodebench.workload.js; Node.js's require() of an ES module gives its namespace).
 */
function requireModule (file, shown) {
  let exported
  try {
    exported = require(file)
  } catch (err) {
    if (err.code === 'ERR_REQUIRE_ASYNC_MODULE') {
      throw workloadError(shown, 'is an ES module with top-level await, which nodebench cannot load synchronously; move the awaits into setup()')
    }
    if (err instanceof SyntaxError) throw workloadError(syntaxErrorAt(file) ?? shown, `${err.name}: ${err.message}`)
    throw workloadError(shown, `could not be loaded: ${err.message.split('\n')[0]}`)
  }
  const isNamespace = Object.prototype.toString.call(exported) === '[object Module]'
  if (isNamespace || (exported !== null && typeof exported === 'object' && exported.__esModule === true && 'default' in exported)) {
    if (exported.default === undefined) throw workloadError(shown, 'is an ES module without a default export; expected `export default { scenarios: ... }`')
    return exported.default
  }
  return exported
}

/**
 * `file:line:column` of a syntax error in `file`, as `node --check` finds it: Node.js names the line, and the
 * carets under the source line the column (require() of an ES module names neither).
 */
function syntaxErrorAt (file) {
  const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 })
  const lines = (checked.stderr || '').split('\n')
  const at = lines.findIndex((line) => line.startsWith(`${file}:`) || line.startsWith(`file://${file}:`))
  if (at === -1) return null
  const line = /:(\d+)$/.exec(lines[at])
  const caret = (lines[at + 2] || '').indexOf('^')
  if (line === null) return null
  return `${displayPath(file)}:${line[1]}${caret === -1 ? '' : `:${caret + 1}`}`
}

function checkKeys (object, allowed, where, fail) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(`${where}unknown key '${key}'; expected one of ${allowed.join(', ')}`)
  }
}

function checkWorkload (source, { file, shown }) {
  const fail = (message) => { throw workloadError(shown, message) }
  if (!isPlainObject(source)) fail(`expected an object of scenarios and options; received ${describe(source)}`)
  checkKeys(source, WORKLOAD_KEYS, '', fail)
  const optionalText = (key, value) => {
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) fail(`${key} must be a non-empty string; received ${describe(value)}`)
    return value === undefined ? null : value
  }
  const formats = source.formats === undefined ? ['default'] : source.formats
  if (!Array.isArray(formats) || formats.length === 0 || formats.some((f) => typeof f !== 'string' || !NAME_PATTERN.test(f)) ||
      new Set(formats).size !== formats.length) {
    fail(`formats must be a list of distinct names (lower-case letters, digits, dashes); received ${describe(source.formats)}`)
  }
  const services = source.services === undefined ? [] : source.services
  if (!Array.isArray(services) || services.some((s) => !SERVICES.includes(s))) {
    fail(`services must be a list of ${SERVICES.join(', ')}; received ${describe(source.services)}`)
  }
  const database = source.database === undefined ? 'fresh' : source.database
  if (!DATABASE_MODES.includes(database)) {
    fail(`database must be one of ${DATABASE_MODES.map((mode) => `'${mode}'`).join(', ')}; received ${describe(source.database)}`)
  }
  const hook = (where, value) => {
    if (value !== undefined && typeof value !== 'function') fail(`${where} must be a function (hooks need a .js workload); received ${describe(value)}`)
    return value === undefined ? null : value
  }
  if (!isPlainObject(source.scenarios) || Object.keys(source.scenarios).length === 0) {
    fail(`scenarios must be an object of named scenarios; received ${describe(source.scenarios)}`)
  }
  const vary = checkVary(source.vary, { where: 'vary', fail, describe })
  const start = checkStart(source.start, fail)
  const scenarios = {}
  for (const [name, scenario] of Object.entries(source.scenarios)) {
    if (!NAME_PATTERN.test(name)) fail(`scenario name '${name}' must be lower-case letters, digits and dashes`)
    scenarios[name] = checkScenario(name, scenario, { formats, fail, hook, vary })
    for (const placeholder of start.placeholders) {
      if (scenarios[name].vary === null || !Object.hasOwn(scenarios[name].vary, placeholder)) {
        fail(`start uses {${placeholder}}, which scenario '${name}' does not vary; give it one value there (vary: { ${placeholder}: [...] })`)
      }
    }
  }
  const names = Object.keys(scenarios)
  const defaultScenarios = source.defaultScenarios === undefined ? names : source.defaultScenarios
  const listsScenarios = Array.isArray(defaultScenarios) && defaultScenarios.length > 0
  if (!listsScenarios || defaultScenarios.some((s) => !names.includes(s))) {
    fail(`defaultScenarios must be a list of the workload's scenarios (${names.join(', ')}); received ${describe(source.defaultScenarios)}`)
  }
  if (source.reference !== undefined && !isPlainObject(source.reference)) fail(`reference must be an object; received ${describe(source.reference)}`)
  return Object.freeze({
    file,
    name: optionalText('name', source.name) ?? path.basename(path.dirname(file)),
    description: optionalText('description', source.description),
    formats: Object.freeze([...formats]),
    services: Object.freeze([...services]),
    database,
    setup: hook('setup', source.setup),
    teardown: hook('teardown', source.teardown),
    scenarios: Object.freeze(scenarios),
    scenarioNames: Object.freeze(names),
    defaultScenarios: Object.freeze([...new Set(defaultScenarios)]),
    // What `nodebench browser` loads (workload-browser.js); null when the workload has no browser part.
    browser: checkBrowser(source.browser, { fail, hook, describe }),
    reference: source.reference === undefined ? null : source.reference,
    // What an app directory's server.js gets besides --port and --processes, a cell's values filled in.
    start: Object.freeze({ args: start.args, env: start.env }),
    // The servers the scenarios go to (targets.js); null: the app alone.
    targets: checkTargets(source.targets, { fail, dir: path.dirname(file) })
  })
}

/** `start`: `{ args: [strings], env: { NAME: string } }`, and the placeholders they use. */
function checkStart (start, fail) {
  if (start === undefined) return { args: Object.freeze([]), env: Object.freeze({}), placeholders: [] }
  if (!isPlainObject(start)) fail(`start must be an object with args and env for the app's server.js; received ${describe(start)}`)
  checkKeys(start, START_KEYS, 'start: ', fail)
  const args = start.args === undefined ? [] : start.args
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) fail(`start.args must be a list of strings; received ${describe(start.args)}`)
  const env = start.env === undefined ? {} : start.env
  if (!isPlainObject(env) || Object.values(env).some((value) => typeof value !== 'string')) {
    fail(`start.env must be an object of variable names to string values; received ${describe(start.env)}`)
  }
  const placeholders = new Set()
  for (const text of [...args, ...Object.values(env)]) {
    for (const [, name] of text.matchAll(PLACEHOLDER)) placeholders.add(name)
  }
  return { args: Object.freeze([...args]), env: Object.freeze({ ...env }), placeholders: [...placeholders] }
}

function checkScenario (name, scenario, { formats, fail, hook, vary }) {
  const where = `scenario '${name}': `
  const failHere = (message) => fail(where + message)
  if (!isPlainObject(scenario)) failHere(`expected an object with request (or requests); received ${describe(scenario)}`)
  checkKeys(scenario, SCENARIO_KEYS, where, fail)
  if ((scenario.request === undefined) === (scenario.requests === undefined)) {
    failHere('give request (the same for every format) or requests (one per format), not both nor neither')
  }
  const own = scenario.formats === undefined ? formats : scenario.formats
  const listsFormats = Array.isArray(own) && own.length > 0 && new Set(own).size === own.length
  if (!listsFormats || own.some((f) => !formats.includes(f))) {
    failHere(`formats must be a list of the workload's formats (${formats.join(', ')}); received ${describe(scenario.formats)}`)
  }
  const requests = {}
  if (scenario.request !== undefined) {
    const request = checkRequestList(scenario.request, 'request', failHere)
    for (const format of own) requests[format] = request
  } else {
    if (!isPlainObject(scenario.requests)) failHere(`requests must be an object with a request per format; received ${describe(scenario.requests)}`)
    for (const key of Object.keys(scenario.requests)) {
      if (!own.includes(key)) failHere(`requests.${key}: unknown format; the scenario's formats are ${own.join(', ')}`)
    }
    for (const format of own) {
      if (scenario.requests[format] === undefined) failHere(`requests.${format} is missing; every format (${own.join(', ')}) needs a request`)
      requests[format] = checkRequestList(scenario.requests[format], `requests.${format}`, failHere)
    }
  }
  const count = (key, fallback, max, min = 1) => {
    const value = scenario[key]
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || value < min || value > max) failHere(`${key} must be a whole number from ${min} to ${max}; received ${describe(value)}`)
    return value
  }
  const text = (key) => {
    const value = scenario[key]
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) failHere(`${key} must be a non-empty string; received ${describe(value)}`)
    return value === undefined ? null : value
  }
  if (scenario.reference !== undefined && !isPlainObject(scenario.reference)) failHere(`reference must be an object; received ${describe(scenario.reference)}`)
  const session = checkSession(scenario.session, failHere)
  checkCaptured(Object.values(requests), session, failHere)
  return Object.freeze({
    name,
    label: text('label') ?? name,
    formats: Object.freeze([...own]),
    requests: Object.freeze(requests),
    connections: count('connections', DEFAULT_CONNECTIONS, 10_000),
    amount: count('amount', DEFAULT_AMOUNT, 10_000_000),
    // `bench --quick`: a tenth of the requests unless the scenario says how many.
    quickAmount: count('quickAmount', Math.max(1, Math.round(count('amount', DEFAULT_AMOUNT, 10_000_000) / 10)), 10_000_000),
    dominant: text('dominant'),
    // Warm-up requests before each cell's load (null: the run's --warmup); a read of 300,000 documents needs few.
    warmup: scenario.warmup === undefined ? null : count('warmup', 0, 1_000_000, 0),
    // Its varied values (sweep.js): the workload's, with its own in their place; null when none.
    vary: scenarioVary(vary, checkVary(scenario.vary, { where: `scenario '${name}': vary`, fail, describe })),
    setup: hook(`scenario '${name}': setup`, scenario.setup),
    teardown: hook(`scenario '${name}': teardown`, scenario.teardown),
    reference: scenario.reference === undefined ? null : scenario.reference,
    // What each connection keeps and sends once before the load (request-flow.js); null: nothing.
    session
  })
}

/**
 * A request, or a list of them that each connection sends in turn (a form's page, then its POST): the last is
 * the scenario's operation, the others its `before`.
 */
function checkRequestList (request, where, fail) {
  if (!Array.isArray(request)) {
    return Object.freeze({ ...checkRequest(request, where, fail), before: Object.freeze([]) })
  }
  if (request.length === 0) fail(`${where} must be a request or a non-empty list of them; received []`)
  const checked = request.map((one, index) => checkRequest(one, `${where}[${index}]`, fail))
  return Object.freeze({ ...checked[checked.length - 1], before: Object.freeze(checked.slice(0, -1)) })
}

/** `session`: true (a cookie jar per connection), or `{ cookies, requests }`; null without one. */
function checkSession (session, fail) {
  if (session === undefined || session === false) return null
  if (session === true) return Object.freeze({ cookies: true, requests: Object.freeze([]) })
  if (!isPlainObject(session)) fail(`session must be true or an object with cookies and requests (sent once by each connection); received ${describe(session)}`)
  checkKeys(session, SESSION_KEYS, 'session: ', fail)
  if (session.cookies !== undefined && typeof session.cookies !== 'boolean') fail(`session.cookies must be true or false; received ${describe(session.cookies)}`)
  const list = session.requests === undefined ? [] : session.requests
  if (!Array.isArray(list)) fail(`session.requests must be a list of requests each connection sends once before the load; received ${describe(session.requests)}`)
  const requests = list.map((request, index) => checkRequest(request, `session.requests[${index}]`, fail))
  return Object.freeze({ cookies: session.cookies ?? true, requests: Object.freeze(requests) })
}

/** Every name a request's template uses that no setup or vary can give must be captured by some request. */
function checkCaptured (requests, session, fail) {
  const all = [...(session?.requests ?? [])]
  for (const request of requests) all.push(...request.before, request)
  const names = new Set(all.flatMap((request) => request.capture === null ? [] : Object.keys(request.capture)))
  for (const request of all) {
    for (const name of request.placeholders) {
      if (name.startsWith('$') && !PER_REQUEST_VALUES.includes(name)) {
        fail(`${request.where} uses {${name}}: a per-request value is one of ${PER_REQUEST_VALUES.map((v) => `{${v}}`).join(', ')}`)
      }
    }
  }
  return names
}

/** `capture`: `{ name: { body: /regex/ } | { json: 'a.b' } | { header: 'name' } }`, each a value for later requests. */
function checkCapture (capture, where, fail) {
  if (capture === undefined) return null
  if (!isPlainObject(capture) || Object.keys(capture).length === 0) {
    fail(`${where}.capture must be an object of names to { body: /regex/ }, { json: 'path.in.body' } or { header: 'name' }; received ${describe(capture)}`)
  }
  const checked = {}
  for (const [name, source] of Object.entries(capture)) {
    const at = `${where}.capture.${name}`
    if (!/^[A-Za-z_][\w]*$/.test(name)) fail(`${at}: a captured name is letters, digits and _ (used as {${name}})`)
    const keys = isPlainObject(source) ? Object.keys(source) : []
    if (keys.length !== 1 || !CAPTURE_SOURCES.includes(keys[0])) {
      fail(`${at} must be one of { body: /regex/ } (its first group), { json: 'path.in.body' }, { header: 'name' }; received ${describe(source)}`)
    }
    const [from] = keys
    const value = source[from]
    if (from === 'body') {
      if (!(value instanceof RegExp) && (typeof value !== 'string' || value === '')) fail(`${at}.body must be a regular expression or its source as a string; received ${describe(value)}`)
      let regex = value
      if (typeof value === 'string') {
        try {
          regex = new RegExp(value)
        } catch (err) {
          fail(`${at}.body is not a regular expression: ${err.message}`)
        }
      }
      checked[name] = Object.freeze({ body: regex })
    } else {
      if (typeof value !== 'string' || value.trim() === '') fail(`${at}.${from} must be a non-empty string; received ${describe(value)}`)
      checked[name] = Object.freeze(from === 'json' ? { json: value } : { header: value.toLowerCase() })
    }
  }
  return Object.freeze(checked)
}

function checkRequest (request, where, fail) {
  if (!isPlainObject(request)) fail(`${where} must be an object with a path; received ${describe(request)}`)
  checkKeys(request, REQUEST_KEYS, `${where}: `, fail)
  const method = request.method === undefined ? 'GET' : request.method
  if (typeof method !== 'string' || !METHODS.includes(method.toUpperCase())) {
    fail(`${where}.method must be one of ${METHODS.join(', ')}; received ${describe(request.method)}`)
  }
  const paths = typeof request.path === 'string' ? [request.path] : request.path
  if (!Array.isArray(paths) || paths.length === 0 || paths.some((p) => typeof p !== 'string' || !p.startsWith('/'))) {
    fail(`${where}.path must be a path starting with '/' or a list of them; received ${describe(request.path)}`)
  }
  const headers = request.headers === undefined ? {} : request.headers
  if (!isPlainObject(headers) || Object.values(headers).some((v) => typeof v !== 'string')) {
    fail(`${where}.headers must be an object of header names to string values; received ${describe(request.headers)}`)
  }
  let body = request.body === undefined ? null : request.body
  const lowerHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  // A form's object body is sent as the form (its values' {names} filled in encoded); any other object as JSON.
  const form = /^application\/x-www-form-urlencoded\b/i.test(lowerHeaders['content-type'] ?? '')
  if (body !== null && typeof body !== 'string') {
    if (typeof body !== 'object') fail(`${where}.body must be a string or a JSON object; received ${describe(request.body)}`)
    if (form) {
      if (!isPlainObject(body) || Object.values(body).some((value) => typeof value !== 'string' && typeof value !== 'number')) {
        fail(`${where}.body of a form (application/x-www-form-urlencoded) must be an object of names to strings; received ${describe(request.body)}`)
      }
      body = Object.entries(body).map(([name, value]) => `${formEncode(name)}=${formTemplate(String(value))}`).join('&')
    } else {
      body = JSON.stringify(body)
      if (lowerHeaders['content-type'] === undefined) lowerHeaders['content-type'] = 'application/json'
    }
  }
  const status = request.status === undefined ? 200 : request.status
  if (!Number.isInteger(status) || status < 100 || status > 599) fail(`${where}.status must be an HTTP status (100 to 599); received ${describe(request.status)}`)
  if (request.setupRequest !== undefined && typeof request.setupRequest !== 'function') {
    fail(`${where}.setupRequest must be a function (request, { seq, uuid, values, captured, connection }) returning the request (a .js workload); received ${describe(request.setupRequest)}`)
  }
  const placeholders = new Set()
  for (const text of [...paths, ...Object.values(lowerHeaders), ...(body === null ? [] : [body])]) {
    for (const [, name] of text.matchAll(PLACEHOLDER)) placeholders.add(name)
  }
  return Object.freeze({
    where,
    method: method.toUpperCase(),
    paths: Object.freeze(paths),
    headers: Object.freeze(lowerHeaders),
    body,
    status,
    capture: checkCapture(request.capture, where, fail),
    setupRequest: request.setupRequest ?? null,
    placeholders: Object.freeze([...placeholders]),
    // How a value filled into the body is written: 'form' (URL-encoded), else as it is.
    bodyEncoding: form ? 'form' : null
  })
}

/** A form value encoded, its {names} kept for filling in (encoded then). */
function formTemplate (text) {
  return text.split(/(\{[A-Za-z_$][\w$]*\})/).map((part, index) => (index % 2 === 1 ? part : formEncode(part))).join('')
}

function fill (text, values, where, scenario, later = NO_NAMES, encode = String) {
  return text.replace(PLACEHOLDER, (whole, name) => {
    // Values of each request (request-flow.js): {$seq}, {$uuid} and what an answer captures.
    if (later.has(name)) return whole
    if (!Object.hasOwn(values, name)) {
      throw new NodebenchError(codes.NB_ERR_WORKLOAD, `workload scenario '${scenario}': ${where} uses {${name}}, which no setup returned, no vary gives` +
        ` and no request captures${Object.keys(values).length ? ` (values: ${Object.keys(values).join(', ')})` : ''}`)
    }
    return encode(String(values[name]))
  })
}

const NO_NAMES = new Set()

/** The names a cell fills in per request: {$seq}, {$uuid} and every name a request of it captures. */
function perRequestNames (requests) {
  const names = new Set(PER_REQUEST_VALUES)
  for (const request of requests) {
    if (request.capture !== null) for (const name of Object.keys(request.capture)) names.add(name)
  }
  return names
}

/**
 * Each request a connection sends in turn, as request-flow.js sends it: one per path of each request (the
 * ones before the scenario's own first), `values` filled in, per-request values left for each request.
 */
function entriesOf (scenario, requests, values, later) {
  return requests.flatMap((request) => {
    const headers = {}
    const templatedHeaders = []
    for (const [name, value] of Object.entries(request.headers)) {
      headers[name] = fill(value, values, `${request.where}.headers.${name}`, scenario.name, later)
      if (PLACEHOLDER_TEST.test(headers[name])) templatedHeaders.push(name)
    }
    const encode = request.bodyEncoding === 'form' ? formEncode : String
    const body = request.body === null ? undefined : fill(request.body, values, `${request.where}.body`, scenario.name, later, encode)
    const captures = Object.entries(request.capture ?? {})
    return request.paths.map((p) => {
      const path = fill(p, values, `${request.where}.path`, scenario.name, later)
      const templated = {
        path: PLACEHOLDER_TEST.test(path),
        headers: templatedHeaders,
        body: body !== undefined && PLACEHOLDER_TEST.test(body)
      }
      return Object.freeze({
        where: request.where,
        method: request.method,
        path,
        headers,
        body,
        status: request.status,
        captures,
        setupRequest: request.setupRequest,
        bodyEncoding: request.bodyEncoding,
        templated,
        usesUuid: request.placeholders.includes('$uuid'),
        usesSeq: request.placeholders.includes('$seq'),
        dynamic: templated.path || templated.headers.length > 0 || templated.body || captures.length > 0 ||
          request.setupRequest !== null
      })
    })
  })
}

const PLACEHOLDER_TEST = /\{[A-Za-z_$][\w$]*\}/

/**
 * What a cell sends: the scenario's request in a format with `values` filled in, as autocannon's `requests`
 * (one per path, sent in turn by each connection), the status a correct answer has, and its `flow`
 * (request-flow.js: what is sent request by request, and each answer's check).
 * @returns {{ method: string, status: number, requests: Array<{ method, path, headers, body }>, where: string,
 *   flow: RequestFlow }}
 */
function requestsOf (scenario, format, values = {}) {
  const request = scenario.requests[format]
  const session = scenario.session ?? null
  const all = [...(session?.requests ?? []), ...request.before, request]
  const later = perRequestNames(all)
  const entries = entriesOf(scenario, [...request.before, request], values, later)
  const sessionEntries = session === null ? [] : entriesOf(scenario, session.requests, values, later)
  const flow = new RequestFlow({
    entries,
    session: session === null ? null : { cookies: session.cookies, requests: sessionEntries },
    values,
    scenario: scenario.name,
    format
  })
  const requests = entries.map(({ method, path, headers, body }) => ({ method, path, headers, body }))
  return { method: request.method, status: request.status, requests, where: request.where, flow }
}

/** A scenario's varied names and their (full) lists; null when it varies none. */
function varyLists (vary) {
  if (vary === null) return null
  const lists = {}
  for (const [name, entry] of Object.entries(vary)) lists[name] = [...entry.values]
  return lists
}

/** What results.json keeps of the workload: enough for a report to name scenarios and compare with a reference. */
function describeWorkload (workload) {
  const scenarios = {}
  for (const scenario of Object.values(workload.scenarios)) {
    scenarios[scenario.name] = {
      label: scenario.label,
      formats: [...scenario.formats],
      dominant: scenario.dominant,
      connections: scenario.connections,
      amount: scenario.amount,
      reference: scenario.reference,
      vary: varyLists(scenario.vary)
    }
  }
  return {
    name: workload.name,
    file: displayPath(workload.file),
    formats: [...workload.formats],
    scenarios,
    reference: workload.reference
  }
}

/** Runs a workload's hook; a failure names the hook and the workload. */
async function runHook (hook, where, workload, context) {
  if (hook === null) return {}
  let values
  try {
    values = await hook(context)
  } catch (err) {
    throw new NodebenchError(codes.NB_ERR_WORKLOAD_HOOK, `workload ${path.basename(workload.file)}: ${where} failed: ${err.message}`)
  }
  if (values === undefined || values === null) return {}
  if (!isPlainObject(values)) {
    throw new NodebenchError(codes.NB_ERR_WORKLOAD_HOOK, `workload ${path.basename(workload.file)}: ${where} must return an object of values or nothing; returned ${describe(values)}`)
  }
  return values
}

module.exports = {
  WORKLOAD_FILES, workloadFileIn, workloadFileOf, loadWorkload, checkWorkload, requestsOf, describeWorkload, runHook
}
