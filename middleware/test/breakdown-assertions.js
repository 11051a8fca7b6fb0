'use strict'

// Reading a breakdown snapshot in tests of what a segment waits on (dependencies, rendering): find an operation,
// a segment, one of its dependencies, and check the figures add up.

const assert = require('node:assert/strict')
const { setTimeout: sleep } = require('node:timers/promises')

/** The snapshot once `count` requests are in it (or after `timeoutMs`). */
async function recorded (trace, count, timeoutMs = 10000) {
  for (let waitedMs = 0; ; waitedMs += 10) {
    const snapshot = trace.breakdown()
    const total = snapshot.operations.reduce((sum, operation) => sum + operation.count, 0)
    if (total >= count || waitedMs >= timeoutMs) return snapshot
    await sleep(10)
  }
}

function operation (snapshot, route) {
  const found = snapshot.operations.find((op) => op.route === route)
  assert.ok(found, `operation ${route} in ${snapshot.operations.map((op) => op.route)}`)
  return found
}

function segment (op, name) {
  const found = op.segments.find((s) => s.name === name)
  assert.ok(found, `segment ${name} of ${op.route}: ${op.segments.map((s) => s.name)}`)
  return found
}

function dependency (seg, system, op, target) {
  const found = (seg.dependencies ?? []).find((d) => d.system === system && d.operation === op && d.target === target)
  assert.ok(found, `${system} ${op} ${target} under ${seg.name}: ${JSON.stringify(seg.dependencies)}`)
  return found
}

/** Shares sum to 1; no segment's dependencies add up to more than the segment. */
function assertConsistent (op) {
  const sum = op.segments.reduce((total, s) => total + s.share, op.unattributedShare)
  assert.ok(Math.abs(sum - 1) < 1e-9, `${op.route}: shares sum to ${sum}`)
  for (const s of op.segments) {
    if (s.dependencies === undefined) continue
    const waited = s.dependencies.reduce((total, d) => total + d.share, 0)
    assert.ok(waited <= s.share + 1e-9, `${op.route} ${s.name}: dependencies ${waited} > segment ${s.share}`)
    const waitedMs = s.dependencies.reduce((total, d) => total + d.meanMs, 0)
    assert.ok(waitedMs <= s.meanMs + 0.002, `${op.route} ${s.name}: dependencies ${waitedMs} ms > segment ${s.meanMs} ms`)
  }
}

module.exports = { recorded, operation, segment, dependency, assertConsistent }
