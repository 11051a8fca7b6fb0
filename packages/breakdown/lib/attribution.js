'use strict'

// How a segment's time splits among the dependencies it waited on, the same for the middleware's request records
// and for the requests the collector rebuilds from their spans. A call counts only while its segment is open
// (clipped to the segment's start and end: a call left running when the segment handed on is the next
// segment's wait, not its own). Calls that overlap count once: the union of their intervals, so a segment's
// dependency time never exceeds its own. Where calls to different dependencies overlap, each moment is split
// evenly among the dependencies waited on at that moment, so the dependencies' times add up to the union.

/**
 * The dependency time of each segment of a finished record: a flat array of [segment, dependency, calls, ms]
 * quadruples, in order of each (segment, dependency)'s first call; empty when the record made no call.
 * `record`: `dependencyCalls` (null, or `{ segment, dependency, startMs, endMs }` in start order; `endMs` -1: still
 * running when its segment ended), `entryStart(segment)` and `entryEnd(segment)` in the same clock.
 * `into`: the array to write them in (its contents replaced), for a caller that reads them at once and keeps one
 * array for every request (the aggregator: a new array a request was ~110 bytes, its backing store grown on the
 * first push; overwriting an array of the same length allocates nothing).
 */
function attributeCalls (record, into = []) {
  let calls = record.dependencyCalls
  if (calls === null) return truncated(into, 0)
  // Calls are kept in the order they started, and segments never overlap, so a segment's calls are one run
  // of them; a record that says otherwise is put in that order (a stable sort).
  for (let i = 1; i < calls.length; i++) {
    if (calls[i].segment < calls[i - 1].segment) {
      calls = calls.slice().sort((a, b) => a.segment - b.segment)
      break
    }
  }
  const result = into
  let length = 0
  let first = 0
  while (first < calls.length) {
    const segment = calls[first].segment
    let last = first + 1
    while (last < calls.length && calls[last].segment === segment) last++
    const segmentStart = record.entryStart(segment)
    length = attributeSegment(segment, calls, first, last, segmentStart, record.entryEnd(segment), result, length)
    first = last
  }
  return truncated(result, length)
}

/** `array` cut to `length` (not set when it is that long already: a length set to 0 drops its backing store). */
function truncated (array, length) {
  if (array.length !== length) array.length = length
  return array
}

/**
 * Writes the quadruples of `calls[first, last)`, the calls of `segment`, into `result` from `at` (its length so
 * far; what lies beyond is a former request's); returns the length after them.
 */
function attributeSegment (segment, calls, first, last, segmentStart, segmentEnd, result, at) {
  let length = at
  let overlapping = false
  let latestEnd = -Infinity
  for (let i = first; i < last; i++) {
    const call = calls[i]
    const start = call.startMs > segmentStart ? call.startMs : segmentStart
    let end = call.endMs === -1 ? segmentEnd : call.endMs
    if (end > segmentEnd) end = segmentEnd
    const ms = end > start ? end - start : 0
    if (ms > 0 && start < latestEnd) overlapping = true
    if (end > latestEnd) latestEnd = end
    let entry = at
    while (entry < length && result[entry + 1] !== call.dependency) entry += 4
    if (entry === length) {
      result[length] = segment
      result[length + 1] = call.dependency
      result[length + 2] = 0
      result[length + 3] = 0
      length += 4
    }
    result[entry + 2]++
    result[entry + 3] += ms
  }
  // One call at a time (the usual await after await): each call's own time. Else the union, split.
  if (overlapping) splitOverlaps(calls, first, last, segmentStart, segmentEnd, result, at, length)
  return length
}

/**
 * A sweep over the calls' edges: between two consecutive edges, the length goes in equal parts to the
 * dependencies (entries of `result` from `at`) with at least one call open there.
 */
function splitOverlaps (calls, first, last, segmentStart, segmentEnd, result, at, length) {
  const starts = []
  const ends = []
  const entries = []
  const edges = []
  for (let i = first; i < last; i++) {
    const call = calls[i]
    const start = Math.max(call.startMs, segmentStart)
    const end = Math.min(call.endMs === -1 ? segmentEnd : call.endMs, segmentEnd)
    if (end <= start) continue
    let entry = at
    while (result[entry + 1] !== call.dependency) entry += 4
    starts.push(start)
    ends.push(end)
    entries.push(entry)
    edges.push(start, end)
  }
  for (let entry = at; entry < length; entry += 4) result[entry + 3] = 0
  edges.sort((a, b) => a - b)
  const open = new Set()
  for (let e = 0; e + 1 < edges.length; e++) {
    const from = edges[e]
    const to = edges[e + 1]
    if (to <= from) continue
    open.clear()
    for (let i = 0; i < starts.length; i++) {
      if (starts[i] <= from && ends[i] >= to) open.add(entries[i])
    }
    if (open.size === 0) continue
    const part = (to - from) / open.size
    for (const entry of open) result[entry + 3] += part
  }
}

module.exports = { attributeCalls }
