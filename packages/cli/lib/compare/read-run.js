'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { codes, NodebenchError } = require('@nodebench/errors')
const { displayPath } = require('../kernel/paths')

// A run nodebench compare reads: the results.json `nodebench bench` wrote (a file, or the run's folder that
// holds one), schema 1 to 3. Everything that makes a run unreadable is NB_ERR_COMPARE_INPUT: one line, exit 2.

const SCHEMAS = Object.freeze([1, 2, 3])

function inputError (message) {
  return new NodebenchError(codes.NB_ERR_COMPARE_INPUT, message)
}

/** The results.json `where` names: the file itself, or `results.json` in the folder. */
function resultsFileOf (where) {
  const given = path.resolve(String(where))
  let stat
  try {
    stat = fs.statSync(given)
  } catch (err) {
    throw inputError(`${displayPath(given)}: ${err.code === 'ENOENT' ? 'no such file or folder' : err.message}; expected a bench run's results.json or its folder`)
  }
  if (!stat.isDirectory()) return given
  const file = path.join(given, 'results.json')
  if (!fs.existsSync(file)) throw inputError(`${displayPath(given)} holds no results.json; expected a bench run's folder (nodebench bench --out)`)
  return file
}

/** The results of a run, checked to be bench's: `{ file, results }`. */
function readRun (where) {
  const file = resultsFileOf(where)
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw inputError(`${displayPath(file)} cannot be read: ${err.code === 'EACCES' ? 'permission denied' : err.message}`)
  }
  let results
  try {
    results = JSON.parse(text)
  } catch (err) {
    throw inputError(`${displayPath(file)} is not JSON (${err.message}); expected a bench run's results.json`)
  }
  return { file, results: checkResults(results, displayPath(file)) }
}

/** `results` when it is a bench run's results of a schema compare reads; else NB_ERR_COMPARE_INPUT naming `name`. */
function checkResults (results, name) {
  if (results === null || typeof results !== 'object' || Array.isArray(results)) {
    throw inputError(`${name} is not a bench run's results (no object); expected what nodebench bench writes`)
  }
  if (!SCHEMAS.includes(results.schema)) {
    throw inputError(`${name} has results schema ${JSON.stringify(results.schema)}; nodebench compare reads schemas ${SCHEMAS.slice(0, -1).join(', ')} and ${SCHEMAS[SCHEMAS.length - 1]} (what nodebench bench writes)`)
  }
  if (!Array.isArray(results.cells) || results.workload === null || typeof results.workload !== 'object') {
    throw inputError(`${name} is not a bench run's results: it has no cells or no workload`)
  }
  return results
}

module.exports = { readRun, checkResults, inputError, SCHEMAS }
