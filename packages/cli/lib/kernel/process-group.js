'use strict'

const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')

// A command nodebench starts and must never leave behind, whatever form starts it (a shell line with
// variables, `npm start`, a script, a server of nodebench's own): started as a process group of its own and
// stopped as a whole: SIGTERM to the group, a bounded grace, then SIGKILL to the group, with one line saying it
// did not stop by itself. A shell or npm in front of the app is what nodebench's child is; the app is its child
// and would outlive a signal sent to the shell alone. Descendants that left the group (setsid) are found by
// their parents, through /proc, when the stop begins, and go the same way.
// Every group that runs is known here: `stopProcessGroups` stops them all (the nodebench command does on
// SIGINT/SIGTERM and before it exits), and none survives this process's exit (SIGKILL from its 'exit' event,
// which also comes after an uncaught exception).

const DEFAULT_GRACE_MS = 5000
// After SIGKILL: how long to wait for the kernel to take the processes away before giving up on them.
const KILL_WAIT_MS = 5000
const POLL_MS = 50

const running = new Set()
let exitListener = null

/**
 * Every process as `{ pid, ppid, pgid, zombie }` from /proc, or null where there is none (not Linux).
 * /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
 */
function processTable () {
  let names
  try {
    names = fs.readdirSync('/proc')
  } catch {
    return null
  }
  const table = []
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    let stat
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue // gone while the table was read
    }
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3)
    table.push({ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid), zombie: state === 'Z' })
  }
  return table
}

/** The pids of `roots`' descendants in `table` (not the roots themselves). */
function descendantsOf (table, roots) {
  const children = new Map()
  for (const entry of table) {
    if (!children.has(entry.ppid)) children.set(entry.ppid, [])
    children.get(entry.ppid).push(entry.pid)
  }
  const found = new Set()
  const queue = [...roots]
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()) ?? []) {
      if (found.has(child)) continue
      found.add(child)
      queue.push(child)
    }
  }
  return found
}

function send (pid, name) {
  try {
    process.kill(pid, name)
  } catch {} // gone already (ESRCH), or never ours to signal (EPERM)
}

/**
 * The processes of `group` still running (zombies count as gone: they wait for a parent to reap them): the
 * members of its process group, the descendants it had when its stop began and theirs now. Where there is no
 * /proc, whether the group has any member left (`kill(-pgid, 0)`), as `[pgid]` or `[]`.
 */
function survivors (group) {
  const table = processTable()
  if (table === null) {
    const alive = (pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    return [...(group.pgid === null ? [] : [-group.pgid]), ...group.known].filter(alive)
  }
  refreshKnown(group, table)
  const running = (entry) => !entry.zombie && (entry.pgid === group.pgid || group.known.has(entry.pid))
  return table.filter(running).map((entry) => entry.pid)
}

function signalGroup (group, name) {
  if (group.pgid !== null) send(-group.pgid, name)
  // Those that left the group (and an adopted process's own): one by one.
  const table = processTable()
  if (table !== null) refreshKnown(group, table)
  for (const pid of group.known) send(pid, name)
}

/** The group's known processes as `table` has them: their descendants added, the gone dropped (pids are reused). */
function refreshKnown (group, table) {
  const present = new Set(table.map((entry) => entry.pid))
  for (const pid of group.known) if (!present.has(pid)) group.known.delete(pid)
  for (const pid of descendantsOf(table, group.known)) group.known.add(pid)
}

async function waitUntilGone (group, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (survivors(group).length === 0) return true
    if (Date.now() >= deadline) return false
    await sleep(POLL_MS)
  }
}

function killAllNow () {
  for (const group of running) signalGroup(group, 'SIGKILL')
}

function track (group) {
  running.add(group)
  if (exitListener === null) {
    exitListener = killAllNow
    process.on('exit', exitListener)
  }
}

function untrack (group) {
  running.delete(group)
  if (running.size === 0 && exitListener !== null) {
    process.removeListener('exit', exitListener)
    exitListener = null
  }
}

