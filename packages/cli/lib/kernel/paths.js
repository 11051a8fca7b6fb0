'use strict'

const path = require('node:path')

// How the CLI shows a path (in what it prints, in results.json, in its reports): relative to the current
// directory when the file is under it (`runs/2026-11-25T13-58-03-656Z/results.json`), else absolute, never
// `../../..`.

/** `file` as the user reads it: relative when under `cwd` (`.` for cwd itself), else absolute. */
function displayPath (file, cwd = process.cwd()) {
  const absolute = path.resolve(cwd, file)
  const relative = path.relative(cwd, absolute)
  if (relative === '') return '.'
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
  return outside ? absolute : relative
}

module.exports = { displayPath }
