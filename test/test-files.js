'use strict'

// The suite's test files, and which of them run once. `npm test` (run.js) runs every file; the other Node.js
// lines (`npm run test:node`, node-matrix.js) skip the files tagged as running once, because `npm test` on
// the first line has run them. A file is tagged by a comment line of its own, which also says why:
//
//   // nodebench-test: once. nginx is Debian's and the app behind it is a plain server: the Node.js version does not change what this tests.
//
// Tag only what no Node.js version can change: a service, a browser, a report rendered from recorded runs, or
// what a CLI run makes of an app when another file, named in the tag, runs its Node.js-dependent part every line.
// Whatever touches the middleware's hot path, diagnostics channels, async context, http internals, the
// inspector or any API that differs across versions runs on every line.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const TEST_DIRS = ['test', 'middleware/test', 'collector/test', 'packages', 'examples']
const TEST_FILE = /\.test\.[cm]?js$/
const TAG = /^\/\/ nodebench-test:(.*)$/m
const ONCE = /^\s*once\b[.:,]?\s*(.*)$/

/** Every *.test.js / *.test.mjs of the workspaces, relative to the root, sorted; none inside node_modules. */
function testFiles (root = ROOT) {
  const files = []
  for (const dir of TEST_DIRS) {
    const absolute = path.join(root, dir)
    if (!fs.existsSync(absolute)) continue
    for (const entry of fs.readdirSync(absolute, { recursive: true })) {
      const relative = path.join(dir, entry)
      if (relative.split(path.sep).includes('node_modules')) continue
      if (TEST_FILE.test(entry)) files.push(relative)
    }
  }
  return files.sort()
}

/**
 * Why the test file whose text is `text` runs once (its tag's reason), or null when it runs on every line.
 * Throws on a tag that is not `once` or gives no reason, so that a misspelt one is not silently ignored.
 */
function runsOnce (text, file = 'a test file') {
  const tag = TAG.exec(text)
  if (tag === null) return null
  const once = ONCE.exec(tag[1])
  if (once === null) throw new Error(`${file}: "// nodebench-test:${tag[1]}": the one tag is "// nodebench-test: once. <why the Node.js version does not change what it tests>"`)
  if (once[1].trim() === '') throw new Error(`${file}: "// nodebench-test: once" says why the Node.js version does not change what the file tests`)
  return once[1].trim()
}

/** `files` (relative to `root`) split into those that run on every line and those that run once, with why. */
function splitOnce (files, root = ROOT) {
  const everyLine = []
  const once = []
  for (const file of files) {
    const reason = runsOnce(fs.readFileSync(path.join(root, file), 'utf8'), file)
    if (reason === null) everyLine.push(file)
    else once.push({ file, reason })
  }
  return { everyLine, once }
}

module.exports = { testFiles, runsOnce, splitOnce }
