'use strict'

// The runner's check that a test run leaves nothing running (leftover-processes.js), on real processes: a
// detached one carrying the run's mark, one with an environment of its own whose command line points into the
// checkout, one that was running before the run, and one that such a process starts during the run.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { MARK, runningProcesses, leftoverProcesses, stopProcesses } = require('./leftover-processes')

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
  const before = runningProcesses()
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
  const before = runningProcesses()
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 700)'], { env: { ...process.env, [MARK]: runId }, cwd: os.tmpdir(), stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 100))
  const mine = (list) => list.filter((p) => p.pid === child.pid)
  assert.equal(mine(await leftoverProcesses({ runId, root: ROOT, before, graceMs: 0 })).length, 1, 'there while it runs')
  assert.deepEqual(mine(await leftoverProcesses({ runId, root: ROOT, before, graceMs: 5000 })), [])
})

test('a new process in the checkout that an earlier one started (a shell someone opened there) is not the run\'s', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const runId = `test-${process.pid}-${Date.now()}-other`
  const late = path.join(ROOT, 'packages', 'late.js')
  const starter = spawn(process.execPath, ['-e', `setTimeout(() => require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(IDLE)}, ${JSON.stringify(late)}], { stdio: 'ignore' }), 600); ${IDLE}`],
    { env: { PATH: process.env.PATH }, cwd: os.tmpdir(), detached: true, stdio: 'ignore' })
  starter.unref()
  t.after(() => { try { process.kill(-starter.pid, 'SIGKILL') } catch {} })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const before = runningProcesses()
  const started = () => fs.readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && readText(`/proc/${pid}/cmdline`).includes(late))
  for (let i = 0; i < 50 && !started(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.ok(started(), 'the earlier process started its child')
  const left = await leftoverProcesses({ runId, root: ROOT, before, graceMs: 0 })
  assert.deepEqual(left.filter((p) => p.command.includes(late)), [])
})

function readText (file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
