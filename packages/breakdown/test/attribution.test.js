'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { attributeCalls, BreakdownAggregator } = require('..')

const FIND = { key: 'mongodb find users', system: 'mongodb', operation: 'find', target: 'users' }
const COUNT = { key: 'mongodb count users', system: 'mongodb', operation: 'count', target: 'users' }
const JSON_CALL = { key: 'serialize json', system: 'serialize', operation: 'json', target: '' }
const info = (name) => ({ key: `middleware ${name} app.js:1`, name, kind: 'middleware', file: '/app/app.js', line: 1 })
const AUTH = info('auth')
const LIST = info('listUsers')

/** A finished record of two segments (0: 0-10 ms, 1: 10-40 ms) and `calls` [dependency, segment, start, end]. */
function recordOf (calls) {
  const segments = [[AUTH, 0, 10], [LIST, 10, 40]]
  return {
    method: 'GET',
    route: '/users',
    format: 'json',
    responseTimeMs: 40,
    errored: false,
    aborted: false,
    segmentCount: segments.length,
    segmentInfo: (i) => segments[i][0],
    segmentDurationMs: (i) => segments[i][2] - segments[i][1],
    entryStart: (i) => segments[i][1],
    entryEnd: (i) => segments[i][2],
    dependencyCalls: calls.length === 0 ? null : calls.map(([dependency, segment, startMs, endMs]) => ({ dependency, segment, startMs, endMs })),
    dependencyTimes (into) {
      return attributeCalls(this, into)
    }
  }
}

const rows = (times) => {
  const out = []
  for (let at = 0; at < times.length; at += 4) out.push([times[at], times[at + 1].key, times[at + 2], times[at + 3]])
  return out
}

test('dependency times written into an array a former request used hold the request\'s own, nothing of the former', () => {
  const into = []
  const three = recordOf([[FIND, 0, 2, 4], [FIND, 1, 11, 21], [COUNT, 1, 15, 25], [JSON_CALL, 1, 30, 31]])
  const expected = [
    [0, 'mongodb find users', 1, 2],
    [1, 'mongodb find users', 1, 4 + 3],
    [1, 'mongodb count users', 1, 3 + 4],
    [1, 'serialize json', 1, 1]
  ]
  assert.equal(attributeCalls(three, into), into)
  assert.deepEqual(rows(into), expected)
  // Shorter than the former: cut to its own length.
  assert.deepEqual(rows(attributeCalls(recordOf([[JSON_CALL, 1, 32, 33]]), into)), [[1, 'serialize json', 1, 1]])
  assert.equal(into.length, 4)
  // Longer again, and the same as a fresh array's.
  assert.deepEqual(rows(attributeCalls(three, into)), expected)
  assert.deepEqual(rows(attributeCalls(three)), expected)
  assert.deepEqual(attributeCalls(recordOf([]), into), [])
})

test('the aggregator\'s dependency times of one request do not carry into the next one\'s', () => {
  const aggregator = new BreakdownAggregator({ service: 'svc' })
  const record = (request) => {
    aggregator.recordRequest(request)
    if (request.dependencyCalls !== null) aggregator.recordDependencies(request)
  }
  record(recordOf([[FIND, 0, 2, 4], [COUNT, 1, 11, 21], [JSON_CALL, 1, 30, 31]]))
  record(recordOf([[JSON_CALL, 1, 30, 32]]))
  record(recordOf([]))
  const [operation] = aggregator.snapshot().operations
  const [auth, list] = operation.segments
  assert.deepEqual(auth.dependencies.map((d) => [d.operation, d.count, d.totalMs]), [['find', 0.333, 2]])
  assert.deepEqual(list.dependencies.map((d) => [d.operation, d.count, d.totalMs]), [['count', 0.333, 10], ['json', 0.667, 3]])
})
