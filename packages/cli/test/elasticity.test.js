'use strict'

// What bench makes of a run's failures and of its events, on figures made here: failure classes, the
// settling of throughput after an event, an added instance's first request and the resets at nginx's reload,
// a killed instance's last answer and what nginx retried elsewhere.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { analyzeEvents, settling } = require('../lib/bench/scale-out/elasticity')
const { LoadObserver, classifyError } = require('../lib/kernel/load-observer')
const { PROXY_ERROR_MARK } = require('@nodebench/services')

test('failures by class: socket errors, timeouts, nginx\'s own 5xx told from the app\'s, unexpected statuses', () => {
  assert.equal(classifyError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'connection refused')
  assert.equal(classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'connection reset')
  assert.equal(classifyError(new Error('request timed out')), 'timeout')
  assert.equal(classifyError(Object.assign(new Error('x'), { code: 'EMFILE' })), 'other error (EMFILE)')

  const observer = new LoadObserver({ expectedStatus: 200, proxied: true, timeline: true })
  observer.startedAt = performance.now()
  const answer = (status, body) => {
    observer.answerSeen(status, body, 200)
    observer.response(status, 1.5)
  }
  answer(200, '{}')
  answer(502, `<p>${PROXY_ERROR_MARK}</p>`)
  answer(503, '{"error":"The database is unreachable"}')
  answer(404, '{}')
  // A request that expects a 5xx or a 404 (a workload benching its error path): no failure.
  observer.answerSeen(404, '{}', 404)
  observer.response(404, 1.5)
  observer.failure('timeout')
  const { failures, failed, timeline } = observer.summary()
  assert.deepEqual(failures, { '5xx from nginx': 1, '5xx from the app': 1, 'unexpected status': 1, timeout: 1 })
  assert.equal(failed, 4)
  assert.deepEqual(timeline[0].failures, failures)
  assert.deepEqual([timeline[0].requests, timeline[0].ok], [5, 2])
  assert.ok(timeline[0].latencyMs.p50 >= 1.4 && timeline[0].latencyMs.p50 <= 1.6)
})

const second = (index, requests, failures = {}) => ({ second: index, requests, ok: requests, failures, latencyMs: null })

test('settling: the level of the window\'s second half, and the first second from which it holds', () => {
  const seconds = [second(5, 200), second(6, 700), second(7, 980), second(8, 1010), second(9, 1000), second(10, 995)]
  assert.deepEqual(settling(seconds, 5.2), { levelRequestsPerSec: 1000, settledAfterSec: 1.8 })
  assert.equal(settling([second(1, 10), second(2, 1000), second(3, 10), second(4, 1000)], 1).settledAfterSec, null,
    'a throughput that swings to the end never settled')
  assert.deepEqual(settling([second(1, 10)], 1), { levelRequestsPerSec: null, settledAfterSec: null })
})

test('events: an added instance\'s first request and resets at the reload; a killed one\'s last answer and retries', () => {
  const startedAtMs = 1_000_000
  const at = (sec) => startedAtMs + sec * 1000
  const timeline = Array.from({ length: 12 }, (_, i) => second(i, i < 4 ? 800 : i < 8 ? 1200 : 1000,
    i === 4 ? { 'connection reset': 1 } : {}))
  const events = [
    { type: 'add', atSec: 3, atMs: at(3), address: 'h:3', pid: 3, reloadedAtMs: at(4.2) },
    { type: 'kill', atSec: 8, atMs: at(8), address: 'h:1', pid: 1 }
  ]
  const traffic = [
    { time: at(1), status: 200, attempts: [{ address: 'h:1', status: 200 }] },
    { time: at(4.5), status: 200, attempts: [{ address: 'h:3', status: 200 }] },
    { time: at(7.9), status: 200, attempts: [{ address: 'h:1', status: 200 }] },
    { time: at(8.2), status: 200, attempts: [{ address: 'h:1', status: 502 }, { address: 'h:2', status: 200 }] },
    { time: at(8.3), status: 200, attempts: [{ address: 'h:1', status: null }, { address: 'h:3', status: 200 }] }
  ]
  const { events: analyzed, traffic: perInstance } = analyzeEvents({
    events, timeline, resetsAtSec: [4.4, 9.9], traffic, startedAtMs, elapsedSec: 11.5
  })
  const [add, kill] = analyzed
  assert.equal(add.firstServedAfterReloadSec, 0.3)
  assert.equal(add.served, 2)
  assert.equal(add.resetsAtReload, 1, 'the reset at 4.4 s, within a second of the reload at 4.2 s')
  assert.equal(add.beforeRequestsPerSec, 800)
  assert.deepEqual(add.failuresWithin5s, { 'connection reset': 1 })
  assert.equal(kill.lastServedSec, 7.9)
  assert.equal(kill.retriedElsewhere, 2)
  assert.equal(kill.levelRequestsPerSec, 1000)
  assert.deepEqual(perInstance.instances, [
    { address: 'h:1', served: 2, failedAttempts: 2 },
    { address: 'h:2', served: 1, failedAttempts: 0 },
    { address: 'h:3', served: 2, failedAttempts: 0 }
  ])
  assert.equal(perInstance.retried, 2)
})
