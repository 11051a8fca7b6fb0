'use strict'

// What the benchmark scripts share beside their measurement: the median they report, the Node.js they measure
// (--node: a line or exact version from the npm registry, cached per user; @nodebench/services nodeBinary), the
// valgrind the callgrind counts run under, and how a script runs from the command line (a bad argument exits 2
// with one line, a failure 1).

/** The median of `values` (nulls left out); null when none is left. */
function median (values) {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** The whole number >= 1 that `--<name>` was given; a TypeError naming the argument otherwise. */
function positiveInteger (name, value) {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) {
    throw new TypeError(`--${name} must be a positive integer; received ${JSON.stringify(value)}`)
  }
  return number
}

/** The flags `--node-flag` was given (each one flag for the measured Node.js); a TypeError naming a bad one. */
function nodeFlags (flags) {
  for (const flag of flags) {
    if (!/^--[A-Za-z0-9][A-Za-z0-9_-]*(=\S+)?$/.test(flag)) {
      throw new TypeError(`--node-flag must be one Node.js flag such as --experimental-async-context-frame; received ${JSON.stringify(flag)}`)
    }
  }
  return flags
}

/** The Node.js to measure: `{ version, path }` of `spec` (--node), or of the one running this script (null). */
async function nodeUnderTest (spec, log) {
  if (spec === null) return { version: process.versions.node, path: process.execPath }
  return require('@nodebench/services').nodeBinary(spec, { onProgress: log })
}

/**
 * What a callgrind count runs: `{ valgrind, node }`, valgrind (VALGRIND_PATH, /usr/bin/valgrind, or Debian's
 * package installed once with apt-get, as root) and the Node.js to measure (nodeUnderTest's).
 */
async function callgrindTools (spec, log) {
  const valgrind = await require('@nodebench/services').ensureValgrind()
  return { valgrind, node: await nodeUnderTest(spec, log) }
}

/**
 * Runs a benchmark script's `main(options)` on the command line's arguments as `parseArguments` reads them: an
 * argument it rejects is said in one line (`<name>: <message>`) with exit code 2; a failure of the run, with its
 * code when it has one, exit code 1.
 */
function runScript (name, parseArguments, main) {
  let options
  try {
    options = parseArguments(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`${name}: ${err.message}\n`)
    process.exitCode = 2
    return
  }
  Promise.resolve().then(() => main(options)).catch((err) => {
    process.stderr.write(`${name}: ${err.code ? `[${err.code}] ` : ''}${err.message}\n`)
    process.exitCode = 1
  })
}

module.exports = { median, positiveInteger, nodeFlags, nodeUnderTest, callgrindTools, runScript }
