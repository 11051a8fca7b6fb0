'use strict'

const os = require('node:os')
const path = require('node:path')

// Where nodebench keeps what it builds and runs. The project cache (`<root>/.cache`, git-ignored) holds the
// binaries the checkout uses, the embedded database's data and the running services' state files. The
// per-user cache outlives checkouts, so a fresh clone reuses a binary an earlier one built (as
// mongodb-memory-server does with its downloads).

const ROOT_DIR = path.resolve(__dirname, '../../..')
const PROJECT_CACHE_DIR = path.join(ROOT_DIR, '.cache')
/** Binaries built for this checkout. */
const BIN_DIR = path.join(PROJECT_CACHE_DIR, 'bin')

/** `NODEBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/nodebench`, else `~/.cache/nodebench`. */
function userCacheDir (env = process.env) {
  if (env.NODEBENCH_CACHE_DIR) return path.resolve(env.NODEBENCH_CACHE_DIR)
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'nodebench')
  return path.join(os.homedir(), '.cache', 'nodebench')
}

/** Services' state files: `NODEBENCH_STATE_DIR`, else `<root>/.cache/services`. */
function stateDir (env = process.env) {
  return env.NODEBENCH_STATE_DIR ? path.resolve(env.NODEBENCH_STATE_DIR) : path.join(PROJECT_CACHE_DIR, 'services')
}

/** The embedded database's data: `NODEBENCH_DATA_DIR`, else `<root>/.cache/ferretdb/data`. */
function databaseDataDir (env = process.env) {
  return env.NODEBENCH_DATA_DIR ? path.resolve(env.NODEBENCH_DATA_DIR) : path.join(PROJECT_CACHE_DIR, 'ferretdb', 'data')
}

module.exports = { ROOT_DIR, PROJECT_CACHE_DIR, BIN_DIR, userCacheDir, stateDir, databaseDataDir }
