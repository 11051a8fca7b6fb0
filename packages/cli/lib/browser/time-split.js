'use strict'

// Where a page's time went, from its requests' timing: each moment from navigation start to the end (the
// front end's `ready`, else `load`) is counted once, as
// - server: some request was being worked on by the app (its Server-Timing `total`, which ends when the app
//   wrote the response's head, so it is taken as the `total` ms before the response's first byte);
// - network: otherwise, some request was in flight (queued, connecting, sent, or its body arriving);
// - client: no request was in flight (parsing, running scripts, layout, or waiting on nothing).
// So the three add up to the page's time, however many requests overlap; a request without Server-Timing (a
// file from a CDN, or one cached by the browser) counts as network while it is in flight.

/** Sorted, merged intervals [start, end] clipped to [0, limit]. */
function union (intervals, limit) {
  const clipped = intervals
    .map(([start, end]) => [Math.max(0, start), Math.min(limit, end)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0])
  const merged = []
  for (const [start, end] of clipped) {
    const last = merged[merged.length - 1]
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}

function length (intervals) {
  return intervals.reduce((sum, [start, end]) => sum + end - start, 0)
}

/**
 * @param {{ startMs: number, firstByteMs: number, endMs: number, serverMs: number | null }[]} requests
 *   the navigation's and every resource's timing entry (startTime, responseStart, responseEnd) and its
 *   Server-Timing `total`, in ms from navigation start
 * @param {number} endMs the page's time: when it was ready, or loaded
 * @returns {{ serverMs: number, networkMs: number, clientMs: number, requestsWithServerTiming: number }}
 */
function splitPageTime (requests, endMs) {
  const inFlight = union(requests.map((r) => [r.startMs, r.endMs]), endMs)
  const served = requests.filter((r) => r.serverMs !== null && r.firstByteMs > 0)
  const server = union(served.map((r) => [Math.max(r.startMs, r.firstByteMs - r.serverMs), r.firstByteMs]), endMs)
  const serverMs = length(server)
  const flightMs = length(inFlight)
  return {
    serverMs,
    networkMs: Math.max(0, flightMs - serverMs),
    clientMs: Math.max(0, endMs - flightMs),
    requestsWithServerTiming: served.length
  }
}

module.exports = { splitPageTime }
