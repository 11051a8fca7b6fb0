'use strict'

// What cpu-split.js reads of an app's run: its threads' CPU from /proc by kind, its main thread's .cpuprofile
// split by code and scaled to that thread's CPU, and V8's --trace-deopt lines counted.

const fs = require('node:fs')
const path = require('node:path')

const THREAD_KINDS = Object.freeze(['main', 'v8', 'libuv', 'other', 'exited'])
const PROFILE_GROUPS = Object.freeze([
  'gc', 'nodebench', 'packages', 'benchmark', 'node', 'native', 'program', 'idle'
])

/** The kind of a thread by its name (comm); the process's own thread is the main one. */
function threadKind (name, isMain) {
  if (isMain) return 'main'
  if (/^V8/.test(name) || name === 'node') return 'v8'
  if (/^libuv-worker/.test(name)) return 'libuv'
  return 'other'
}

const ticksPerSecond = 100 // USER_HZ: Linux reports /proc times in 1/100 s on every architecture it runs on.

/** user and system seconds of a /proc stat line (fields 14 and 15), and its minor and major page faults (10, 12). */
function statTimes (stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {
    user: Number(fields[11]) / ticksPerSecond,
    system: Number(fields[12]) / ticksPerSecond,
    minorFaults: Number(fields[7]),
    majorFaults: Number(fields[9])
  }
}

/** The process's page faults between two readThreads (all threads, exited ones too). */
function faultsBetween (before, after) {
  return {
    minor: after.total.minorFaults - before.total.minorFaults,
    major: after.total.majorFaults - before.total.majorFaults
  }
}

/**
 * A process's CPU now: its total (threads that exited included), and each live thread's, by thread id, with its
 * name. null when /proc cannot be read.
 */
function readThreads (pid) {
  try {
    const total = statTimes(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
    const threads = new Map()
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
        threads.set(tid, { name, ...statTimes(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) })
      } catch {
        // The thread exited between the listing and the read: its time is in the total, counted as exited.
      }
    }
    return { pid: String(pid), total, threads }
  } catch {
    return null
  }
}

/**
 * The CPU seconds used between two readThreads, by thread kind (THREAD_KINDS), each `{ user, system }`: a thread
 * born in between counts from zero; `exited` is what the process's total grew by beyond its live threads'.
 */
function cpuByKind (before, after) {
  const kinds = Object.fromEntries(THREAD_KINDS.map((kind) => [kind, { user: 0, system: 0 }]))
  let liveUser = 0
  let liveSystem = 0
  for (const [tid, now] of after.threads) {
    const then = before.threads.get(tid) ?? { user: 0, system: 0 }
    const kind = kinds[threadKind(now.name, tid === after.pid)]
    kind.user += now.user - then.user
    kind.system += now.system - then.system
    liveUser += now.user - then.user
    liveSystem += now.system - then.system
  }
  kinds.exited.user = Math.max(0, after.total.user - before.total.user - liveUser)
  kinds.exited.system = Math.max(0, after.total.system - before.total.system - liveSystem)
  return kinds
}

const NODEBENCH_CODE = /\/middleware\/lib\/|\/packages\/[^/]+\/lib\//
const BENCHMARK_CODE = /\/middleware\/benchmarks\//

/** The group (PROFILE_GROUPS) a profile node's own time belongs to. */
function profileGroup ({ functionName, url }) {
  if (functionName === '(garbage collector)') return 'gc'
  if (functionName === '(idle)') return 'idle'
  if (functionName === '(program)' || functionName === '(root)') return 'program'
  if (NODEBENCH_CODE.test(url)) return 'nodebench'
  if (url.includes('/node_modules/')) return 'packages'
  if (BENCHMARK_CODE.test(url)) return 'benchmark'
  if (url.startsWith('node:') || url.startsWith('internal/')) return 'node'
  return 'native'
}

