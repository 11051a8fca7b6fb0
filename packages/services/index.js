'use strict'

const { ensureGoBinary } = require('./lib/go-binary')
const { ferretdbBinary, ferretdbVersion, startDatabase, resolveDatabase } = require('./lib/database')
const { registerService, serviceNames, serviceOptions, serviceState, startService, stopService, serviceStatus } = require('./lib/services')
const { readState: readServiceState, writeState: writeServiceState } = require('./lib/service-state')
const { userCacheDir, PROJECT_CACHE_DIR } = require('./lib/cache-dirs')
const { freeLoopbackPort, terminate, startLoggedChild } = require('./lib/processes')
const { ensureChromium } = require('./lib/chromium')
const { ensureValgrind } = require('./lib/valgrind')
const { ensurePrometheus } = require('./lib/prometheus')
const { ensureNginx, startNginx, parseAccessLog, PROXY_ERROR_MARK } = require('./lib/nginx')
const { nodeBinary } = require('./lib/node-binary')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  resolveDatabase,
  startDatabase,
  ferretdbBinary,
  ferretdbVersion,
  ensureGoBinary,
  registerService,
  serviceNames,
  serviceOptions,
  serviceState,
  readServiceState,
  writeServiceState,
  startService,
  stopService,
  serviceStatus,
  userCacheDir,
  PROJECT_CACHE_DIR,
  freeLoopbackPort,
  terminate,
  startLoggedChild,
  ensureChromium,
  ensureValgrind,
  ensurePrometheus,
  ensureNginx,
  startNginx,
  parseAccessLog,
  PROXY_ERROR_MARK,
  nodeBinary,
  errorCodes: codes,
  NodebenchError
}
