'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { parseArguments } = require('..')

const VALID = [
  [[], { command: 'help' }],
  [['help'], { command: 'help' }],
  [['--help'], { command: 'help' }],
  [['services', 'start', '-h'], { command: 'help' }],
  [['services', 'start', 'db'], { command: 'services', action: 'start', services: ['db'] }],
  [['services', 'start'], { command: 'services', action: 'start', services: ['db', 'jaeger'] }],
  [['services', 'stop', 'db'], { command: 'services', action: 'stop', services: ['db'] }],
  [['services', 'status'], { command: 'services', action: 'status', services: ['db', 'jaeger'] }]
]

for (const [argv, expected] of VALID) {
  test(`parseArguments(${JSON.stringify(argv)})`, () => {
    assert.deepEqual(parseArguments(argv), expected)
  })
}

const INVALID = [
  [['frobnicate'], /^unknown command 'frobnicate'; expected bench, demo, flame, report, services or help$/],
  [['services'], /^services: missing action; expected one of start, stop, status$/],
  [['services', 'restart'], /^services: unknown action 'restart'; expected one of start, stop, status$/],
  [['services', 'start', 'foo'], /^unknown service 'foo'; expected one of db, jaeger$/],
  [['services', 'start', 'db', 'extra'], /^services start: unexpected 'extra'; expected at most one service name$/],
  [['services', 'status', '--verbose'], /^unknown option '--verbose'; expected --help$/],
  [['--help=yes'], /--help/]
]

for (const [argv, message] of INVALID) {
  test(`parseArguments(${JSON.stringify(argv)}) throws NB_ERR_USAGE`, () => {
    assert.throws(() => parseArguments(argv), (err) => {
      assert.equal(err.code, 'NB_ERR_USAGE')
      assert.match(err.message, message)
      return true
    })
  })
}