/**
 * Starts `file` with `args` (with `shell: true`, `file` is a shell line and `args` empty) as a process group of
 * its own. Returns `{ child, pid, exited(), stop(), kill() }`: `exited()` why the started process ended (a
 * signal, `code N` or a spawn error; null while it runs); `stop()` SIGTERM to the group, then SIGKILL once
 * `graceMs` have passed with any of its processes still running (`onForced(line)` hears the one line that says
 * so, `name` naming it there); resolves to `{ forced }` once none runs (the same promise however often called);
 * `kill()` SIGKILL to the group at once (a process dying abruptly). `spawnOptions`: node:child_process spawn's
 * (env, cwd, stdio, shell), `detached` always set.
 * @param {string} file
 * @param {string[]} args
 * @param {{ graceMs?: number, name?: string, onForced?: (line: string) => void }
 *   & import('node:child_process').SpawnOptions} options
 */
function startProcessGroup (file, args, options = {}) {
  const { graceMs = DEFAULT_GRACE_MS, name = `'${file}'`, onForced = defaultOnForced, ...spawnOptions } = options
  const child = spawn(file, args, { ...spawnOptions, detached: true })
  let exited = null
  child.once('exit', (code, signalName) => { exited = signalName || `code ${code}` })
  child.once('error', (err) => { exited = err.message })
  if (child.pid === undefined) {
    return { child, pid: null, exited: () => exited, stop: async () => ({ forced: false }), kill () {} }
  }
  // detached: its pid is its process group's id.
  const group = tracked({ pgid: child.pid, leader: child.pid, name, graceMs, onForced })
  // Gone by itself with nothing of its group left: nothing to stop.
  child.once('exit', () => { if (survivors(group).length === 0) untrack(group) })
  const stopGroup = group.stop
  const stop = async () => {
    const outcome = await stopGroup()
    // A process that escaped still holds the pipes: they must not keep this process alive.
    for (const stream of [child.stdout, child.stderr]) stream?.destroy()
    return outcome
  }
  group.stop = stop
  return { child, pid: child.pid, exited: () => exited, stop, kill: () => signalGroup(group, 'SIGKILL') }
}

/**
 * A process nodebench did not start as a group (a profiler's child, started by 0x) stopped and never left
 * behind as one: `pid` and its descendants. Returns `{ stop() }`, as startProcessGroup's.
 */
function adoptProcess (pid, { graceMs = DEFAULT_GRACE_MS, name = `process ${pid}`, onForced = defaultOnForced } = {}) {
  const group = tracked({ pgid: null, leader: pid, name, graceMs, onForced })
  return { stop: () => group.stop() }
}

function defaultOnForced (line) {
  process.stderr.write(`nodebench: ${line}\n`)
}

/** A group's record, known to stopProcessGroups and the exit listener until it is stopped. */
function tracked ({ pgid, leader, name, graceMs, onForced }) {
  const group = { pgid, known: new Set([leader]), stop: null }
  let stopping = null
  group.stop = () => (stopping ??= (async () => {
    let forced = false
    if (survivors(group).length > 0) {
      signalGroup(group, 'SIGTERM')
      if (!await waitUntilGone(group, graceMs)) {
        forced = true
        onForced(`${name} did not stop by itself within ${formatSeconds(graceMs)} of SIGTERM; its process group was killed (SIGKILL)`)
        signalGroup(group, 'SIGKILL')
        await waitUntilGone(group, KILL_WAIT_MS)
      }
    }
    untrack(group)
    return { forced }
  })())
  track(group)
  return group
}

/** Stops every process group that runs (stop()'s way, each with its own grace); resolves once all are gone. */
async function stopProcessGroups () {
  await Promise.all([...running].map((group) => group.stop()))
}

function formatSeconds (ms) {
  return `${Number((ms / 1000).toFixed(3))} s`
}

module.exports = { startProcessGroup, adoptProcess, stopProcessGroups, processTable, descendantsOf, DEFAULT_GRACE_MS }
