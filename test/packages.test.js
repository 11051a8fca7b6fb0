'use strict'

// nodebench-test: once. The tarballs npm packs and what they hold: the Node.js version does not change what this tests.
// The packages as the registry would ship them: each workspace package is packed with `npm pack` (its
// `files` decide what goes in), unpacked into the node_modules of an app outside this checkout, and used
// there. Third-party dependencies are linked from this checkout's node_modules, so the test needs no
// registry. Nothing of a package may resolve a path into the checkout (its examples, tools or .cache).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { temporaryDir, runCli } = require('./support')
const { PUBLISHED } = require('../tools/pack')
const { packedPackages } = require('./packed')
const { npm } = require('./app-install')

const ROOT = path.join(__dirname, '..')
const SHOP = path.join(ROOT, 'packages', 'cli', 'test', 'fixtures', 'shop')

/** Where `name` is installed for the workspace package in `dir`: its own node_modules, else the root's. */
function installedDependency (dir, name) {
  for (const base of [path.join(ROOT, dir), ROOT]) {
    const candidate = path.join(base, 'node_modules', name)
    if (fs.existsSync(candidate)) return fs.realpathSync(candidate)
  }
  throw new Error(`${name}, a dependency of ${dir}, is not installed in this checkout`)
}

/** Installs every published package's tarball (`npm run pack`'s, packed once per run) into `<app>/node_modules`. */
function installPacked (app) {
  const packed = packedPackages()
  const names = new Set(packed.map((entry) => entry.name))
  const links = new Map()
  for (const [index, entry] of packed.entries()) {
    const target = path.join(app, 'node_modules', entry.name)
    fs.mkdirSync(target, { recursive: true })
    execFileSync('tar', ['-xzf', entry.file, '-C', target, '--strip-components=1'])
    // A peer dependency (@opentelemetry/api, express) is the app's: npm installs it beside the app's own.
    const { dependencies = {}, peerDependencies = {} } = require(path.join(target, 'package.json'))
    for (const dependency of Object.keys({ ...dependencies, ...peerDependencies })) {
      if (!names.has(dependency)) links.set(dependency, installedDependency(PUBLISHED[index], dependency))
    }
  }
  links.set('express', installedDependency('packages/cli', 'express'))
  for (const [name, real] of links) {
    fs.mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true })
    fs.symlinkSync(real, path.join(app, 'node_modules', name), 'dir')
  }
  return packed
}

// Run in the app: loads every package and reports what it resolved.
const PROBE = `
const path = require('node:path')
const names = JSON.parse(process.argv[1])
const resolved = Object.fromEntries(names.map((name) => [name, require.resolve(name)]))
for (const name of names) require(name)
const services = require('@nodebench/services')
console.log(JSON.stringify({
  resolved,
  loaded: Object.keys(require.cache),
  projectCacheDir: services.PROJECT_CACHE_DIR,
  ferretdbVersion: services.ferretdbVersion(),
  launcherBuild: require('node:fs').existsSync(path.join(path.dirname(require.resolve('@nodebench/services')), 'ferretdb', 'main.go'))
}))
`

