'use strict'

const os = require('node:os')
const path = require('node:path')

// Where nodebench keeps what it builds and runs. The project cache holds the binaries a project uses, the
// embedded database's data and the running services' state files:
// - in a nodebench checkout (this package at <root>/packages/services), `<root>/.cache`, git-ignored;
// - installed from the registry (this package inside a node_modules), `node_modules/.cache/nodebench`,
//   where the tools of a project keep their caches (babel-loader, eslint, ava: the find-cache-dir
//   convention), so that it goes when node_modules does.
// The per-user cache outlives both, so a fresh clone or install reuses a binary an earlier one built (as
// mongodb-memory-server does with its downloads).

const PACKAGE_DIR = path.resolve(__dirname, '..')

/** The project cache of a package installed at `packageDir` (see above). */
function projectCacheDirOf (packageDir) {
  // The outermost node_modules: pnpm keeps packages in node_modules/.pnpm/<id>/node_modules.
  const parts = packageDir.split(path.sep)
  const nodeModules = parts.indexOf('node_modules')
  if (nodeModules > 0) return path.join(parts.slice(0, nodeModules + 1).join(path.sep), '.cache', 'nodebench')
  return path.join(packageDir, '..', '..', '.cache')
}

const PROJECT_CACHE_DIR = projectCacheDirOf(PACKAGE_DIR)
/** Binaries built for this project. */
const BIN_DIR = path.join(PROJECT_CACHE_DIR, 'bin')

/** `NODEBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/nodebench`, else `~/.cache/nodebench`. */
function userCacheDir (env = process.env) {
  if (env.NODEBENCH_CACHE_DIR) return path.resolve(env.NODEBENCH_CACHE_DIR)
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'nodebench')
  return path.join(os.homedir(), '.cache', 'nodebench')
}

/** Services' state files: `NODEBENCH_STATE_DIR`, else `services` in the project cache. */
function stateDir (env = process.env) {
  return env.NODEBENCH_STATE_DIR ? path.resolve(env.NODEBENCH_STATE_DIR) : path.join(PROJECT_CACHE_DIR, 'services')
}

/** The embedded database's data: `NODEBENCH_DATA_DIR`, else `ferretdb/data` in the project cache. */
function databaseDataDir (env = process.env) {
  return env.NODEBENCH_DATA_DIR ? path.resolve(env.NODEBENCH_DATA_DIR) : path.join(PROJECT_CACHE_DIR, 'ferretdb', 'data')
}

module.exports = { PROJECT_CACHE_DIR, BIN_DIR, projectCacheDirOf, userCacheDir, stateDir, databaseDataDir }
