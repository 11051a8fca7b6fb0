'use strict'

const fs = require('fs')
const path = require('path')

// The service name when neither the serviceName option nor OTEL_SERVICE_NAME gives one: the `name` of the
// app's package.json, as an APM agent names a service. The app's is the nearest package.json with a name
// above its main module (require.main, or process.argv[1] for an ES module app), or above the working
// directory when that is a tool's (a test runner's bin, a process manager's container: a file in
// node_modules) or there is none (the REPL, `node -e`). Read once, when nodebenchTrace() is called; the
// script's file name (`index`, `server`) is the last resort.

const FALLBACK = 'express-app'
const MAX_LEVELS = 64

/** The `name` of the nearest package.json that has one, from `dir` up to the filesystem's root; else null. */
function nearestPackageName (dir) {
  let current = path.resolve(dir)
  for (let level = 0; level < MAX_LEVELS; level++) {
    const name = packageName(path.join(current, 'package.json'))
    if (name !== null) return name
    const parent = path.dirname(current)
    if (parent === current) return null
    current = parent
  }
  return null
}

function packageName (file) {
  let manifest
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
  const name = manifest !== null && typeof manifest === 'object' ? manifest.name : undefined
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : null
}

/** process.cwd(), or null when the directory was removed under the process (uv_cwd throws ENOENT). */
function workingDirectory () {
  try {
    return process.cwd()
  } catch {
    return null
  }
}

function insideNodeModules (file) {
  return file.split(/[\\/]/).includes('node_modules')
}

/**
 * @param {object} [where] what the process was started with (tests give their own)
 * @param {string} [where.main] the main module's file (require.main)
 * @param {string} [where.script] process.argv[1]
 * @param {string} [where.cwd] the working directory
 */
function defaultServiceName ({
  main = require.main?.filename, script = process.argv[1], cwd = workingDirectory()
} = {}) {
  const entry = [main, script].find((file) => typeof file === 'string' && file !== '')
  const from = entry !== undefined && !insideNodeModules(entry) ? path.dirname(path.resolve(entry)) : cwd
  const name = from === null ? null : nearestPackageName(from)
  if (name !== null) return name
  if (!script) return FALLBACK
  return path.basename(script).replace(/\.[cm]?[jt]s$/, '') || FALLBACK
}

module.exports = { defaultServiceName, nearestPackageName }
