'use strict'

// No module of the repository's packages requires itself back through others: an import cycle hands one
// side a half-built exports object, and shows two concerns that belong in one module (or in a third).

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
