'use strict'

const { inspect } = require('node:util')
const { codesOf, NodebenchError } = require('@nodebench/errors')

// What @nodebench/services throws at a user: NodebenchErrors of @nodebench/errors, whose table holds every
// code. Each message says what went wrong and what to do instead; test/errors.test.js pins each one.

/** The codes @nodebench/services throws (its `errorCodes`). */
const codes = codesOf([
  'NB_ERR_INVALID_OPTION', 'NB_ERR_GO_MISSING', 'NB_ERR_GO_BUILD', 'NB_ERR_DB_START', 'NB_ERR_LOCK_TIMEOUT',
  'NB_ERR_SERVICE_UNKNOWN', 'NB_ERR_SERVICE_NOT_ANSWERING', 'NB_ERR_CHROMIUM_MISSING', 'NB_ERR_VALGRIND_MISSING',
  'NB_ERR_PROMETHEUS_MISSING', 'NB_ERR_NGINX_MISSING', 'NB_ERR_NGINX_START', 'NB_ERR_APACHE_MISSING', 'NB_ERR_APACHE_START',
  'NB_ERR_NODE_UNAVAILABLE', 'NB_ERR_CALLGRIND'
])

function describe (value) {
  return inspect(value, { depth: 0, breakLength: Infinity, maxStringLength: 80 })
}

/** Indents the last `count` non-empty lines of `text`, for quoting a log or a compiler's output in a message. */
function lastLines (text, count = 15) {
  const lines = String(text).split('\n').filter((line) => line.trim() !== '')
  return lines.slice(-count).map((line) => `  ${line}`).join('\n')
}

function invalidOption (option, received, expected) {
  return new NodebenchError(codes.NB_ERR_INVALID_OPTION,
    `option "${option}" must be ${expected}; received ${describe(received)}`)
}

/** `alternatives`: what the user can do instead of building, one sentence each. */
function goMissing (displayName, alternatives) {
  const instead = alternatives.map((alternative) => `\n  - ${alternative}`).join('')
  return new NodebenchError(codes.NB_ERR_GO_MISSING,
    `building ${displayName} needs Go (https://go.dev/dl/), but \`go version\` did not run: \`go\` is not on PATH. ` +
    `Install Go 1.22 or later, or instead:${instead}`)
}

function goBuildFailed (displayName, version, reason, output) {
  const tail = lastLines(output)
  return new NodebenchError(codes.NB_ERR_GO_BUILD,
    `building ${displayName} ${version} with Go failed (${reason})` +
    (tail ? `; the last lines of go's output:\n${tail}` : '; go printed nothing'))
}

function databaseStart (reason, logFile, logTail) {
  const tail = lastLines(logTail)
  return new NodebenchError(codes.NB_ERR_DB_START,
    `FerretDB ${reason}; its log is ${logFile}` + (tail ? `, ending with:\n${tail}` : ' (empty)'))
}

function lockTimeout (lockFile, holderPid, waitedMs) {
  return new NodebenchError(codes.NB_ERR_LOCK_TIMEOUT,
    `waited ${waitedMs} ms for process ${holderPid || '(unknown)'} to finish starting the database ` +
    `(lock file ${lockFile}); expected it to be released sooner. If no such process runs, delete the lock file`)
}

function serviceUnknown (name, known) {
  return new NodebenchError(codes.NB_ERR_SERVICE_UNKNOWN,
    `unknown service ${describe(name)}; expected one of ${known.join(', ')}`)
}

function serviceNotAnswering (state) {
  return new NodebenchError(codes.NB_ERR_SERVICE_NOT_ANSWERING,
    `service "${state.name}" is registered as running (pid ${state.pid}, ${state.uri}) but does not answer; ` +
    `expected it to answer before starting another. Stop it with \`nodebench services stop ${state.name}\``)
}

/**
 * An executable from a Debian package that could not be had: `reason` says why, `output` is apt-get's when
 * an installation failed. Chromium's and valgrind's errors differ only in what needs it and what to set.
 */
function debianExecutableMissing (code, needs, packageName, envVar, instead, reason, output) {
  const tail = output ? lastLines(output) : ''
  const packageNames = [].concat(packageName)
  return new NodebenchError(code,
    `${needs}, but ${reason}` + (tail ? `; the last lines of apt-get's output:\n${tail}\n` : '. ') +
    `Install Debian's package${packageNames.length === 1 ? '' : 's'} as root (\`apt-get update && apt-get install -y --no-install-recommends ${packageNames.join(' ')}\`), ` +
    `or set ${envVar} to ${instead}`)
}

