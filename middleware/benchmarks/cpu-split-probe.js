'use strict'

// Loaded into a benchmark app by cpu-split.js (`--require`): measures a window of the app's life that the runner
// opens and closes with SIGUSR2. In the window it records every collection (v8.GCProfiler: its kind, its time,
// the heap's spaces before and after, so what a scavenge copied and promoted) and, with NB_CPU_SPLIT_PROFILE=1,
// samples the main thread with V8's profiler through an in-process inspector session (only the window: start-up and
// warm-up are left out, as they are of the CPU time). Prints `cpu-split open` when the window is open and
// `cpu-split {json}` when it is closed, the profile written to NB_CPU_SPLIT_PROFILE_PATH.

const fs = require('node:fs')
const inspector = require('node:inspector')
const v8 = require('node:v8')

const PROFILE_INTERVAL_US = 1000

let gcProfiler = null
let session = null
let openedAt = 0

/** A space's used bytes in one of GCProfiler's heap snapshots (0 when V8 has no such space). */
function spaceUsed (snapshot, name) {
  const space = snapshot.heapSpaceStatistics.find((entry) => entry.spaceName === name)
  return space === undefined ? 0 : space.spaceUsedSize
}

/** A space's size (reserved for it, used or not) in one of GCProfiler's heap snapshots. */
function spaceSize (snapshot, name) {
  const space = snapshot.heapSpaceStatistics.find((entry) => entry.spaceName === name)
  return space === undefined ? 0 : space.spaceSize
}

/**
 * GCProfiler's statistics summed by kind: count and ms a kind, and for scavenges (the young generation's
 * collections) the bytes left in the young generation after them (survivors, copied) and the bytes the old
 * generation grew by in them (promoted); and the young generation's size after the last collection (V8 sizes it as
 * it goes unless --min- and --max-semi-space-size fix it).
 */
function summarizeCollections (statistics) {
  const byKind = {}
  let survivedBytes = 0
  let promotedBytes = 0
  let youngGenerationBytes = null
  for (const { gcType, cost, beforeGC, afterGC } of statistics) {
    const kind = byKind[gcType] ?? (byKind[gcType] = { count: 0, ms: 0 })
    kind.count += 1
    kind.ms += cost / 1000
    youngGenerationBytes = spaceSize(afterGC, 'new_space')
    if (gcType === 'Scavenge' || gcType === 'MinorMarkSweep') {
      survivedBytes += spaceUsed(afterGC, 'new_space')
      promotedBytes += (spaceUsed(afterGC, 'old_space') + spaceUsed(afterGC, 'large_object_space')) -
        (spaceUsed(beforeGC, 'old_space') + spaceUsed(beforeGC, 'large_object_space'))
    }
  }
  return { byKind, survivedBytes, promotedBytes, youngGenerationBytes }
}

function post (method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

async function openWindow () {
  if (process.env.NB_CPU_SPLIT_PROFILE === '1') {
    session = new inspector.Session()
    session.connect()
    await post('Profiler.enable')
    await post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US })
    await post('Profiler.start')
  }
  gcProfiler = new v8.GCProfiler()
  gcProfiler.start()
  openedAt = performance.now()
  process.stdout.write('cpu-split open\n')
}

async function closeWindow () {
  const ms = performance.now() - openedAt
  const collections = summarizeCollections(gcProfiler.stop().statistics)
  gcProfiler = null
  let profiled = false
  if (session !== null) {
    const { profile } = await post('Profiler.stop')
    session.disconnect()
    session = null
    fs.writeFileSync(process.env.NB_CPU_SPLIT_PROFILE_PATH, JSON.stringify(profile))
    profiled = true
  }
  process.stdout.write(`cpu-split ${JSON.stringify({ ms, collections, profiled })}\n`)
}

process.on('SIGUSR2', () => {
  const step = gcProfiler === null ? openWindow() : closeWindow()
  step.catch((err) => process.stdout.write(`cpu-split failed ${JSON.stringify(String(err && err.message))}\n`))
})

module.exports = { summarizeCollections }
