'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const os = require('node:os')
const path = require('node:path')
const { PROJECT_CACHE_DIR, BIN_DIR, projectCacheDirOf, userCacheDir, stateDir, databaseDataDir } = require('../lib/cache-dirs')

const ROOT_DIR = path.resolve(__dirname, '..', '..', '..')

test('in this checkout the project cache is <root>/.cache, the root being the repository', () => {
  assert.equal(require(path.join(ROOT_DIR, 'package.json')).name, 'nodebench')
  assert.equal(PROJECT_CACHE_DIR, path.join(ROOT_DIR, '.cache'))
  assert.equal(BIN_DIR, path.join(ROOT_DIR, '.cache', 'bin'))
})

test('installed from the registry, the project cache is node_modules/.cache/nodebench (npm\'s and pnpm\'s layouts)', () => {
  const at = (...parts) => path.join(path.sep, ...parts)
  assert.equal(projectCacheDirOf(at('app', 'node_modules', '@nodebench', 'services')), at('app', 'node_modules', '.cache', 'nodebench'))
  assert.equal(projectCacheDirOf(at('app', 'node_modules', 'nodebench', 'node_modules', '@nodebench', 'services')),
    at('app', 'node_modules', '.cache', 'nodebench'))
  assert.equal(projectCacheDirOf(at('app', 'node_modules', '.pnpm', '@nodebench+services@0.1.0', 'node_modules', '@nodebench', 'services')),
    at('app', 'node_modules', '.cache', 'nodebench'))
  assert.equal(projectCacheDirOf(at('src', 'nodebench', 'packages', 'services')), at('src', 'nodebench', '.cache'))
})

test('per-user cache: NODEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/nodebench, else ~/.cache/nodebench', () => {
  assert.equal(userCacheDir({ NODEBENCH_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' }), '/c')
  assert.equal(userCacheDir({ XDG_CACHE_HOME: '/x' }), '/x/nodebench')
  assert.equal(userCacheDir({}), path.join(os.homedir(), '.cache', 'nodebench'))
  assert.equal(userCacheDir({ NODEBENCH_CACHE_DIR: 'relative' }), path.resolve('relative'))
})

test('state and data dirs: NODEBENCH_STATE_DIR and NODEBENCH_DATA_DIR, else under .cache', () => {
  assert.equal(stateDir({}), path.join(ROOT_DIR, '.cache', 'services'))
  assert.equal(stateDir({ NODEBENCH_STATE_DIR: '/s' }), '/s')
  assert.equal(databaseDataDir({}), path.join(ROOT_DIR, '.cache', 'ferretdb', 'data'))
  assert.equal(databaseDataDir({ NODEBENCH_DATA_DIR: '/d' }), '/d')
})
