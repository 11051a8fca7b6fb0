'use strict'

const fs = require('node:fs')
const path = require('node:path')
const pidusage = require('pidusage')
const { round, mean } = require('./statistics')

// What each process of a run uses while the load runs: every process of the app (a node:cluster primary and
// its workers, the instances behind nginx), nginx's master and workers, Apache's prefork pool, the database and
// nodebench itself (the load generator shares the machine), sampled every second: CPU% (100 = one core busy, as
// top shows it) and resident memory. The same figures as the KIT study's Tables I and II (top every 2 s) and
// Paliwal's dstat. From /proc through pidusage; the process tree from `ps` through pidtree, read again at each
// sample, so children that come and go (prefork's pool, an instance added mid-run) are found.
//
// Roles: each root names its own (`app`, `nginx master`) and its descendants' (`childRole`: `app worker`,
// `nginx worker`) when they run the root's program (node:cluster workers, prefork children); a descendant that
// runs another program is named after it (`app: backend.js`, a back-end an app started; `app: ferretdb`). A root
// that is a shell (a --cmd app runs under `sh -c`) is named `<role> (shell)`, and what it runs takes the root's
// role. A process's first sample gives its memory only: pidusage's CPU% is the CPU
// time used between two reads of the same process. A busy load generator delays samples, so a process's mean
// CPU% weighs each reading by its interval: the share of the time it was on a core.

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash'])
const COMMAND_LENGTH = 160
// The last sample at stop() needs this long since the one before for a CPU% worth reading (10 ms clock ticks).
const MIN_FINAL_GAP_MS = 200

let pidtreeLoaded = null

/** pidtree is an ES module: loaded once, on first use. */
function loadPidtree () {
  pidtreeLoaded ??= import('pidtree').then((module) => module.default)
  return pidtreeLoaded
}

/** A process's command line (its arguments joined), or null when it is gone. */
function commandOf (pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
    return text.length > COMMAND_LENGTH ? `${text.slice(0, COMMAND_LENGTH - 1)}…` : text
  } catch {
    return null
  }
}

function isShell (command) {
  return command !== null && SHELLS.has(path.basename(command.split(' ')[0]))
}

// Node.js options followed by a value (`-r ./preload.js`), and those that run code given on the command line.
const NODE_OPTIONS_WITH_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--title'])
const NODE_EVAL = new Set(['-e', '--eval', '-p', '--print'])

/**
 * The program a command line runs: a Node.js script's name (`backend.js`) when the executable is Node.js
 * (`node -e` for code given inline), else the executable's (`ferretdb`); nginx's retitled processes
 * (`nginx: worker process`) are all `nginx:`.
 */
function programOf (command) {
  if (command === null) return null
  const [executable, ...args] = command.split(' ')
  const name = path.basename(executable)
  if (executable !== process.execPath && !/^node(js)?$/.test(name)) return name
  for (let i = 0; i < args.length; i++) {
    if (NODE_EVAL.has(args[i])) return `${name} ${args[i]}`
    if (NODE_OPTIONS_WITH_VALUE.has(args[i])) i++
    else if (!args[i].startsWith('-')) return path.basename(args[i])
  }
  return name
}

function stats (values) {
  const known = values.filter((value) => value !== null)
  if (known.length === 0) return { mean: null, max: null }
  return { mean: round(mean(known), 1), max: round(Math.max(...known), 1) }
}

/**
 * The mean of CPU% readings over intervals of different lengths (`weights`, ms: a busy event loop delays a
 * sample), weighted by them: the share of the time the process was on a core. The max is the busiest interval.
 */
function weightedStats (values, weights) {
  let busy = 0
  let total = 0
  let max = null
  values.forEach((value, i) => {
    if (value === null) return
    busy += value * weights[i]
    total += weights[i]
    max = max === null ? value : Math.max(max, value)
  })
  return total === 0 ? { mean: null, max: null } : { mean: round(busy / total, 1), max: round(max, 1) }
}

