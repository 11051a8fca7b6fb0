'use strict'

// A workload's `dominant` names a segment by its name, one of its aliases (the plain function's name, its
// factory's) or a plain form of its name; the terminal's owner list shows every scenario.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { findNamed, isNamed, plainForms } = require('../lib/bench/owners/dominant')
const { renderOwners } = require('../lib/bench/owners/text')

const segment = (name, share, aliases = []) => ({ name, kind: 'handler', share, aliases })

// The segments of `GET /v1/users` in an app written as node-express-boilerplate is (@nodebench/trace's names).
const users = {
  method: 'GET',
  route: '/v1/users/',
  format: 'json',
  segments: [
    segment('rateLimiter.authLimiter', 0.01, ['authLimiter', 'rateLimit', 'express-rate-limit']),
    segment("auth('getUsers')", 0.42, ['auth']),
    segment('validate(userValidation.getUsers)', 0.01, ['validate']),
    segment('userController.getUsers', 0.56, ['getUsers'])
  ]
}

test('dominant matches the name, an alias, or a plain form of the name', () => {
  assert.equal(findNamed(users, 'userController.getUsers').name, 'userController.getUsers')
  assert.equal(findNamed(users, 'getUsers').name, 'userController.getUsers')
  assert.equal(findNamed(users, 'authLimiter').name, 'rateLimiter.authLimiter')
  assert.equal(findNamed(users, 'rateLimit').name, 'rateLimiter.authLimiter')
  assert.equal(findNamed(users, "auth('getUsers')").name, "auth('getUsers')")
  assert.equal(findNamed(users, 'auth').name, "auth('getUsers')")
  assert.equal(findNamed(users, 'catchAsync'), null)
  // Names only (a breakdown read back from Prometheus): the plain forms still match.
  const bare = { segments: users.segments.map(({ name, share }) => ({ name, share })) }
  assert.equal(findNamed(bare, 'getUsers').name, 'userController.getUsers')
  assert.equal(findNamed(bare, 'validate').name, 'validate(userValidation.getUsers)')
  assert.ok(isNamed(users.segments[3], 'getUsers'))
  assert.ok(!isNamed(users.segments[3], 'userController'))
})

test('among segments that match alike, the one with the largest share; an exact name before an alias', () => {
  const passport = { segments: [segment("authenticate('session')", 0.1), segment("authenticate('jwt')", 0.3), segment('authenticate', 0.05)] }
  assert.equal(findNamed(passport, 'authenticate').name, 'authenticate')
  passport.segments.pop()
  assert.equal(findNamed(passport, 'authenticate').name, "authenticate('jwt')")
  assert.deepEqual(plainForms('findBook (:isbn) #2'), ['findBook'])
  assert.deepEqual(plainForms('stampLayer #2'), ['stampLayer'])
})

test('the owner list shows every scenario: those that name a dominant function and those that do not', () => {
  const breakdown = { operations: [users, { method: 'POST', route: '/v1/auth/login', format: 'json', segments: [segment('authController.login', 0.9, ['login'])] }] }
  const cell = (scenario, route, method) => ({
    scenario, format: 'json', processes: 1, status: 'ok', topology: 'cluster', breakdown, operation: { method, route, format: 'json' }
  })
  const text = renderOwners({
    workload: { scenarios: { users: { label: 'user list', dominant: 'getUsers' }, login: { label: 'login' } } },
    cells: [cell('users', '/v1/users/', 'GET'), cell('login', '/v1/auth/login', 'POST')]
  })
  const lines = text.trim().split('\n')
  assert.equal(lines.length, 3, text)
  assert.match(lines[1], /user list \(json\) +getUsers \(userController\.getUsers\) +56\.00% +same function/)
  assert.match(lines[2], /login \(json\) +authController\.login +90\.00% +the largest share/)
  assert.doesNotMatch(text, /not seen/)
  // Names longer than the usual column still leave the shares in one column.
  const shareColumns = lines.slice(1).map((line) => line.search(/\d+\.\d\d%/) + line.match(/\d+\.\d\d%/)[0].length)
  assert.equal(new Set(shareColumns).size, 1, text)
})
