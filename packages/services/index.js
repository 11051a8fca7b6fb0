'use strict'

const { ferretdbBinary, ferretdbVersion, startDatabase, resolveDatabase } = require('./lib/database')
const { registerService, serviceNames, serviceOptions, serviceState, startService, stopService, serviceStatus } = require('./lib/services')
const { userCacheDir, PROJECT_CACHE_DIR } = require('./lib/cache-dirs')
const { freeLoopbackPort } = require('./lib/processes')
const { ensureChromium } = require('./lib/chromium')
const { ensureValgrind } = require('./lib/valgrind')
const { callgrindCounts } = require('./lib/callgrind-counts')
const { ensurePrometheus } = require('./lib/prometheus-binary')
const { ensureNginx, startNginx, parseAccessLog, PROXY_ERROR_MARK } = require('./lib/nginx')
const { ensureApachePhp, startApachePhp } = require('./lib/apache-php')
const { nodeBinary } = require('./lib/node-binary')

// What an app, a test or the nodebench command uses: the database, the background services, the executables
// nodebench runs and the Node.js binaries of the version matrix. What a package needs to add a service of its
// own (a Go build, a logged child, the service's state file) is `@nodebench/services/components`.

module.exports = {
  resolveDatabase,
  startDatabase,
  ferretdbBinary,
  ferretdbVersion,
  registerService,
  serviceNames,
  serviceOptions,
  serviceState,
  startService,
  stopService,
  serviceStatus,
  freeLoopbackPort,
  ensureChromium,
  ensureValgrind,
  callgrindCounts,
  ensurePrometheus,
  ensureNginx,
  startNginx,
  parseAccessLog,
  PROXY_ERROR_MARK,
  ensureApachePhp,
  startApachePhp,
  nodeBinary,
  userCacheDir,
  PROJECT_CACHE_DIR
}
