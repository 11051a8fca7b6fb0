'use strict'

// bench --baseline's checks before any load (compare/baseline.js), on a stored run of the shop workload
// (fixtures/compare-aa/a): the same workload, a cell in common, the same load on it; --fail-on only with it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { baselineOf } = require('../lib/compare/baseline')
const { commandOptions } = require('../lib/command-options')

const STORED = path.join(__dirname, 'fixtures', 'compare-aa', 'a')
const { usageError } = commandOptions('bench')

const config = (extra = {}) => ({
  workload: { name: 'shop' },
  connections: { 'item-read': 4, 'item-create': 2 },
  amounts: { 'item-read': 300, 'item-create': 100 },
  duration: null,
  ...extra
})
const cell = (scenario, extra = {}) => ({ scenario, format: 'json', processes: 1, topology: 'cluster', values: {}, ...extra })

test('bench --baseline: the stored run and --fail-on when it can be compared, one coded line when not', () => {
  assert.equal(baselineOf({}, config(), [], usageError), null)
  const { baseline, failOn } = baselineOf({ baseline: STORED, 'fail-on': '5' }, config(), [cell('item-read')], usageError)
  assert.equal(failOn, 5)
  assert.equal(baseline.file, path.join(STORED, 'results.json'))
  assert.equal(baseline.results.workload.name, 'shop')
  const fails = (values, cfg, cells, code, message) => assert.throws(() => baselineOf(values, cfg, cells, usageError),
    (err) => err.code === code && message.test(err.message))
  fails({ 'fail-on': '5' }, config(), [], 'NB_ERR_USAGE', /^bench: --fail-on goes with --baseline/)
  fails({ baseline: STORED, 'fail-on': 'x' }, config(), [], 'NB_ERR_USAGE', /--fail-on must be a percentage from 0 to 1000 \(e\.g\. 5\); received 'x'$/)
  fails({ baseline: STORED }, config({ workload: { name: 'other' } }), [cell('item-read')], 'NB_ERR_COMPARE_INPUT', /ran workload 'shop', this run 'other'/)
  fails({ baseline: STORED }, config(), [cell('item-read', { processes: 2 })], 'NB_ERR_COMPARE_INPUT', /measured no cell this run will/)
  fails({ baseline: STORED }, config({ connections: { 'item-read': 9 } }), [cell('item-read')], 'NB_ERR_COMPARE_INPUT',
    /sent item-read \(json\) 4 connections, 300 requests per repetition, this run would send 9 connections, 300 requests/)
})
