#!/usr/bin/env node
// node examples/nest-cats/build.js [<app folder>]
//
// Compiles a Nest app's TypeScript (`src/` -> `dist/`, its tsconfig.json) with the project's TypeScript, when
// `dist/` is missing or older than a file of `src/`. The folder defaults to this example; the tests compile the
// same sources against Nest 11 and 10 this way (middleware/test/fixtures/nest10, nest11).

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const HERE = path.dirname(fileURLToPath(import.meta.url))

/** The newest modification time of the files under `dir` (0 when it does not exist). */
function newest (dir) {
  if (!fs.existsSync(dir)) return 0
  let time = 0
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    time = Math.max(time, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return time
}

/** Compiles `appDir` when its `dist/` is older than its sources; `log` gets a line when it does. */
export function buildApp (appDir = HERE, { log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const sources = Math.max(newest(path.join(appDir, 'src')), fs.statSync(path.join(appDir, 'tsconfig.json')).mtimeMs)
  const main = path.join(appDir, 'dist', 'main.js')
  if (fs.existsSync(main) && newest(path.join(appDir, 'dist')) >= sources) return false
  log(`nest-cats: compiling ${path.relative(process.cwd(), appDir) || '.'} (TypeScript, src -> dist)...`)
  fs.rmSync(path.join(appDir, 'dist'), { recursive: true, force: true })
  // TypeScript 7 exports no bin/ path: its tsc is found beside its package.json.
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', appDir], { encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(`tsc -p ${appDir} failed (exit ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`)
  }
  return true
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildApp(process.argv[2] ? path.resolve(process.argv[2]) : HERE)
  } catch (err) {
    process.stderr.write(`${err.message}\n`)
    process.exitCode = 1
  }
}
