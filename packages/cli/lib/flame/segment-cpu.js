'use strict'

// CPU beside wall time, per segment: where a request waits is the breakdown's share of response time; whether
// a segment computes while it does is its share of the CPU samples. A sample belongs to the innermost frame of
// its stack that is the function of one of the operation's segments (matched by the file and line the
// breakdown gives each segment), so a layer's segment gets its synchronous part: its own code and what it
// calls before it returns, a template engine under res.render included. Work a layer starts and that runs
// later (a database driver's callback, a promise's continuation) has no layer frame below it: it is shown as
// not attributed, never spread over the segments; garbage collection is a row of its own.

const { VM_STATES } = require('./read-profile')

const TOP_CATEGORIES = 3

function locationKey (file, line) {
  return `${file}:${line}`
}

/**
 * @param {Array<{ sample: { vmState, frames }, charge: { category } }>} charged the on-CPU samples of a
 *   window (analyze.js: neither idle, nor the profiler's, nor compiling)
 * @param {object} operation a breakdown snapshot's operation: its segments have name, kind, order, file,
 *   line and share (of response time)
 * @returns {{ onCpu: number, segments: Array<{ name, kind, order, file, line, wallShare, samples, cpuShare,
 *   categories: Array<{ category, share }> }>, garbageCollection: { samples, share },
 *   notAttributed: { samples, share, categories } }}
 */
function segmentCpu (charged, operation) {
  const byLocation = new Map()
  const rows = operation.segments.map((segment) => {
    const row = {
      name: segment.name,
      kind: segment.kind,
      order: segment.order,
      file: segment.file,
      line: segment.line,
      wallShare: segment.share,
      samples: 0,
      categoryCounts: new Map()
    }
    if (segment.file && segment.line) byLocation.set(locationKey(segment.file, segment.line), row)
    return row
  })
  const notAttributed = { samples: 0, categoryCounts: new Map() }
  let garbageCollection = 0
  for (const { sample, charge } of charged) {
    if (sample.vmState === VM_STATES.GC) {
      garbageCollection++
      continue
    }
    let row = notAttributed
    for (const frame of sample.frames) {
      if (frame.kind !== 'js' || !frame.file) continue
      const found = byLocation.get(locationKey(frame.file, frame.line))
      if (found !== undefined) {
        row = found
        break
      }
    }
    row.samples++
    row.categoryCounts.set(charge.category, (row.categoryCounts.get(charge.category) || 0) + 1)
  }
  const onCpu = charged.length
  const share = (n) => (onCpu > 0 ? n / onCpu : 0)
  const categories = ({ samples, categoryCounts }) => [...categoryCounts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_CATEGORIES)
    .map(([category, count]) => ({ category, share: samples > 0 ? count / samples : 0 }))
  return {
    onCpu,
    segments: rows.map(({ categoryCounts, ...row }) => ({
      ...row, cpuShare: share(row.samples), categories: categories({ ...row, categoryCounts })
    })),
    garbageCollection: { samples: garbageCollection, share: share(garbageCollection) },
    notAttributed: {
      samples: notAttributed.samples, share: share(notAttributed.samples), categories: categories(notAttributed)
    }
  }
}

module.exports = { segmentCpu }
