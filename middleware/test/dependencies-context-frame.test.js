'use strict'

// On Node.js 22, `node --experimental-async-context-frame` keeps an AsyncLocalStorage's context without promise
// hooks (Node.js 24 does so by default): the request's context nodebench keeps once it observes a dependency then
// costs an app nothing per promise (docs/middleware.md, "What it costs"). The dependencies' tests
// (dependencies.test.js: MongoDB commands through the driver and mongoose, fetch and node:http, at once and one at
// a time) run again under it, in a Node.js of their own.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const FLAG = '--experimental-async-context-frame'
const DEPENDENCIES_TESTS = path.join(__dirname, 'dependencies.test.js')

test(`dependencies are attributed to their segments under ${FLAG}`, {
  skip: !process.allowedNodeEnvironmentFlags.has(FLAG) && `Node.js ${process.version} does not take ${FLAG} (24 keeps the context that way by default)`,
  timeout: 240000
}, () => {
  // A run of its own, not a child of this one (node:test marks its children with NODE_TEST_CONTEXT).
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const run = spawnSync(process.execPath, [FLAG, '--test', '--test-reporter=tap', DEPENDENCIES_TESTS], {
    env, encoding: 'utf8', timeout: 220000
  })
  const output = `${run.stdout}\n${run.stderr}`
  assert.equal(run.status, 0, output.slice(-4000))
  assert.match(run.stdout, /^# fail 0$/m)
  const passed = Number(/^# pass (\d+)$/m.exec(run.stdout)?.[1])
  assert.ok(passed >= 3, `every dependencies test ran and passed: ${passed}`)
})
