'use strict'

const { ensureGoBinary } = require('./lib/go-binary')
const { ferretdbBinary, startDatabase, resolveDatabase } = require('./lib/database')
const { SERVICE_NAMES, startService, stopService, serviceStatus } = require('./lib/services')
const { userCacheDir } = require('./lib/cache-dirs')
const { codes, NodebenchError } = require('./lib/errors')

module.exports = {
  resolveDatabase,
  startDatabase,
  ferretdbBinary,
  ensureGoBinary,
  SERVICE_NAMES,
  startService,
  stopService,
  serviceStatus,
  userCacheDir,
  errorCodes: codes,
  NodebenchError
}