function chromiumMissing (reason, output, usedFor = "the report's browser check") {
  return debianExecutableMissing(codes.NB_ERR_CHROMIUM_MISSING, `${usedFor} needs Chromium`, 'chromium',
    'CHROMIUM_PATH', 'a Chromium or Chrome executable', reason, output)
}

function valgrindMissing (reason, output) {
  return debianExecutableMissing(codes.NB_ERR_VALGRIND_MISSING, 'the instruction-count benchmark needs valgrind', 'valgrind',
    'VALGRIND_PATH', 'a valgrind executable', reason, output)
}

function prometheusMissing (reason, output) {
  return debianExecutableMissing(codes.NB_ERR_PROMETHEUS_MISSING, 'fleet breakdowns need Prometheus', 'prometheus',
    'PROMETHEUS_PATH', 'a prometheus executable (2.x or later)', reason, output)
}

function nginxMissing (reason, output) {
  return debianExecutableMissing(codes.NB_ERR_NGINX_MISSING, 'balancing load over instances needs nginx', 'nginx',
    'NGINX_PATH', 'an nginx executable', reason, output)
}

/** nginx did not start, or would not take its configuration; `output` is what it printed. */
function nginxStart (reason, output) {
  const tail = output ? lastLines(output) : ''
  return new NodebenchError(codes.NB_ERR_NGINX_START, `nginx: ${reason}` + (tail ? `; it printed:\n${tail}` : ''))
}

function apacheMissing (reason, output) {
  return debianExecutableMissing(codes.NB_ERR_APACHE_MISSING, 'the Apache httpd and PHP baseline needs Apache with mod_php', ['apache2', 'libapache2-mod-php'],
    'APACHE_PATH', 'an apache2 executable (with libphp*.so in /usr/lib/apache2/modules)', reason, output)
}

/**
 * Apache did not start, or refused its configuration: `reason` ends with what `output` is (the first lines of
 * its error log, what `apache2 -t` printed).
 */
function apacheStart (reason, output) {
  const head = output ? String(output).split('\n').filter((line) => line.trim() !== '').slice(0, 8).map((line) => `  ${line}`).join('\n') : ''
  return new NodebenchError(codes.NB_ERR_APACHE_START, `Apache httpd: ${reason}` + (head ? `:\n${head}` : ': nothing'))
}

/** A Node.js binary for the version matrix could not be had from the npm registry (nor from the cache). */
function nodeUnavailable (spec, reason) {
  return new NodebenchError(codes.NB_ERR_NODE_UNAVAILABLE,
    `Node.js ${spec} could not be had: ${reason}. Expected a released version (a line such as 22 or 24, or an exact ` +
    'version such as 24.21.0) and a reachable npm registry (`npm config get registry`); once fetched, a version is cached')
}

/** callgrind_annotate could not read a dump (`file`), for `reason`. */
function callgrindFailed (file, reason) {
  return new NodebenchError(codes.NB_ERR_CALLGRIND,
    `callgrind_annotate could not read the dump ${file}: ${reason}. Expected a callgrind output file of valgrind's ` +
    'callgrind tool (valgrind --tool=callgrind), and callgrind_annotate from the same valgrind on PATH')
}

/** The image of examples/mongo-admin/docker-compose.yml, which a test keeps equal. */
const MONGODB_IMAGE = 'mongo:7'

/** The alternatives to building FerretDB, for NB_ERR_GO_MISSING. */
const DATABASE_ALTERNATIVES = Object.freeze([
  'set MONGODB_URI to a running MongoDB (for example MONGODB_URI=mongodb://127.0.0.1:27017/), or',
  `start MongoDB with Docker: \`docker run -d --name nodebench-mongo -p 127.0.0.1:27017:27017 ${MONGODB_IMAGE}\`, ` +
    'then set MONGODB_URI=mongodb://127.0.0.1:27017/'
])

module.exports = {
  codes,
  NodebenchError,
  MONGODB_IMAGE,
  invalidOption,
  goMissing,
  callgrindFailed,
  goBuildFailed,
  databaseStart,
  lockTimeout,
  serviceUnknown,
  serviceNotAnswering,
  chromiumMissing,
  valgrindMissing,
  prometheusMissing,
  nginxMissing,
  nginxStart,
  apacheMissing,
  apacheStart,
  nodeUnavailable,
  DATABASE_ALTERNATIVES
}
