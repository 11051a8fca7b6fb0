'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { temporaryDir } = require('../../test/support')
const { defaultServiceName, nearestPackageName } = require('../lib/service-name')

const MIDDLEWARE = path.join(__dirname, '..')

/** Writes `files` ({ relative path: text or object as JSON }) under `dir`. */
function writeTree (dir, files) {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), typeof content === 'string' ? content : JSON.stringify(content))
  }
}

// An app's main module starts nodebench and prints the service of its breakdown, as the app runs it.
const SERVER = `
const { nodebenchTrace } = require(${JSON.stringify(MIDDLEWARE)})
const trace = nodebenchTrace({ exporter: 'none', ...JSON.parse(process.env.TRACE_OPTIONS || '{}') })
console.log(trace.breakdown().service)
trace.shutdown()
`

function serviceOf (app, script, { env = {}, options } = {}) {
  const { OTEL_SERVICE_NAME, ...inherited } = process.env
  return execFileSync(process.execPath, [script], {
    cwd: app,
    encoding: 'utf8',
    env: { ...inherited, ...env, ...(options ? { TRACE_OPTIONS: JSON.stringify(options) } : {}) }
  }).trim()
}

test("the default service name is the app's package.json name, not its script's file name; OTEL_SERVICE_NAME and the option win", (t) => {
  const app = temporaryDir(t, 'nodebench-service-name-')
  // A folder's own package.json without a name (type only, as build tools write) is not the app's.
  writeTree(app, { 'package.json': { name: 'acme-api', version: '1.0.0' }, 'src/package.json': { type: 'commonjs' }, 'src/index.js': SERVER })
  assert.equal(serviceOf(app, 'src/index.js'), 'acme-api')
  assert.equal(serviceOf(app, 'src/index.js', { env: { OTEL_SERVICE_NAME: 'from-env' } }), 'from-env')
  assert.equal(serviceOf(app, 'src/index.js', { env: { OTEL_SERVICE_NAME: 'from-env' }, options: { serviceName: 'from-option' } }), 'from-option')
  // Without a package.json name anywhere above it, the script's name, as before.
  const bare = temporaryDir(t, 'nodebench-service-name-')
  writeTree(bare, { 'index.js': SERVER })
  assert.equal(serviceOf(bare, 'index.js'), nearestPackageName(bare) ?? 'index', 'no package.json above the temporary folder')
})

test("a main module in node_modules (a test runner's bin) is a tool's: the working directory's package.json names the app", (t) => {
  const app = temporaryDir(t, 'nodebench-service-name-')
  writeTree(app, { 'package.json': { name: '@acme/orders' }, 'node_modules/mocha/package.json': { name: 'mocha' } })
  const runner = path.join(app, 'node_modules', 'mocha', 'bin', 'mocha.js')
  assert.equal(defaultServiceName({ main: runner, script: runner, cwd: app }), '@acme/orders')
  assert.equal(defaultServiceName({ main: runner, script: runner, cwd: path.join(app, 'node_modules', 'mocha') }), 'mocha', 'the working directory decides then')
  // An ES module app has no require.main: its script is its main module.
  assert.equal(defaultServiceName({ main: null, script: path.join(app, 'server.mjs'), cwd: '/' }), '@acme/orders')
  // No main module and no script (the REPL): the working directory; nowhere to read one: the fallback.
  assert.equal(defaultServiceName({ main: null, script: null, cwd: app }), '@acme/orders')
  assert.equal(defaultServiceName({ main: null, script: null, cwd: null }), 'express-app')
  // A package.json that is not JSON, or whose name is not a string, is passed over.
  writeTree(app, { 'api/package.json': '{ not json', 'api/v2/package.json': { name: 7 } })
  assert.equal(defaultServiceName({ main: path.join(app, 'api', 'v2', 'server.js'), cwd: '/' }), '@acme/orders')
})