test('installed from their tarballs, the packages load without the checkout, and bench measures an app there', { timeout: 300_000 }, async (t) => {
  const dir = fs.realpathSync(temporaryDir(t, 'nodebench-packed-'))
  const app = path.join(dir, 'app')
  fs.mkdirSync(app)
  const packed = installPacked(app)
  const names = packed.map((entry) => entry.name)
  assert.deepEqual([...names].sort(), ['@nodebench/breakdown', '@nodebench/collector', '@nodebench/errors', '@nodebench/services',
    '@nodebench/trace', 'nodebench'])
  // What a user reads on the registry ships in each: its README, LICENSE and CHANGELOG.
  for (const { name, files } of packed) {
    for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json']) assert.ok(files.includes(file), `${name} ships ${file}`)
  }

  const report = JSON.parse(execFileSync(process.execPath, ['-e', PROBE, JSON.stringify(names)], { cwd: app, encoding: 'utf8' }))
  for (const [name, file] of Object.entries(report.resolved)) {
    assert.ok(file.startsWith(path.join(app, 'node_modules') + path.sep), `${name} resolves in the app: ${file}`)
  }
  // Third-party modules are the checkout's installed ones (linked above); nothing else of it may load.
  const intoCheckout = report.loaded.filter((file) => file.startsWith(ROOT + path.sep) &&
    !path.relative(ROOT, file).split(path.sep).includes('node_modules'))
  assert.deepEqual(intoCheckout, [], 'no module of the checkout is loaded')
  assert.equal(report.projectCacheDir, path.join(app, 'node_modules', '.cache', 'nodebench'))
  assert.match(report.ferretdbVersion, /^v1\.\d+\.\d+$/, 'the FerretDB launcher ships with @nodebench/services')
  assert.equal(report.launcherBuild, true)

  // The installed command, on an app of the user's own, with its own workload.
  for (const file of ['server.js', 'nodebench.workload.js']) fs.copyFileSync(path.join(SHOP, file), path.join(app, file))
  const bin = path.join(app, 'node_modules', 'nodebench', 'bin', 'nodebench.js')
  const noApp = await runCli(['bench', '--quick'], { cwd: dir, bin })
  assert.equal(noApp.code, 2)
  assert.match(noApp.stderr, /^nodebench: bench: no app to measure: give --app <dir>.*\n$/)
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" server.js --port {port}`, '--url', 'http://127.0.0.1',
    '--reps', '1', '--warmup', '0', '--amount', '200', '--processes', '1', '--out', path.join(dir, 'run')], { cwd: app, bin })
  assert.equal(run.code, 0, run.stderr)
  // The run's folder is beside the app, not under it: its paths are printed whole, not as ../run.
  assert.ok(run.stderr.includes(`nodebench bench: results ${path.join(dir, 'run', 'results.json')}\n`), run.stderr)
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'results.json'), 'utf8'))
  assert.equal(results.workload.name, 'shop')
  assert.deepEqual(results.cells.map((cell) => [cell.scenario, cell.status]), [['item-read', 'ok'], ['item-create', 'ok']])
  const operation = results.cells[0].breakdown.operations.find((o) => o.route === '/items/:id')
  assert.deepEqual(operation.segments.map((s) => s.name), ['jsonParser', 'loadItem (:id)', 'renderItem'])
})

/** `{ 'node_modules/x': version }` of every package a package-lock.json locks. */
function lockedVersions (lock) {
  return Object.fromEntries(Object.entries(lock.packages).filter(([where]) => where !== '').map(([where, entry]) => [where, entry.version]))
}

// An Express 4 app locked before proxy-addr 2.0.8 (test/fixtures/express4-app): the tarballs' own requirements
// must leave its tree as it is locked. `nodebench` required Express 5.3, whose proxy-addr ^2.0.8 made npm move
// the app's 2.0.7 rather than keep two copies. npm resolves the install from the lockfile alone
// (--package-lock-only, the same tree `npm install` makes, without node_modules). Uses the registry; the file
// runs once per CI run (its tag).
test("installed into an app with a package-lock.json, the tarballs move no version of the app's own tree", {
  timeout: 600_000
}, async (t) => {
  const dir = fs.realpathSync(temporaryDir(t, 'nodebench-lock-'))
  const fixture = path.join(__dirname, 'fixtures', 'express4-app')
  const app = path.join(dir, 'app')
  fs.mkdirSync(app)
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(fixture, file), path.join(app, file))
  const before = lockedVersions(JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8')))
  assert.equal(before['node_modules/proxy-addr'], '2.0.7', 'the fixture locks an older version than the newest its dependents allow')
  const packed = packedPackages()
  await npm(app, ['install', '--package-lock-only', ...packed.map(({ file }) => file)])

  const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'))
  const after = lockedVersions(lock)
  const moved = Object.entries(before).filter(([where, version]) => after[where] !== version)
    .map(([where, version]) => `${where} ${version} -> ${after[where] ?? 'removed'}`)
  assert.deepEqual(moved, [])
  // One Express (the app's, which the nodebench command accepts) and one @opentelemetry/api (a peer: the app's).
  assert.deepEqual(Object.keys(after).filter((where) => /(^|\/)node_modules\/express$/.test(where)), ['node_modules/express'])
  assert.deepEqual(Object.keys(after).filter((where) => where.endsWith('node_modules/@opentelemetry/api')), ['node_modules/@opentelemetry/api'])
  for (const { name } of packed) assert.ok(lock.packages[`node_modules/${name}`], `${name} is installed`)
})

// What a published package exposes: its exports map's entries (or its main), each name typed in the entry's
// declaration file; nothing else of it can be required.
const SURFACES = PUBLISHED

