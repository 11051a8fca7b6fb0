'use strict'

// nodebench-test: once. Builds made with Go: the Node.js version does not change what this tests.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { ensureGoBinary } = require('../components')
const { sourceHash } = require('../lib/go-binary')
const { temporaryDir, coded } = require('./helpers')

/** A throwaway Go program and cache dirs; `build` counts its calls and writes a shell script, not Go. */
function fixture (t) {
  const dir = temporaryDir(t)
  const sourceDir = path.join(dir, 'src')
  fs.mkdirSync(sourceDir)
  fs.writeFileSync(path.join(sourceDir, 'go.mod'), 'module example.com/hello\n\ngo 1.22\n')
  fs.writeFileSync(path.join(sourceDir, 'main.go'),
    'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from go") }\n')
  const progress = []
  const calls = { build: 0 }
  const options = {
    name: 'hello',
    version: 'v1.0.0',
    sourceFiles: ['go.mod', 'main.go'].map((file) => path.join(sourceDir, file)),
    binDir: path.join(dir, 'project', 'bin'),
    userCacheDir: path.join(dir, 'user'),
    onProgress: (message) => progress.push(message),
    build: async ({ output }) => {
      calls.build++
      fs.writeFileSync(output, '#!/bin/sh\necho fake build\n')
    }
  }
  return { dir, sourceDir, options, progress, calls }
}

test('the first call builds into binDir and the per-user cache; the second is a cache hit', async (t) => {
  const { options, progress, calls } = fixture(t)
  const first = await ensureGoBinary(options)
  assert.equal(calls.build, 1)
  assert.equal(path.dirname(first), options.binDir)
  assert.match(path.basename(first), /^hello-v1\.0\.0-[0-9a-f]{12}$/)
  assert.equal(execFileSync(first, { encoding: 'utf8' }), 'fake build\n')
  assert.ok(fs.existsSync(path.join(options.userCacheDir, 'bin', path.basename(first))))
  assert.match(progress[0], /^nodebench: building hello v1\.0\.0 from the Go module proxy \(first time only\)\.\.\.$/)
  assert.deepEqual(fs.readdirSync(options.binDir), [path.basename(first)], 'no temporary file is left behind')

  progress.length = 0
  assert.equal(await ensureGoBinary(options), first)
  assert.equal(calls.build, 1)
  assert.deepEqual(progress, [])
})

test('a binary missing from binDir is copied from the per-user cache, without building', async (t) => {
  const { options, calls } = fixture(t)
  const built = await ensureGoBinary(options)
  fs.rmSync(options.binDir, { recursive: true })
  assert.equal(await ensureGoBinary({ ...options, env: { ...process.env, PATH: '/nonexistent' } }), built)
  assert.equal(calls.build, 1)
  assert.equal(fs.statSync(built).mode & 0o111, 0o111, 'executable')
})

test('a changed source file changes the cache key, so the program is rebuilt', async (t) => {
  const { sourceDir, options, calls } = fixture(t)
  const before = await ensureGoBinary(options)
  fs.appendFileSync(path.join(sourceDir, 'main.go'), '\n// changed\n')
  const after = await ensureGoBinary(options)
  assert.notEqual(after, before)
  assert.equal(calls.build, 2)
  assert.equal(fs.existsSync(before), false, 'the older build is removed from the checkout')
  assert.ok(fs.existsSync(path.join(options.userCacheDir, 'bin', path.basename(before))), 'the per-user cache keeps it')
  assert.notEqual(sourceHash(options.sourceFiles), path.basename(before).split('-').pop())
})

test('concurrent builders each end with the complete binary', async (t) => {
  const { options } = fixture(t)
  const slowBuild = async ({ output }) => {
    fs.writeFileSync(output, '#!/bin/sh\n')
    await new Promise((resolve) => setTimeout(resolve, 50))
    fs.appendFileSync(output, 'echo complete\n')
  }
  const paths = await Promise.all([1, 2, 3].map(() => ensureGoBinary({ ...options, build: slowBuild })))
  assert.equal(new Set(paths).size, 1)
  assert.equal(execFileSync(paths[0], { encoding: 'utf8' }), 'complete\n')
  assert.deepEqual(fs.readdirSync(options.binDir), [path.basename(paths[0])])
})

test('without go on PATH: NB_ERR_GO_MISSING, naming the alternatives', async (t) => {
  const { options, calls } = fixture(t)
  const alternatives = ['set MONGODB_URI to a running MongoDB, or', 'use Docker']
  await assert.rejects(
    ensureGoBinary({ ...options, alternatives, env: { ...process.env, PATH: '/nonexistent' } }),
    coded('NB_ERR_GO_MISSING', /needs Go .*`go` is not on PATH.*\n {2}- set MONGODB_URI to a running MongoDB, or\n {2}- use Docker$/s))
  assert.equal(calls.build, 0)
})

test('a real go build: the program runs, built with GOFLAGS=-mod=mod', async (t) => {
  const { sourceDir, options } = fixture(t)
  let goflags
  const binary = await ensureGoBinary({
    ...options,
    build: ({ output, env, go }) => {
      goflags = env.GOFLAGS
      return go(['build', '-o', output, '.'], { cwd: sourceDir })
    }
  })
  assert.equal(execFileSync(binary, { encoding: 'utf8' }), 'hello from go\n')
  assert.match(goflags, /(^| )-mod=mod$/)
})

test('a failed go build: NB_ERR_GO_BUILD with the tail of go\'s output, and nothing cached', async (t) => {
  const { sourceDir, options } = fixture(t)
  fs.writeFileSync(path.join(sourceDir, 'main.go'), 'package main\n\nfunc main() { undefinedFunction() }\n')
  await assert.rejects(
    ensureGoBinary({ ...options, build: ({ output, go }) => go(['build', '-o', output, '.'], { cwd: sourceDir }) }),
    coded('NB_ERR_GO_BUILD', /building hello v1\.0\.0 with Go failed \(exit code 1\); the last lines of go's output:\n.*undefined: undefinedFunction/s))
  assert.deepEqual(fs.readdirSync(options.binDir), [])
  assert.equal(fs.existsSync(path.join(options.userCacheDir, 'bin')), false)
})

test('a build that writes no file: NB_ERR_GO_BUILD', async (t) => {
  const { options } = fixture(t)
  await assert.rejects(ensureGoBinary({ ...options, build: async () => {} }),
    coded('NB_ERR_GO_BUILD', /with Go failed \(the build wrote no file at .*\.tmp\); go printed nothing/))
})

test('an unwritable per-user cache is reported, not fatal', async (t) => {
  const { dir, options, progress } = fixture(t)
  const notADirectory = path.join(dir, 'file')
  fs.writeFileSync(notADirectory, '')
  const binary = await ensureGoBinary({ ...options, userCacheDir: notADirectory })
  assert.ok(fs.existsSync(binary))
  assert.match(progress.at(-1), /could not also keep hello in the per-user cache .*; continuing/)
})

test('options are validated: NB_ERR_INVALID_OPTION', async (t) => {
  const { options } = fixture(t)
  await assert.rejects(ensureGoBinary({ ...options, name: 'a/b' }), coded('NB_ERR_INVALID_OPTION', /option "name" must be .*; received 'a\/b'/))
  await assert.rejects(ensureGoBinary({ ...options, sourceFiles: [] }), coded('NB_ERR_INVALID_OPTION', /option "sourceFiles"/))
  await assert.rejects(ensureGoBinary({ ...options, build: 'go build' }), coded('NB_ERR_INVALID_OPTION', /option "build"/))
})
