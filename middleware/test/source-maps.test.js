'use strict'

// A TypeScript app (test/fixtures/ts-app: an interface, a doc comment and type-only imports that the compiled
// code does not have, a typed catchAsync and a middleware factory) run from what tsc wrote, or from its sources by
// tsx and ts-node: each segment's file and line are where the user wrote the function in src/*.ts, read from tsc's
// source maps beside the files, inline in them, Node.js's own (--enable-source-maps, tsx), or the map of the code
// ts-node compiled in memory. Without the sources (a build shipped alone), the compiled file and its line stay.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')
const ts = require('typescript')

const FIXTURE = path.join(__dirname, 'fixtures', 'ts-app', 'src')
const EXPRESS = require.resolve('express4')
const NODEBENCH = path.join(__dirname, '..')

// Run in a child process, so that whether Node.js keeps source maps is the test's choice, not the runner's.
const RUN_APP = `
const express = require(process.env.EXPRESS_PATH)
const { nodebenchTrace } = require(process.env.NODEBENCH_PATH)
const { createApp } = require(process.env.APP_PATH)
const trace = nodebenchTrace({ exporter: 'none' })
const server = createApp(express, trace).listen(0, '127.0.0.1', async () => {
  try {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/users/1')
    if (res.status !== 200 || res.headers.get('x-stamp') !== 'v1') throw new Error('unexpected response ' + res.status)
    await res.text()
    const [operation] = trace.breakdown().operations
    process.stdout.write(JSON.stringify(operation.segments.map(({ name, kind, file, line }) => ({ name, kind, file, line }))))
  } finally {
    server.close()
  }
})
`

/** The fixture's sources copied to `dir`/src and compiled by tsc's API to `dir`/dist, as `tsc` would. */
function compile (dir, options) {
  const src = path.join(dir, 'src')
  fs.cpSync(FIXTURE, src, { recursive: true })
  const program = ts.createProgram({
    rootNames: fs.readdirSync(src).map((file) => path.join(src, file)),
    options: {
      rootDir: src,
      outDir: path.join(dir, 'dist'),
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      types: [],
      ...options
    }
  })
  const { emitSkipped } = program.emit()
  assert.equal(emitSkipped, false, 'tsc emitted the app')
  return dir
}

/** The segments of a request to the app at `app` (dist/app.js, or src/app.ts run by a loader given in `nodeArgs`). */
async function segmentsOf (dir, nodeArgs = [], app = path.join(dir, 'dist', 'app.js')) {
  const run = path.join(dir, 'run.cjs')
  fs.writeFileSync(run, RUN_APP)
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgs, run], {
    cwd: dir,
    env: { ...process.env, EXPRESS_PATH: EXPRESS, NODEBENCH_PATH: NODEBENCH, APP_PATH: app, NODE_OPTIONS: '' },
    timeout: 60_000
  })
  return JSON.parse(stdout)
}

/** The 1-based line of the first line of `file` that holds `text`. */
function lineOf (file, text) {
  const index = fs.readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text))
  assert.notEqual(index, -1, `${text} in ${file}`)
  return index + 1
}

/** What the segments should say when they point at `folder` (src, *.ts; or dist, *.js). */
function expected (dir, folder) {
  const source = folder === 'src'
  const at = (file, text) => {
    const full = path.join(dir, folder, source ? `${file}.ts` : `${file}.js`)
    return { file: full, line: lineOf(full, text) }
  }
  return [
    { name: 'stamp', kind: 'middleware', ...at('app', 'const stamp = ') },
    { name: 'usersController.getUser', kind: 'handler', ...at('users.controller', source ? 'catchAsync(async' : 'catchAsync)(async') }
  ]
}

function tempDir (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-ts-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('tsc with source maps beside its files: each segment at its line of src/*.ts', async (t) => {
  const dir = compile(tempDir(t), { sourceMap: true })
  const want = expected(dir, 'src')
  // The fixture is worth its name: the compiled lines are not the source's.
  assert.notDeepEqual(expected(dir, 'dist').map(({ line }) => line), want.map(({ line }) => line))
  assert.deepEqual(await segmentsOf(dir), want)
})

test('the same with Node.js keeping the maps (--enable-source-maps)', async (t) => {
  const dir = compile(tempDir(t), { sourceMap: true })
  assert.deepEqual(await segmentsOf(dir, ['--enable-source-maps']), expected(dir, 'src'))
})

test('tsc with inline source maps: each segment at its line of src/*.ts', async (t) => {
  const dir = compile(tempDir(t), { inlineSourceMap: true })
  assert.ok(!fs.existsSync(path.join(dir, 'dist', 'app.js.map')), 'no map file beside the compiled app')
  assert.deepEqual(await segmentsOf(dir), expected(dir, 'src'))
})

// The TypeScript sources run as they are, compiled on load: tsx (esbuild, which also keeps names with a helper of its
// own, `__name(factory, "stamp")`) and ts-node (TypeScript's compiler, in memory, with its own source map support).
function sourcesOnly (t) {
  const dir = tempDir(t)
  fs.cpSync(FIXTURE, path.join(dir, 'src'), { recursive: true })
  return dir
}

test('tsx runs src/*.ts: the factory and the wrapper named as under tsc, each at its line of src/*.ts', async (t) => {
  const dir = sourcesOnly(t)
  const want = expected(dir, 'src')
  // esbuild's modules export through getters, which nodebench never runs: the wrapped controller is named by its
  // variable, not by its module's export.
  want[1].name = 'getUser'
  assert.deepEqual(await segmentsOf(dir, [require.resolve('tsx/cli')], path.join(dir, 'src', 'app.ts')), want)
})

test('ts-node runs src/*.ts: each segment at its line of src/*.ts', async (t) => {
  const dir = sourcesOnly(t)
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', types: [] } }))
  assert.deepEqual(await segmentsOf(dir, ['--require', require.resolve('ts-node/register')], path.join(dir, 'src', 'app.ts')), expected(dir, 'src'))
})

test('a build without its sources, or without maps: the compiled file and its line stay', async (t) => {
  const shipped = compile(tempDir(t), { sourceMap: true })
  fs.rmSync(path.join(shipped, 'src'), { recursive: true })
  assert.deepEqual(await segmentsOf(shipped), expected(shipped, 'dist'))

  const plain = compile(tempDir(t), {})
  assert.deepEqual(await segmentsOf(plain), expected(plain, 'dist'))
})
