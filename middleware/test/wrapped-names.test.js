'use strict'

// An API written as the popular boilerplates write one (test/fixtures/api-boilerplate), on Express 4 and 5,
// with the real packages: every controller is `catchAsync(async (req, res) => ...)` or express-async-handler's
// `asyncHandler(...)` in a controller module, `auth('getUsers')` and `validate(userValidation.getUsers)` are
// closures made by factories (joi's schemas), express-rate-limit is kept as `authLimiter`, morgan's handlers
// live in a config module, passport authenticates with a JWT strategy, and the app wraps lusca itself. Each
// segment is named as the app knows it, its file and line are where the wrapped function is written, and the
// names are the same in another process.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const express4 = require('express4')
const express5 = require('express5')
const { nodebenchTrace } = require('..')
const { createApp } = require('./fixtures/api-boilerplate/src/app')
const { listen } = require('./helpers')
const { EXPRESS4_ASYNC_ERRORS, loadExpress4AsyncErrorsApp } = require('./express4-async-errors')

const SOURCE = path.join(__dirname, 'fixtures', 'api-boilerplate', 'src')

/** An HS256 JSON Web Token, as passport-jwt checks it. */
function token (payload) {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}`
  return `${body}.${crypto.createHmac('sha256', 'nodebench-test-secret').update(body).digest('base64url')}`
}

/** The line of `text` in a fixture file (1-based), so the expectations follow the fixture. */
function lineOf (file, text) {
  const lines = require('node:fs').readFileSync(path.join(SOURCE, file), 'utf8').split('\n')
  const index = lines.findIndex((line) => line.includes(text))
  assert.notEqual(index, -1, `${text} in ${file}`)
  return index + 1
}

async function namesOf (express) {
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(createApp(express, trace))
  const headers = { authorization: `Bearer ${token({ sub: '1', role: 'admin' })}` }
  try {
    for (let i = 0; i < 3; i++) {
      let res = await fetch(`${base}/v1/users/?name=Ada`, { headers })
      assert.equal(res.status, 200, await res.text())
      res = await fetch(`${base}/v1/users/2`, { headers })
      assert.equal(res.status, 200, await res.text())
      res = await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ada"}' })
      assert.equal(res.status, 200, await res.text())
      res = await fetch(`${base}/v1/auth/logout`, { method: 'POST' })
      assert.equal(res.status, 204, await res.text())
      res = await fetch(`${base}/v1/status`)
      assert.deepEqual(await res.json(), { ok: true })
    }
    const unauthorised = await fetch(`${base}/v1/users/`)
    assert.equal(unauthorised.status, 401)
    const snapshot = trace.breakdown()
    const segments = (method, route, format = 'json') => {
      const operation = snapshot.operations.find((o) => o.method === method && o.route === route && o.format === format &&
        o.segments.some((s) => s.kind === 'handler' && s.count === 3))
      assert.ok(operation, `${method} ${route} in ${JSON.stringify(snapshot.operations.map((o) => [o.method, o.route, o.format]))}`)
      const sum = operation.segments.reduce((total, s) => total + s.share, operation.unattributedShare)
      assert.ok(Math.abs(sum - 1) < 1e-9, `${route}: shares sum to ${sum}`)
      return operation.segments
    }
    return {
      users: segments('GET', '/v1/users/'),
      user: segments('GET', '/v1/users/:userId'),
      login: segments('POST', '/v1/auth/login'),
      logout: segments('POST', '/v1/auth/logout', 'other'),
      status: segments('GET', '/v1/status')
    }
  } finally {
    await close()
    await trace.shutdown()
  }
}

const APP_MIDDLEWARE = [
  ['middleware', 'morgan.successHandler'],
  ['middleware', 'morgan.errorHandler'],
  ['middleware', 'jsonParser'],
  ['middleware', 'initialize'],
  ['middleware', "lusca.xframe('SAMEORIGIN')"]
]

for (const [version, express] of [['Express 4', express4], ['Express 5', express5]]) {
  test(`${version}: wrapped controllers by their controller module's export, factories by factory and arguments`, async () => {
    const names = await namesOf(express)
    // Express 4's own `query` and `expressInit` aside, and the error handler that answered the 401.
    const shown = (segments) => segments.filter((s) => s.kind !== 'error-handler' && s.name !== 'query' && s.name !== 'expressInit')
      .map((s) => [s.kind, s.name])
    assert.deepEqual(shown(names.users), [...APP_MIDDLEWARE,
      ['handler', "auth('getUsers')"], ['handler', 'validate(userValidation.getUsers)'], ['handler', 'userController.getUsers']])
    assert.deepEqual(shown(names.user).slice(-3), [
      ['handler', "auth('getUsers')"], ['handler', 'validate(userValidation.getUser)'], ['handler', 'userController.getUser']])
    assert.deepEqual(shown(names.login).slice(-2), [['middleware', 'rateLimiter.authLimiter'], ['handler', 'authController.login']])
    assert.deepEqual(shown(names.logout).slice(-1), [['handler', 'authController.logout']])
    const statusLine = lineOf('app.js', 'catchAsync(async (req, res) =>')
    assert.deepEqual(shown(names.status).slice(-2), [
      ['handler', 'checkStatus'], ['handler', `<anonymous> ${path.relative(process.cwd(), path.join(SOURCE, 'app.js'))}:${statusLine}`]])

    // File and line: where the wrapped function is written, not the wrapper.
    const getUsers = names.users.find((s) => s.name === 'userController.getUsers')
    assert.equal(getUsers.file, path.join(SOURCE, 'controllers', 'user.controller.js'))
    assert.equal(getUsers.line, lineOf('controllers/user.controller.js', 'const getUsers = catchAsync('))
    assert.deepEqual(getUsers.aliases, ['getUsers'])
    const login = names.login.find((s) => s.name === 'authController.login')
    assert.equal(login.line, lineOf('controllers/auth.controller.js', 'const login = asyncHandler('))
    const auth = names.users.find((s) => s.name === "auth('getUsers')")
    assert.equal(auth.file, path.join(SOURCE, 'middlewares', 'auth.js'))
    assert.equal(auth.line, lineOf('middlewares/auth.js', 'const auth = (...requiredRights) =>'))
    assert.deepEqual(auth.aliases, ['auth'])
    const limiter = names.login.find((s) => s.name === 'rateLimiter.authLimiter')
    assert.deepEqual(limiter.aliases, ['authLimiter', 'rateLimit', 'express-rate-limit'])
    assert.match(limiter.file, /node_modules[\\/]express-rate-limit[\\/]/)
    assert.deepEqual(names.status.find((s) => s.name === 'checkStatus').aliases, [])
  })
}