/**
 * Starts sampling the processes `roots()` names, every `intervalMs`, until `stop()`.
 * @param {object} options
 * @param {() => Array<{ pid: number|null, role: string, childRole?: string, descendants?: boolean }>} options.roots
 *   the run's processes, asked again at every sample: each root's own role, its descendants' (`childRole`,
 *   default `<role> child`), or none of its descendants (`descendants: false`: nodebench itself, whose
 *   children are the run's other processes)
 * @param {number} [options.intervalMs] default 1000
 * @returns {{ stop: () => Promise<object> }} `stop()` resolves to what results.json keeps: `{ intervalMs,
 *   durationSec, samples, processes: [{ pid, ppid, role, name, command, samples, cpuPercent: { mean, max },
 *   rssBytes: { mean, max } }], roles: [{ role, processes, cpuPercent, rssBytes }], timeline: [{ second, role,
 *   cpuPercent, rssBytes }], error }`. A role's figures are its processes' summed at each sample (memory summed
 *   counts pages they share once per process).
 */
function startProcessSampler ({ roots, intervalMs = 1000 }) {
  const startedAt = performance.now()
  const processes = new Map() // pid -> { pid, ppid, role, command, cpu: [], weights: [], rss: [], lastAt }
  const roleOrder = []
  const timeline = []
  // Each timeline point's interval since the sample before (ms), for its role's weighted mean.
  const weightOf = new WeakMap()
  let samples = 0
  let lastSampleAt = null
  let error = null
  let stopping = false
  let timer = null
  let inFlight = Promise.resolve()
  // After a pause, the next reading of each process gives its memory only (its CPU time since the last reading
  // spans the pause), and no role's point weighs.
  let resumed = false
  // The time spent paused (ms), and since when it is paused now (null: sampling).
  let pausedMs = 0
  let pausedAt = null

  /** The run's processes now, each with its role: `[{ pid, ppid, role }]`. */
  async function members () {
    const list = roots().filter((root) => Number.isInteger(root.pid) && root.pid > 0)
    const children = new Map()
    if (list.some((root) => root.descendants !== false)) {
      const pidtree = await loadPidtree()
      for (const { ppid, pid } of await pidtree(-1, { advanced: true })) {
        if (!children.has(ppid)) children.set(ppid, [])
        children.get(ppid).push(pid)
      }
    }
    const found = []
    const seen = new Set()
    const add = (pid, ppid, role) => {
      if (seen.has(pid)) return
      seen.add(pid)
      found.push({ pid, ppid, role })
    }
    const descendants = (pid, program, root) => {
      for (const child of children.get(pid) ?? []) {
        const own = programOf(known(child))
        add(child, pid, own === program || own === null ? root.childRole ?? `${root.role} child` : `${root.role}: ${own}`)
        descendants(child, program, root)
      }
    }
    const walk = (pid, ppid, root) => {
      const command = known(pid)
      const shell = isShell(command)
      add(pid, ppid, shell ? `${root.role} (shell)` : root.role)
      if (root.descendants === false) return
      if (shell) for (const child of children.get(pid) ?? []) walk(child, pid, root)
      else descendants(pid, programOf(command), root)
    }
    for (const root of list) walk(root.pid, null, root)
    return found
  }

  /** The command of a process seen before, else read now. */
  function known (pid) {
    return processes.has(pid) ? processes.get(pid).command : commandOf(pid)
  }

  async function sample () {
    const previousAt = resumed ? null : lastSampleAt
    const afterPause = resumed
    resumed = false
    lastSampleAt = performance.now()
    const now = await members()
    if (now.length === 0) return
    const usage = await new Promise((resolve) => {
      pidusage(now.map((member) => member.pid), { maxage: intervalMs * 3 }, (err, result) => resolve(err ? {} : result))
    })
    const at = performance.now()
    const second = round((at - startedAt) / 1000, 1)
    const byRole = new Map()
    for (const { pid, ppid, role } of now) {
      const figures = usage[pid]
      if (!figures) continue // gone between the tree and its figures
      let entry = processes.get(pid)
      const first = entry === undefined
      if (first) {
        entry = { pid, ppid, role, command: commandOf(pid), cpu: [], weights: [], rss: [], lastAt: at }
        processes.set(pid, entry)
        if (!roleOrder.includes(role)) roleOrder.push(role)
      }
      const cpu = first || afterPause ? null : figures.cpu
      entry.cpu.push(cpu)
      entry.weights.push(at - entry.lastAt)
      entry.lastAt = at
      entry.rss.push(figures.memory)
      const sum = byRole.get(role) ?? { cpu: null, rss: 0 }
      if (cpu !== null) sum.cpu = (sum.cpu ?? 0) + cpu
      sum.rss += figures.memory
      byRole.set(role, sum)
    }
    for (const [role, sum] of byRole) {
      timeline.push({ second, role, cpuPercent: sum.cpu === null ? null : round(sum.cpu, 1), rssBytes: sum.rss })
      weightOf.set(timeline[timeline.length - 1], previousAt === null ? 0 : at - previousAt)
    }
    samples++
  }

  function schedule () {
    if (stopping) return
    timer = setTimeout(() => {
      inFlight = sample().catch((err) => { error ??= err.message }).finally(schedule)
    }, intervalMs)
  }
  inFlight = sample().catch((err) => { error ??= err.message }).finally(schedule)

  function sampledMs () {
    const now = performance.now()
    return now - startedAt - pausedMs - (pausedAt === null ? 0 : now - pausedAt)
  }

  function summary () {
    const counts = new Map()
    for (const entry of processes.values()) counts.set(entry.role, (counts.get(entry.role) ?? 0) + 1)
    const index = new Map()
    const byRole = (a, b) => roleOrder.indexOf(a.role) - roleOrder.indexOf(b.role) || a.pid - b.pid
    const ordered = [...processes.values()].sort(byRole)
    return {
      intervalMs,
      // The time sampled: the pauses left out.
      durationSec: round(sampledMs() / 1000, 1),
      samples,
      processes: ordered.map((entry) => {
        index.set(entry.role, (index.get(entry.role) ?? 0) + 1)
        return {
          pid: entry.pid,
          ppid: entry.ppid,
          role: entry.role,
          name: counts.get(entry.role) > 1 ? `${entry.role} ${index.get(entry.role)}` : entry.role,
          command: entry.command,
          samples: entry.rss.length,
          cpuPercent: weightedStats(entry.cpu, entry.weights),
          rssBytes: roundBytes(stats(entry.rss))
        }
      }),
      roles: roleOrder.map((role) => {
        const points = timeline.filter((point) => point.role === role)
        const weights = points.map((point) => weightOf.get(point) ?? 0)
        return {
          role,
          processes: counts.get(role),
          cpuPercent: weightedStats(points.map((point) => point.cpuPercent), weights),
          rssBytes: roundBytes(stats(points.map((point) => point.rssBytes)))
        }
      }),
      timeline,
      error
    }
  }

  /** Stops the timer: after the sample under way, if any, and one more (unless one was just taken). */
  async function halt () {
    stopping = true
    clearTimeout(timer)
    await inFlight
    if (lastSampleAt !== null && performance.now() - lastSampleAt >= MIN_FINAL_GAP_MS) {
      await sample().catch((err) => { error ??= err.message })
    }
  }

  return {
    /**
     * Stops sampling and resolves to the figures: after the sample under way, if any, and one more at the end
     * (unless one was just taken), so that a run shorter than the interval still has each process's CPU%.
     */
    async stop () {
      if (!stopping) await halt()
      return summary()
    },
    /**
     * Pauses sampling until resume(), the last interval read first: the processes' time meanwhile (another
     * server's load on the same machine) counts in none of the figures.
     */
    async pause () {
      if (stopping) return
      await halt()
      pausedAt = performance.now()
    },
    /** Samples again from now on: each process's first reading gives its memory only, as at the start. */
    resume () {
      if (!stopping || pausedAt === null) return
      stopping = false
      pausedMs += performance.now() - pausedAt
      pausedAt = null
      resumed = true
      inFlight = sample().catch((err) => { error ??= err.message }).finally(schedule)
    }
  }
}

function roundBytes ({ mean, max }) {
  return { mean: mean === null ? null : Math.round(mean), max: max === null ? null : Math.round(max) }
}

module.exports = { startProcessSampler }
