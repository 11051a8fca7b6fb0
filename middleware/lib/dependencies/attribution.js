'use strict'

// How a segment's time splits among the dependencies it waited on. A call counts only while its segment is
// open (clipped to the segment's start and end: a call left running when the segment handed on is the next
// segment's wait, not its own). Calls that overlap count once: the union of their intervals, so a segment's
// dependency time never exceeds its own. Where calls to different dependencies overlap, each moment is split
// evenly among the dependencies waited on at that moment, so the dependencies' times add up to the union.

/**
 * The dependency time of each segment of a finished record: a flat array of [segment, dependency, calls, ms]
 * quadruples, in order of each (segment, dependency)'s first call; empty when the record made no call.
 */
function attributeCalls (record) {
  const calls = record.dependencyCalls
  if (calls === null) return []
  const bySegment = new Map()
  for (const call of calls) {
    let list = bySegment.get(call.segment)
    if (list === undefined) bySegment.set(call.segment, (list = []))
    list.push(call)
  }
  const result = []
  for (const [segment, segmentCalls] of bySegment) {
    attributeSegment(segment, segmentCalls, record.entryStart(segment), record.entryEnd(segment), result)
  }
  return result
}

function attributeSegment (segment, calls, segmentStart, segmentEnd, result) {
  // Per dependency (in order of first call): its calls and its share of the union.
  const dependencies = []
  const counts = []
  const times = []
  const intervals = []
  for (const call of calls) {
    let at = dependencies.indexOf(call.dependency)
    if (at === -1) {
      at = dependencies.length
      dependencies.push(call.dependency)
      counts.push(0)
      times.push(0)
    }
    counts[at]++
    const start = Math.max(call.startMs, segmentStart)
    const end = Math.min(call.endMs === -1 ? segmentEnd : call.endMs, segmentEnd)
    if (end > start) intervals.push(start, end, at)
  }
  if (intervals.length === 3) {
    times[intervals[2]] = intervals[1] - intervals[0]
  } else if (intervals.length > 3) {
    splitOverlaps(intervals, times)
  }
  for (let at = 0; at < dependencies.length; at++) result.push(segment, dependencies[at], counts[at], times[at])
}

/**
 * A sweep over the intervals' edges: between two consecutive edges, the length goes in equal parts to the
 * dependencies with at least one call open there. `intervals`: flat (start, end, dependency index) triples.
 */
function splitOverlaps (intervals, times) {
  const edges = []
  for (let i = 0; i < intervals.length; i += 3) edges.push(intervals[i], intervals[i + 1])
  edges.sort((a, b) => a - b)
  const open = new Array(times.length)
  for (let e = 0; e + 1 < edges.length; e++) {
    const from = edges[e]
    const to = edges[e + 1]
    if (to <= from) continue
    open.fill(false)
    let waitedOn = 0
    for (let i = 0; i < intervals.length; i += 3) {
      const dependency = intervals[i + 2]
      if (intervals[i] <= from && intervals[i + 1] >= to && !open[dependency]) {
        open[dependency] = true
        waitedOn++
      }
    }
    if (waitedOn === 0) continue
    const part = (to - from) / waitedOn
    for (let dependency = 0; dependency < open.length; dependency++) if (open[dependency]) times[dependency] += part
  }
}

module.exports = { attributeCalls }