test('names are the same in another process', () => {
  const script = `
    const express = require('express5')
    const { nodebenchTrace } = require('.')
    const { createApp } = require(${JSON.stringify(path.join(SOURCE, 'app.js'))})
    const { resolveNames, layerInfo } = require('./lib/function-names')
    const app = createApp(express, nodebenchTrace({ exporter: 'none' }))
    const stack = (app._router || app.router).stack
    const v1 = stack.find((layer) => layer.handle.stack && layer.handle.stack.length === 3).handle
    const users = v1.stack[1].handle.stack[0].route.stack.map((layer) => layerInfo('handler', layer.handle))
    resolveNames()
    process.stdout.write(JSON.stringify(users.map((info) => [info.name, info.aliases, info.line])))
  `
  const run = () => JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8' }))
  const first = run()
  assert.deepEqual(first.map(([name]) => name), ["auth('getUsers')", 'validate(userValidation.getUsers)', 'userController.getUsers'])
  assert.deepEqual(run(), first)
})

test('ES modules: an exported wrapped controller by its module and export, a factory exported as default', async () => {
  const { createApp: createEsmApp } = await import('./fixtures/api-boilerplate/esm/app.mjs')
  for (const express of [express4, express5]) {
    const trace = nodebenchTrace({ exporter: 'none' })
    const { base, close } = await listen(createEsmApp(express, trace))
    try {
      const headers = { 'x-rights': 'readItems,readItem' }
      assert.equal((await fetch(`${base}/items/`, { headers })).status, 200)
      assert.equal((await fetch(`${base}/items/7`, { headers })).status, 200)
      const byRoute = (route) => trace.breakdown().operations.find((o) => o.route === route).segments
        .filter((s) => s.name !== 'query' && s.name !== 'expressInit').map((s) => [s.name, s.aliases])
      assert.deepEqual(byRoute('/items/'), [["permit('readItems')", ['permit']], ['itemController.listItems', ['listItems']]])
      assert.deepEqual(byRoute('/items/:id'), [["permit('readItems', 'readItem')", ['permit']], ['itemController.showItem', ['showItem']]])
    } finally {
      await close()
      await trace.shutdown()
    }
  }
})

test('express-async-errors (Express 4): its wrappers seen through, routers and mounted apps timed inside, async controllers named', async () => {
  const { createApp: createAsyncErrorsApp } = loadExpress4AsyncErrorsApp()
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(createAsyncErrorsApp(trace))
  try {
    for (let i = 0; i < 3; i++) {
      assert.equal((await fetch(`${base}/items/`)).status, 200)
      assert.equal((await fetch(`${base}/items/7`)).status, 200)
      assert.equal((await fetch(`${base}/admin/stats`)).status, 200)
    }
    // A rejected async controller reaches the error handler through express-async-errors, as without nodebench.
    const missing = await fetch(`${base}/items/missing`)
    assert.deepEqual([missing.status, await missing.json()], [404, { message: 'no such item' }])
    const byRoute = (route) => trace.breakdown().operations.find((o) => o.route === route).segments
      .filter((s) => s.count >= 3 && !/^(query|expressInit)( #\d+)?$/.test(s.name)).map((s) => [s.kind, s.name])
    const controllers = path.join(EXPRESS4_ASYNC_ERRORS, 'app.js')
    assert.deepEqual(byRoute('/items/'), [['handler', 'listItems']])
    assert.deepEqual(byRoute('/items/:itemId'), [['param', 'loadItem (:itemId)'], ['handler', 'showItem']])
    const statsLine = require('node:fs').readFileSync(controllers, 'utf8').split('\n').findIndex((l) => l.includes("admin.get('/stats'")) + 1
    assert.deepEqual(byRoute('/admin/stats'), [['handler', `<anonymous> ${path.relative(process.cwd(), controllers)}:${statsLine}`]])
    const names = trace.breakdown().operations.flatMap((o) => o.segments.map((s) => s.name))
    assert.ok(!names.includes('newFn') && !names.includes('nodebenchTraceMiddleware') && !names.includes('router'), names.join(', '))
  } finally {
    await close()
    await trace.shutdown()
  }
})
