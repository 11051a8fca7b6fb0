'use strict'

// What an app that failed to start said, as one short excerpt for the line nodebench prints: from the first
// line that names an error (`Error: Cannot find module 'expresss'`, `TypeError: ...`), with what Node.js prints
// under it before the stack (`Require stack:`, the file it was required from) and the first frame in the app's
// own code; for a syntax error, the file, line and source line Node.js prints above it. Only when no line
// names an error, its last lines. An uncaught error's last lines are its stack's end, its `code` and Node.js's
// version: never what was wrong.

const HEAD_CHARS = 16_000
const TAIL_CHARS = 4000
const ERROR_LINE = /^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[A-Z_0-9]+\])?: |^\[?[A-Z]\w*Error\]?\b/
const FRAME = /^\s+at /

/** Collects a child's stderr: its start (where an error is printed) and its end. */
function outputCollector () {
  let head = ''
  let tail = ''
  let total = 0
  return {
    add (chunk) {
      total += chunk.length
      if (head.length < HEAD_CHARS) head += chunk.slice(0, HEAD_CHARS - head.length)
      tail = (tail + chunk).slice(-TAIL_CHARS)
    },
    text: () => (total <= HEAD_CHARS ? head : `${head}\n...\n${tail}`)
  }
}

/** The excerpt of `stderr` that says why the app failed (lines joined with '\n'); '' when it said nothing. */
function startFailure (stderr) {
  const lines = stderr.replace(/\r/g, '').split('\n')
  const at = lines.findIndex((line) => ERROR_LINE.test(line))
  if (at === -1) return lines.map((line) => line.trimEnd()).filter(Boolean).slice(-5).join('\n')
  const excerpt = []
  // A syntax error: Node.js prints `file:line`, the source line and carets above it.
  const location = lines.slice(0, at).findIndex((line) => /^(file:\/\/)?\/.+:\d+$/.test(line))
  if (location !== -1) excerpt.push(...lines.slice(location, at).filter((line) => line.trim() !== ''))
  excerpt.push(lines[at])
  let i = at + 1
  while (i < lines.length && excerpt.length < 12 && lines[i].trim() !== '' && !FRAME.test(lines[i])) excerpt.push(lines[i++])
  const frame = lines.slice(at + 1).find((line) => FRAME.test(line) && !/\(node:|at node:/.test(line))
  if (frame !== undefined) excerpt.push(frame.trim())
  return excerpt.join('\n')
}

module.exports = { outputCollector, startFailure }
