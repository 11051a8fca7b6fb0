'use strict'

// The NestJS apps of the tests: examples/nest-cats's TypeScript compiled against Nest 12 (the example itself,
// in the workspace), 11 and 10 (fixtures/nest11, fixtures/nest10: their own package-lock.json, installed here
// with `npm ci` and the example's sources copied in). Made ready by test/prepare.js before the first test;
// installs and builds are skipped when nothing changed.

const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const ROOT = path.join(__dirname, '..', '..')
const EXAMPLE = path.join(ROOT, 'examples', 'nest-cats')
const NEST_APPS = Object.freeze({
  12: EXAMPLE,
  11: path.join(__dirname, 'fixtures', 'nest11'),
  10: path.join(__dirname, 'fixtures', 'nest10')
})
const STAMP = '.nodebench-package-lock'

function run (command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd} (${result.error?.message ?? `exit ${result.status}`}):\n` +
      `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(-4000))
  }
}

/** `npm ci` in a fixture when its package-lock.json changed since the last one. */
function install (dir, onProgress) {
  const lock = fs.readFileSync(path.join(dir, 'package-lock.json'))
  const hash = crypto.createHash('sha256').update(lock).digest('hex')
  const stamp = path.join(dir, 'node_modules', STAMP)
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) return
  onProgress(`nodebench: installing ${path.relative(ROOT, dir)} (npm ci, once)...`)
  // --ignore-scripts: Nest 10's postinstall only asks for donations.
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, env: { ...process.env, npm_config_loglevel: 'error' } })
  fs.writeFileSync(stamp, hash)
}

/** Copies the example's sources into a fixture, leaving files that are the same untouched (build.js compares times). */
function syncSources (dir) {
  const from = path.join(EXAMPLE, 'src')
  const to = path.join(dir, 'src')
  const wanted = new Set()
  for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const relative = path.relative(from, path.join(entry.parentPath ?? entry.path, entry.name))
    wanted.add(relative)
    const source = fs.readFileSync(path.join(from, relative))
    const target = path.join(to, relative)
    if (fs.existsSync(target) && fs.readFileSync(target).equals(source)) continue
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, source)
  }
  if (!fs.existsSync(to)) return
  for (const entry of fs.readdirSync(to, { recursive: true, withFileTypes: true })) {
    const relative = path.relative(to, path.join(entry.parentPath ?? entry.path, entry.name))
    if (entry.isFile() && !wanted.has(relative)) fs.rmSync(path.join(to, relative))
  }
}

/** Installs and compiles the three apps (what is up to date is skipped). */
function prepareNestApps ({ onProgress = (line) => process.stderr.write(`${line}\n`) } = {}) {
  for (const [major, dir] of Object.entries(NEST_APPS)) {
    if (dir !== EXAMPLE) {
      install(dir, onProgress)
      syncSources(dir)
    }
    run(process.execPath, [path.join(EXAMPLE, 'build.js'), dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    if (!fs.existsSync(path.join(dir, 'dist', 'main.js'))) throw new Error(`Nest ${major}: ${dir}/dist/main.js was not built`)
  }
}

module.exports = { NEST_APPS, prepareNestApps, installFixture: install }
