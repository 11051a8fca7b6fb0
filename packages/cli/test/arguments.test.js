'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { parseArguments } = require('..')

const VALID = [
  [[], { command: 'help' }],
  [['help'], { command: 'help' }],
  [['--help'], { command: 'help' }],
  [['--version'], { command: 'version' }],
  [['-v'], { command: 'version' }],
  [['services', 'start', '-h'], { command: 'help' }],
  [['services', 'start', 'prometheus', '--help'], { command: 'help' }],
  [['services', 'start', 'db'], { command: 'services', action: 'start', services: ['db'], settings: {} }],
  [['services', 'start', 'db', '--database', 'shop'], { command: 'services', action: 'start', services: ['db'], settings: { database: 'shop' } }],
  [['services', 'start'], { command: 'services', action: 'start', services: ['db', 'jaeger', 'prometheus'], settings: {} }],
  [['services', 'start', 'prometheus', '--target', '127.0.0.1:9464', '--target', 'h:3000/m', '--scrape-interval', '2s'], {
    command: 'services',
    action: 'start',
    services: ['prometheus'],
    settings: { targets: [{ address: '127.0.0.1:9464', path: '/metrics' }, { address: 'h:3000', path: '/m' }], scrapeIntervalMs: 2000 }
  }],
  [['services', 'stop', 'db'], { command: 'services', action: 'stop', services: ['db'], settings: {} }],
  [['services', 'status'], { command: 'services', action: 'status', services: ['db', 'jaeger', 'prometheus'], settings: {} }]
]

for (const [argv, expected] of VALID) {
  test(`parseArguments(${JSON.stringify(argv)})`, () => {
    assert.deepEqual(parseArguments(argv), expected)
  })
}

const INVALID = [
  [['frobnicate'], /^unknown command 'frobnicate'; expected bench, browser, compare, demo, flame, report, services or help$/],
  [['services'], /^services: missing action; expected one of start, stop, status$/],
  [['services', 'restart'], /^services: unknown action 'restart'; expected one of start, stop, status$/],
  [['services', 'start', 'foo'], /^unknown service 'foo'; expected one of db, jaeger, prometheus$/],
  [['services', 'start', 'db', 'extra'], /^services start: unexpected 'extra'; expected at most one service name$/],
  [['services', 'status', '--verbose'], /^services status: unknown option '--verbose'; expected --help$/],
  [['services', 'start', 'db', '--target', 'a:1'], /^services start db: unknown option '--target'; expected --database, --help$/],
  [['services', 'start', 'prometheus', '--targets', 'a:1'], /^services start prometheus: unknown option '--targets'; did you mean '--target'\?$/],
  [['services', 'start', 'prometheus', '--scrape', 'a:1'], /^services start prometheus: unknown option '--scrape'; expected --target, --targets-file, --scrape-interval, --help$/],
  [['bnech'], /^unknown command 'bnech'; did you mean 'bench'\? expected bench, browser/],
  [['--hlep'], /^unknown option '--hlep'; did you mean '--help'\?$/],
  [['bench', '--conections', '3'], /^bench: unknown option '--conections'; did you mean '--connections'\?$/],
  [['bench', '--durtaion', '3'], /^bench: unknown option '--durtaion'; did you mean '--duration'\?$/],
  [['bench', '--bogus'], /^bench: unknown option '--bogus'$/],
  [['flame', '--scenaro', 'x'], /^flame: unknown option '--scenaro'; did you mean '--scenario'\?$/],
  [['browser', '--page', 'home'], /^browser: unknown option '--page'; did you mean '--pages'\?$/],
  [['report', '--servce', 'x'], /^report: unknown option '--servce'; did you mean '--service'\?$/],
  [['demo', '--outt', 'x'], /^demo: unknown option '--outt'; did you mean '--out'\?$/],
  [['services', 'start', 'prometheus', '--scrape-interval', 'often'], /^--scrape-interval "often" is not a duration from 100ms to 5m/],
  [['--help=yes'], /--help/],
  [['-q'], /^unknown option '-q'; expected --help or --version$/],
  [['bench', '-q'], /^bench: unknown option '-q'$/, 'a one-letter flag is one edit from -h: no guess']
]

test('closest: the one known word a single edit away (a swap of neighbours included), else none', () => {
  const { closest } = require('../lib/suggest')
  assert.equal(closest('--conections', ['--connections', '--duration']), '--connections')
  assert.equal(closest('--durtaion', ['--connections', '--duration']), '--duration')
  assert.equal(closest('--durations', ['--connections', '--duration']), '--duration')
  assert.equal(closest('--dration', ['--duration']), '--duration')
  assert.equal(closest('--drtion', ['--duration']), null, 'two edits away')
  assert.equal(closest('--form', ['--format', '--formats']), null)
  assert.equal(closest('--rep', ['--reps', '--rex']), null, 'two candidates: no guess')
  assert.equal(closest('--reps', ['--reps']), null, 'the same word is not a suggestion')
  assert.equal(closest('-q', ['-h', '--help']), null, 'a one-letter flag is one edit from any other')
})

for (const [argv, message] of INVALID) {
  test(`parseArguments(${JSON.stringify(argv)}) throws NB_ERR_USAGE`, () => {
    assert.throws(() => parseArguments(argv), (err) => {
      assert.equal(err.code, 'NB_ERR_USAGE')
      assert.match(err.message, message)
      return true
    })
  })
}
