'use strict'

// No module of the repository's packages requires itself back through others: an import cycle hands one
// side a half-built exports object, and shows two concerns that belong in one module (or in a third). And the
// CLI's folders are its architecture: a load kernel and renderers, one folder per feature that depends on
// those two and never on another feature, the command line over them.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const PACKAGE_DIRS = ['middleware', 'collector', 'packages/breakdown', 'packages/cli', 'packages/errors', 'packages/services', 'examples/mongo-admin']

function moduleFiles (dir) {
  const files = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'test', 'fixtures', 'benchmarks', 'public', 'views'].includes(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...moduleFiles(full))
    else if (entry.name.endsWith('.js')) files.push(full)
  }
  return files
}

/** The repository files a module requires by relative path. */
function localRequires (file) {
  const required = []
  for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(/require\('(\.{1,2}\/[^']*)'\)/g)) {
    const base = path.resolve(path.dirname(file), specifier)
    const candidates = [base, `${base}.js`, path.join(base, 'index.js')]
    const found = candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile())
    if (found !== undefined) required.push(found)
  }
  return required
}

test('no import cycle within any package', () => {
  const files = PACKAGE_DIRS.flatMap((dir) => moduleFiles(path.join(ROOT, dir)))
  const edges = new Map(files.map((file) => [file, localRequires(file)]))
  const cycles = []
  const state = new Map() // 1: on the current path, 2: done
  const visit = (file, trail) => {
    state.set(file, 1)
    for (const next of edges.get(file) || []) {
      if (state.get(next) === 1) cycles.push([...trail.slice(trail.indexOf(next)), next].map((f) => path.relative(ROOT, f)).join(' -> '))
      else if (state.get(next) === undefined) visit(next, [...trail, next])
    }
    state.set(file, 2)
  }
  for (const file of files) if (state.get(file) === undefined) visit(file, [file])
  assert.ok(files.length > 50, `read ${files.length} modules`)
  assert.deepEqual(cycles, [])
})

const CLI_LIB = path.join(ROOT, 'packages', 'cli', 'lib')
const CLI_FEATURES = ['bench', 'flame', 'browser', 'report', 'compare']
// lib's own leaf helpers, which anything may use: how a command line is refused and how option values are read.
const CLI_HELPERS = ['usage-error.js', 'command-options.js']

/**
 * The requires in the CLI's `lib` that cross its layers, as 'from -> to': a feature (bench, flame, browser,
 * report, compare) may require its own folder, the kernel and the renderers; the kernel only itself; the renderers only
 * themselves; any of them lib's leaf helpers. The command line (lib's own files, commands/) may require all.
 */
function layerViolations (lib) {
  const folderOf = (file) => {
    const [first, ...rest] = path.relative(lib, file).split(path.sep)
    return rest.length === 0 ? '.' : first
  }
  const allowed = {
    kernel: ['kernel'],
    render: ['render'],
    ...Object.fromEntries(CLI_FEATURES.map((feature) => [feature, [feature, 'kernel', 'render']]))
  }
  const helpers = new Set(CLI_HELPERS.map((name) => path.join(lib, name)))
  const wrong = []
  for (const file of moduleFiles(lib)) {
    const folder = folderOf(file)
    if (!Object.hasOwn(allowed, folder)) continue
    for (const required of localRequires(file)) {
      if (!required.startsWith(lib + path.sep) || helpers.has(required)) continue
      if (!allowed[folder].includes(folderOf(required))) wrong.push(`${path.relative(lib, file)} -> ${path.relative(lib, required)}`)
    }
  }
  return wrong
}

test('packages/cli/lib: features require only the kernel and the renderers; the kernel and the renderers no feature', () => {
  for (const folder of ['kernel', 'render', 'commands', ...CLI_FEATURES]) {
    assert.ok(fs.statSync(path.join(CLI_LIB, folder)).isDirectory(), `packages/cli/lib/${folder}/`)
  }
  assert.deepEqual(layerViolations(CLI_LIB), [])
})

test('the layer rule names a feature requiring another, the kernel or a renderer requiring a feature', (t) => {
  const lib = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'nodebench-layers-'))
  t.after(() => fs.rmSync(lib, { recursive: true, force: true }))
  const files = {
    'usage-error.js': '',
    'api.js': "require('./bench/run'); require('./flame/run')",
    'kernel/load.js': "require('./paths'); require('../usage-error'); require('../bench/run')",
    'kernel/paths.js': '',
    'render/page.js': "require('../kernel/paths')",
    'bench/run.js': "require('../kernel/load'); require('../render/page'); require('../flame/run')",
    'flame/run.js': "require('./profile')",
    'flame/profile.js': ''
  }
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(lib, name)), { recursive: true })
    fs.writeFileSync(path.join(lib, name), `'use strict'\n${text}\n`)
  }
  assert.deepEqual(layerViolations(lib).sort(), [
    path.join('bench', 'run.js') + ' -> ' + path.join('flame', 'run.js'),
    path.join('kernel', 'load.js') + ' -> ' + path.join('bench', 'run.js'),
    path.join('render', 'page.js') + ' -> ' + path.join('kernel', 'paths.js')
  ])
})
