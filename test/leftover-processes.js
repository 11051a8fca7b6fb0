'use strict'

// A test run must end with nothing it started still running: a service a test started and did not stop (a
// Prometheus whose state folder was removed before `services stop` could read it), a database, a browser.
// What a run started is told two ways, since a detached service leaves the run's process tree at once:
// - every process that inherited the run's mark, an environment variable the runner gives the tests
//   (/proc/<pid>/environ keeps the environment a process was started with);
// - every process that was not running before the run, whose command line or working directory is in the
//   checkout (a child started with an environment of its own), and whose parents up to init or the runner are
//   all new too: a shell or an editor someone else started in the checkout during the run is not the run's.
// Linux's /proc only; elsewhere nothing is found.

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')

const MARK = 'NODEBENCH_TEST_RUN'

function read (file) {
  try {
    return fs.readFileSync(file)
  } catch {
    return null
  }
}

/** Every process this user may read: `{ pid, ppid, started, command, cwd, environ }` (`started`: clock ticks since boot). */
function processes () {
  let entries = []
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return []
  }
  const found = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    const stat = read(`/proc/${pid}/stat`)
    const cmdline = read(`/proc/${pid}/cmdline`)
    if (stat === null || cmdline === null) continue
    const statText = stat.toString('utf8')
    const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ')
    // A zombie has exited: its parent has not reaped it yet, and it holds nothing.
    if (fields[0] === 'Z') continue
    let cwd = null
    try {
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
    } catch {}
    const environ = read(`/proc/${pid}/environ`)
    found.push({
      pid,
      ppid: Number(fields[1]),
      started: Number(fields[19]),
      command: cmdline.toString('utf8').split('\0').filter(Boolean).join(' '),
      cwd,
      environ: environ === null ? '' : environ.toString('utf8')
    })
  }
  return found
}

function inside (root, text) {
  return text !== null && (text === root || text.includes(root + path.sep))
}

const identity = (p) => `${p.pid}:${p.started}`

/** The processes running now (their identities: pid and start time), for leftoverProcesses' `before`. */
function runningProcesses () {
  return new Set(processes().map(identity))
}

/** Whether every parent of `p` up to init (or `runner`) is new since `before`: whether the run can have started it. */
function startedSince (p, byPid, before, runner) {
  const seen = new Set()
  for (let parent = byPid.get(p.ppid); ; parent = byPid.get(parent.ppid)) {
    if (parent === undefined || parent.pid <= 1 || parent.pid === runner) return true
    if (before.has(identity(parent)) || seen.has(parent.pid)) return false
    seen.add(parent.pid)
  }
}

/**
 * The processes run `runId` left behind: marked with it, or new since `before` (runningProcesses'), pointing
 * into `root` and started by the run (startedSince: by this process, or orphaned to init). Waits up to `graceMs` for them to exit by themselves (a server finishing its stop).
 * Resolves to `[{ pid, command }]`.
 */
async function leftoverProcesses ({ runId, root, before = new Set(), graceMs = 5000, exclude = [process.pid] }) {
  const mark = `${MARK}=${runId}`
  const deadline = Date.now() + graceMs
  for (;;) {
    const now = processes()
    const byPid = new Map(now.map((p) => [p.pid, p]))
    const left = now.filter((p) => !exclude.includes(p.pid) && (
      p.environ.split('\0').includes(mark) ||
      (!before.has(identity(p)) && (inside(root, p.command) || inside(root, p.cwd)) && startedSince(p, byPid, before, process.pid))))
    if (left.length === 0 || Date.now() >= deadline) return left.map(({ pid, command }) => ({ pid, command }))
    await sleep(250)
  }
}

/** SIGTERM to each, SIGKILL to those still there after `graceMs`; resolves when they are gone. */
async function stopProcesses (list, { graceMs = 5000 } = {}) {
  const alive = (pid) => {
    try {
      process.kill(pid, 0)
      return !/^\S+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
    } catch {
      return false
    }
  }
  const signal = (pid, name) => {
    try {
      process.kill(pid, name)
    } catch {}
  }
  for (const { pid } of list) signal(pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (list.some(({ pid }) => alive(pid)) && Date.now() < deadline) await sleep(100)
  for (const { pid } of list) if (alive(pid)) signal(pid, 'SIGKILL')
}

module.exports = { MARK, runningProcesses, leftoverProcesses, stopProcesses }
