'use strict'

// The function profile of one page load (CDP Profiler, a .cpuprofile): each function's self time (samples
// with it on top of the stack) and total time (samples with it anywhere on the stack, counted once per
// sample), in ms, with its file and line, as Chrome DevTools' Bottom-Up and Call Tree tabs show them (the
// study's Figs 33-36). (idle), (program) and (garbage collector) are kept: they are where the page's time
// went too.

const { fileURLToPath } = require('node:url')
const { round } = require('../kernel/statistics')

function where ({ url, lineNumber }) {
  if (!url) return { file: null, line: null }
  let file = url
  try {
    if (url.startsWith('file:')) file = fileURLToPath(url)
    else file = new URL(url).pathname
  } catch {}
  return { file, line: lineNumber + 1 }
}

/** Top `top` functions by self time and by total time of `profile`: `{ totalMs, bySelf, byTotal }`. */
function functionProfile (profile, { top = 15 } = {}) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map()
  for (const node of profile.nodes) for (const child of node.children || []) parentOf.set(child, node.id)
  const keyOf = ({ callFrame }) => `${callFrame.functionName}\u0000${callFrame.url}\u0000${callFrame.lineNumber}`
  const functions = new Map()
  const entry = (node) => {
    const key = keyOf(node)
    if (!functions.has(key)) {
      const { functionName } = node.callFrame
      functions.set(key, { name: functionName || '(anonymous)', ...where(node.callFrame), selfMs: 0, totalMs: 0 })
    }
    return functions.get(key)
  }
  const deltas = profile.timeDeltas || []
  let totalMs = 0
  profile.samples.forEach((id, i) => {
    // A sample stands for the time until the next one.
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000
    totalMs += ms
    const seen = new Set()
    let first = true
    for (let current = id; current !== undefined; current = parentOf.get(current)) {
      const node = byId.get(current)
      if (node.callFrame.functionName === '(root)') break
      const fn = entry(node)
      if (first) fn.selfMs += ms
      first = false
      if (!seen.has(fn)) {
        seen.add(fn)
        fn.totalMs += ms
      }
    }
  })
  const list = [...functions.values()]
    .map((fn) => ({ ...fn, selfMs: round(fn.selfMs, 2), totalMs: round(fn.totalMs, 2) }))
  return {
    totalMs: round(totalMs, 2),
    bySelf: [...list].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    byTotal: [...list].sort((a, b) => b.totalMs - a.totalMs).slice(0, top)
  }
}

module.exports = { functionProfile }
