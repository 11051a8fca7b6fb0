'use strict'

// The process sampler against real processes: a node:cluster primary and its workers found from the primary's
// pid and named by role, one worker busy and one holding memory told apart, a root run through a shell, a
// process that ends while it is sampled, nodebench itself without its children, and a run shorter than the
// sampling interval.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startProcessSampler } = require('../lib/kernel/process-sampler')

const CLUSTER = path.join(__dirname, 'fixtures', 'processes', 'cluster-load.js')
const WITH_HELPER = path.join(__dirname, 'fixtures', 'processes', 'with-helper.js')
const MiB = 1024 ** 2

/** Starts `command` (argv, or a shell line) and resolves once it prints `ready`; stopped when `t` ends. */
function started (t, argv, { shell = false } = {}) {
  const child = shell
    ? spawn(argv, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => {
    try {
      if (shell) process.kill(-child.pid, 'SIGTERM')
      else child.kill('SIGTERM')
    } catch {}
  })
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => { if (String(chunk).includes('ready')) resolve(child) })
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code}) before it was ready`)))
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

test('a cluster: the primary and each worker by role, the busy worker\'s CPU and the other\'s memory; nodebench without its children', { timeout: 60_000 }, async (t) => {
  const primary = await started(t, [process.execPath, CLUSTER])
  const sampler = startProcessSampler({
    roots: () => [{ pid: primary.pid, role: 'app', childRole: 'app worker' }, { pid: process.pid, role: 'nodebench', descendants: false }],
    intervalMs: 500
  })
  await sleep(3000)
  const usage = await sampler.stop()
  assert.equal(usage.error, null)
  assert.equal(usage.intervalMs, 500)
  assert.ok(usage.samples >= 4, `${usage.samples} samples in 3 s`)
  assert.deepEqual(usage.roles.map((role) => [role.role, role.processes]), [['app', 1], ['app worker', 2], ['nodebench', 1]])
  const byName = Object.fromEntries(usage.processes.map((process) => [process.name, process]))
  assert.deepEqual(Object.keys(byName), ['app', 'app worker 1', 'app worker 2', 'nodebench'])
  assert.equal(byName.app.pid, primary.pid)
  assert.equal(byName.nodebench.pid, process.pid)
  for (const worker of [byName['app worker 1'], byName['app worker 2']]) assert.equal(worker.ppid, primary.pid)
  // Which worker spins and which holds memory is up to the order they were forked in: told by their figures. A
  // spinning process has a core to itself only on an idle machine: on a loaded one (the tests' two shared
  // cores), a share of one.
  const [busy, holding] = [byName['app worker 1'], byName['app worker 2']].sort((a, b) => b.cpuPercent.mean - a.cpuPercent.mean)
  assert.ok(busy.cpuPercent.mean >= 10 && busy.cpuPercent.mean > holding.cpuPercent.mean + 8,
    `busy worker ${busy.cpuPercent.mean}% against ${holding.cpuPercent.mean}%`)
  assert.ok(busy.cpuPercent.max >= busy.cpuPercent.mean)
  assert.ok(holding.rssBytes.mean > busy.rssBytes.mean + 64 * MiB, `holding ${holding.rssBytes.mean / MiB} MiB against ${busy.rssBytes.mean / MiB} MiB`)
  assert.match(byName.app.command, /cluster-load\.js$/)
  // A role's figures are its processes' summed at each sample.
  const workers = usage.roles.find((role) => role.role === 'app worker')
  assert.ok(workers.rssBytes.max >= holding.rssBytes.mean, 'the workers\' memory summed')
  assert.ok(usage.timeline.some((point) => point.role === 'app worker' && point.cpuPercent > 5))
  // The first sample of a process gives its memory only.
  assert.ok(usage.timeline.filter((point) => point.role === 'app')[0].cpuPercent === null)
})

test('a root run through a shell: the shell by name, what it runs in the root\'s role; a process that ends while sampled keeps its figures', { timeout: 60_000 }, async (t) => {
  const shell = await started(t, `"${process.execPath}" "${CLUSTER}"; sleep 5`, { shell: true })
  const sampler = startProcessSampler({ roots: () => [{ pid: shell.pid, role: 'app', childRole: 'app worker' }], intervalMs: 400 })
  await sleep(1500)
  const [primaryPid] = require('node:fs').readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').trim().split(' ').map(Number)
  process.kill(primaryPid, 'SIGTERM')
  await sleep(1200)
  const usage = await sampler.stop()
  assert.equal(usage.error, null)
  const roles = usage.processes.map((process) => process.role)
  assert.deepEqual([...new Set(roles)], ['app (shell)', 'app', 'app worker'])
  const primary = usage.processes.find((process) => process.role === 'app')
  assert.equal(primary.pid, primaryPid)
  assert.equal(primary.ppid, shell.pid)
  const shellEntry = usage.processes.find((process) => process.role === 'app (shell)')
  assert.ok(shellEntry.samples > primary.samples, `the shell outlived the app: ${shellEntry.samples} samples against ${primary.samples}`)
  assert.ok(primary.samples >= 2 && primary.rssBytes.mean > 10 * MiB)
})

test('a run shorter than the interval still has each process\'s CPU; roots without a process are left out', { timeout: 30_000 }, async (t) => {
  const primary = await started(t, [process.execPath, CLUSTER])
  const sampler = startProcessSampler({ roots: () => [{ pid: primary.pid, role: 'app', childRole: 'app worker' }, { pid: null, role: 'app at --url' }] })
  await sleep(600)
  const usage = await sampler.stop()
  assert.equal(usage.samples, 2, 'one at the start, one at the end')
  assert.ok(usage.processes.every((process) => process.cpuPercent.mean !== null), JSON.stringify(usage.processes))
  assert.ok(!usage.roles.some((role) => role.role === 'app at --url'))
})

test('a child that runs another program than its root is named after it; cluster workers by the root\'s child role', { timeout: 30_000 }, async (t) => {
  const app = await started(t, [process.execPath, WITH_HELPER])
  const sampler = startProcessSampler({ roots: () => [{ pid: app.pid, role: 'app', childRole: 'app worker' }], intervalMs: 300 })
  await sleep(700)
  const usage = await sampler.stop()
  assert.deepEqual(usage.processes.map((process) => process.name).sort(), ['app', 'app worker', 'app: idle-helper.js', 'app: node -e'])
})

test('paused, the sampler counts none of what the processes did meanwhile: their CPU, nor the time', { timeout: 60_000 }, async () => {
  // nodebench's own process, idle while sampled and busy only while the sampler is paused (bench's interleaved
  // cells: another server's repetition runs then).
  // The pause shorter than what pidusage remembers of a process (3 intervals), as a repetition of a few seconds.
  const sampler = startProcessSampler({ roots: () => [{ pid: process.pid, role: 'nodebench', descendants: false }], intervalMs: 1000 })
  await sleep(2100)
  await sampler.pause()
  const busyUntil = process.cpuUsage().user + 1_000_000
  while (process.cpuUsage().user < busyUntil) Math.sqrt(Math.random())
  sampler.resume()
  await sleep(2100)
  const usage = await sampler.stop()
  assert.equal(usage.error, null)
  const [own] = usage.processes
  // 1 s of CPU within the pause: counted, it would be a reading near 100% (at least its share of a core).
  assert.ok(own.cpuPercent.max < 30, `an idle process read at ${own.cpuPercent.max}% (${JSON.stringify(usage.timeline)})`)
  assert.ok(usage.durationSec < 5, `${usage.durationSec} s sampled of about 4.2`)
  assert.ok(own.samples >= 5, `${own.samples} samples`)
})