/**
 * A .cpuprofile's sampled time, ms: by group (PROFILE_GROUPS) and by function (`functions`: `name file:line` to
 * `{ group, ms }`). A sample lasts until the next one (timeDeltas[i + 1]); the last one, the mean interval. The
 * times are the main thread's wall time: a thread the scheduler has set aside is sampled where it stopped.
 */
function splitProfile (profile) {
  const groupOf = new Map()
  const nameOf = new Map()
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame
    groupOf.set(node.id, profileGroup(node.callFrame))
    nameOf.set(node.id, url === '' ? functionName || '(native)' : `${functionName || '(anonymous)'} ${path.basename(url)}:${lineNumber + 1}`)
  }
  const groups = Object.fromEntries(PROFILE_GROUPS.map((group) => [group, 0]))
  const functions = {}
  const { samples, timeDeltas } = profile
  const meanMicros = samples.length > 0 ? (profile.endTime - profile.startTime) / samples.length : 0
  for (let i = 0; i < samples.length; i++) {
    const ms = (i + 1 < timeDeltas.length ? timeDeltas[i + 1] : meanMicros) / 1000
    const group = groupOf.get(samples[i])
    groups[group] += ms
    const name = nameOf.get(samples[i])
    const entry = functions[name] ?? (functions[name] = { group, ms: 0 })
    entry.ms += ms
  }
  return { groups, functions }
}

/**
 * A run's sampled main thread in µs of CPU a request: each group's (and function's) share of the time sampled
 * busy (idle left out) times the main thread's CPU from /proc. Sampling is of wall time; this assumes the
 * scheduler set the thread aside alike whatever it ran.
 */
function profileCpu (run) {
  const { groups, functions } = run.profile
  const busy = PROFILE_GROUPS.reduce((sum, group) => (group === 'idle' ? sum : sum + groups[group]), 0)
  const mainMicros = (run.cpu.main.user + run.cpu.main.system) * 1e6 / run.requests
  const scale = busy > 0 ? mainMicros / busy : 0
  const byGroup = {}
  for (const group of PROFILE_GROUPS) if (group !== 'idle') byGroup[group] = groups[group] * scale
  const byFunction = {}
  for (const [name, { group, ms }] of Object.entries(functions)) if (group !== 'idle') byFunction[name] = { group, micros: ms * scale }
  return { byGroup, byFunction, busyShare: busy / (busy + groups.idle) }
}

const BAILOUT = /\[bailout \(kind: ([^,]+), reason: (.*?)\): begin\. deoptimizing \S+ <JSFunction ?(\S*?) \(sfi/g

/** V8's --trace-deopt text: bailouts counted by `function (kind: reason)`, and in all. */
function countDeopts (text) {
  const byFunction = {}
  let total = 0
  for (const [, kind, reason, name] of text.matchAll(BAILOUT)) {
    const key = `${name || '(anonymous)'} (${kind}: ${reason})`
    byFunction[key] = (byFunction[key] ?? 0) + 1
    total += 1
  }
  return { total, byFunction }
}

/** The bytes of `file` from `offset` on, as text ('' when there is no such file). */
function readFrom (file, offset) {
  try {
    const size = fs.statSync(file).size
    if (size <= offset) return ''
    const buffer = Buffer.alloc(size - offset)
    const fd = fs.openSync(file, 'r')
    try {
      fs.readSync(fd, buffer, 0, buffer.length, offset)
    } finally {
      fs.closeSync(fd)
    }
    return buffer.toString('utf8')
  } catch {
    return ''
  }
}

function fileSize (file) {
  try {
    return fs.statSync(file).size
  } catch {
    return 0
  }
}

module.exports = {
  THREAD_KINDS,
  PROFILE_GROUPS,
  threadKind,
  readThreads,
  cpuByKind,
  faultsBetween,
  profileGroup,
  splitProfile,
  profileCpu,
  countDeopts,
  readFrom,
  fileSize
}