/** Whether `name` is declared (or re-exported) in the text of a .d.ts. */
function declared (types, name) {
  return new RegExp(`export (declare )?(function|const|class|let|type|interface|enum) ${name}\\b|export \\{[^}]*\\b${name}\\b[^}]*\\}`).test(types)
}

test('each published package exposes its surface only, every name of it typed', () => {
  for (const dir of SURFACES) {
    const manifest = require(path.join(ROOT, dir, 'package.json'))
    const entries = manifest.exports
      ? Object.entries(manifest.exports).filter(([subpath]) => subpath !== './package.json')
        .map(([subpath, target]) => ({ subpath, main: target.default, types: target.types }))
      : [{ subpath: '.', main: manifest.main, types: manifest.types }]
    for (const { subpath, main, types } of entries) {
      const where = `${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`
      assert.ok(types && fs.existsSync(path.join(ROOT, dir, types)), `${where}: a declaration file`)
      assert.ok(manifest.files.includes(types.replace(/^\.\//, '')), `${where}: ${types} is published`)
      const text = fs.readFileSync(path.join(ROOT, dir, types), 'utf8')
      const names = Object.keys(require(path.join(ROOT, dir, main)))
      assert.ok(names.length > 0 && names.length <= 30, `${where}: a short list (${names.length})`)
      assert.deepEqual(names.filter((name) => !declared(text, name)), [], `${where}: every name in ${types}`)
    }
    if (manifest.exports) {
      assert.throws(() => require(`${manifest.name}/lib/errors`), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, `${manifest.name}: its lib/ is private`)
    }
  }
  const services = require('@nodebench/services')
  for (const internal of ['terminate', 'startLoggedChild', 'readServiceState', 'writeServiceState']) {
    assert.equal(services[internal], undefined, `@nodebench/services does not expose ${internal}`)
  }
})

test('each published package is ready to publish: metadata, a CHANGELOG for its version, scoped ones public', () => {
  for (const dir of PUBLISHED) {
    const manifest = require(path.join(ROOT, dir, 'package.json'))
    const where = `${dir}/package.json`
    assert.equal(manifest.license, 'MIT', where)
    assert.ok(fs.readFileSync(path.join(ROOT, dir, 'LICENSE'), 'utf8').startsWith('MIT License'), `${dir}/LICENSE`)
    assert.equal(manifest.repository?.type, 'git', `${where}: repository`)
    assert.match(manifest.repository.url, /^git\+https:\/\/.+\.git$/, `${where}: repository.url`)
    assert.equal(manifest.repository.directory, dir, `${where}: repository.directory is the package's folder`)
    assert.ok(Array.isArray(manifest.keywords) && manifest.keywords.length >= 3, `${where}: keywords`)
    assert.ok(typeof manifest.description === 'string' && manifest.description.length > 20, `${where}: description`)
    assert.ok(manifest.types && manifest.exports && manifest.exports['.']?.types, `${where}: types, and an exports map that names them`)
    assert.ok(Array.isArray(manifest.files) && manifest.files.length > 0, `${where}: files`)
    assert.deepEqual(manifest.engines, require('../package.json').engines, `${where}: engines as the root's`)
    if (manifest.name.startsWith('@')) assert.deepEqual(manifest.publishConfig, { access: 'public' }, `${where}: a scoped package published public`)
    const changelog = fs.readFileSync(path.join(ROOT, dir, 'CHANGELOG.md'), 'utf8')
    assert.match(changelog, new RegExp(`^## ${manifest.version.replace(/\./g, '\\.')}\\b`, 'm'), `${dir}/CHANGELOG.md has ${manifest.version}`)
    for (const dependency of Object.keys(manifest.dependencies || {}).filter((name) => name.startsWith('@nodebench/'))) {
      const published = PUBLISHED.map((other) => require(path.join(ROOT, other, 'package.json')))
      assert.ok(published.some((other) => other.name === dependency), `${where}: ${dependency} is published too`)
    }
  }
})

test('CI dry-runs the publication of every published package, offline (no login), after the suite', () => {
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
  const loop = /for package in ([^;]+); do\n\s+npm publish --dry-run --offline --workspace "\$package"\ndone/.exec(ci)
  assert.ok(loop, 'a publish --dry-run --offline loop in .ci/run')
  assert.deepEqual(loop[1].trim().split(/\s+/), [...PUBLISHED])
  assert.ok(ci.indexOf('\nnpm test\n') !== -1 && ci.indexOf('\nnpm test\n') < loop.index, 'after the tests')
})
