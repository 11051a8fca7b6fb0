'use strict'

// The runner's check that a test run leaves nothing running (leftover-processes.js), on real processes: a
// detached one carrying the run's mark, one with an environment of its own whose command line points into the
// checkout, and one that was running before the run.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { MARK, checkoutProcesses, leftoverProcesses, stopProcesses } = require('./leftover-processes')

const ROOT = path.join(__dirname, '..')
const IDLE = 'setInterval(() => {}, 1000)'

// Started outside the checkout: only what a process is given says where it belongs.
function idle (t, { env, args = [] }) {
  const child = spawn(process.execPath, ['-e', IDLE, ...args], { env, cwd: os.tmpdir(), detached: true, stdio: 'ignore' })
  child.unref()
  t.after(() => { try { process.kill(child.pid, 'SIGKILL') } catch {} })
  return child
}

test('a run\'s leftovers: marked ones, new ones pointing into the checkout; not what ran before; stopped', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const runId = `test-${process.pid}-${Date.now()}`
  const earlier = idle(t, { env: { PATH: process.env.PATH }, args: [path.join(ROOT, 'earlier')] })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const before = checkoutProcesses(ROOT)
  assert.ok([...before].some((id) => id.startsWith(`${earlier.pid}:`)), 'the earlier process points into the checkout')

  const marked = idle(t, { env: { ...process.env, [MARK]: runId } })
  const unmarked = idle(t, { env: { PATH: process.env.PATH }, args: [path.join(ROOT, 'packages', 'x.js')] })
  const elsewhere = idle(t, { env: { PATH: process.env.PATH } })
  await new Promise((resolve) => setTimeout(resolve, 200))

  const left = await leftoverProcesses({ runId, root: ROOT, before, graceMs: 0 })
  const pids = left.map((p) => p.pid)
  assert.ok(pids.includes(marked.pid), 'the marked process')
  assert.ok(pids.includes(unmarked.pid), 'the new process pointing into the checkout')
  assert.ok(!pids.includes(earlier.pid), 'not the one running before the run')
  assert.ok(!pids.includes(elsewhere.pid), 'not an unrelated one')
  assert.match(left.find((p) => p.pid === unmarked.pid).command, /-e setInterval.*packages[/\\]x\.js$/)

  await stopProcesses(left.filter((p) => [marked.pid, unmarked.pid].includes(p.pid)))
  assert.deepEqual((await leftoverProcesses({ runId, root: ROOT, before, graceMs: 0 })).filter((p) => [marked.pid, unmarked.pid].includes(p.pid)), [])
})

test('a leftover that finishes stopping within the grace period is not one', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const runId = `test-${process.pid}-${Date.now()}-grace`
  const before = checkoutProcesses(ROOT)
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 700)'], { env: { ...process.env, [MARK]: runId }, cwd: os.tmpdir(), stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 100))
  const mine = (list) => list.filter((p) => p.pid === child.pid)
  assert.equal(mine(await leftoverProcesses({ runId, root: ROOT, before, graceMs: 0 })).length, 1, 'there while it runs')
  assert.deepEqual(mine(await leftoverProcesses({ runId, root: ROOT, before, graceMs: 5000 })), [])
})
