'use strict'

// The Node.js versions nodebench supports are stated once (the root package.json's `engines.node`), every
// package of the project states the same, and every package of the locked tree supports at least those:
// otherwise `npm ci` prints EBADENGINE warnings on a supported Node.js, or a dependency stops working on it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const semver = require('semver')

const root = path.join(__dirname, '..')
const rootPackage = require('../package.json')
const lock = require('../package-lock.json')
const supported = rootPackage.engines.node

/** The project's own packages: the root and its workspaces, as the lockfile lists them (links resolved). */
function projectPackages () {
  return Object.entries(lock.packages)
    .filter(([location, entry]) => !location.includes('node_modules/') && !entry.link)
    .map(([location]) => ({ location: location || '.', manifest: JSON.parse(fs.readFileSync(path.join(root, location, 'package.json'), 'utf8')) }))
}

test('the supported range names the Node.js lines the suite runs on: 20, 22 and 24', () => {
  assert.ok(semver.validRange(supported), `engines.node ${JSON.stringify(supported)} is not a valid range`)
  for (const line of [20, 22, 24]) {
    assert.ok(semver.intersects(supported, `${line}.x`), `Node.js ${line} is missing from ${supported}`)
  }
  assert.ok(!semver.intersects(supported, '18.x'), 'Node.js 18 is not tested and must not be claimed')
  assert.ok(semver.satisfies(process.versions.node, supported), `the suite runs on Node.js ${process.versions.node}, outside ${supported}`)
})

test('every package of the project states the same engines.node as the root', () => {
  const packages = projectPackages()
  assert.ok(packages.length >= 7, `expected the root and its workspaces; found ${packages.map((p) => p.location).join(', ')}`)
  for (const { location, manifest } of packages) {
    assert.equal(manifest.engines && manifest.engines.node, supported, `${location}/package.json`)
  }
})

test('every locked dependency supports every Node.js version nodebench supports (no EBADENGINE)', () => {
  const narrower = []
  for (const [location, entry] of Object.entries(lock.packages)) {
    const needs = entry.engines && entry.engines.node
    if (!location.includes('node_modules/') || typeof needs !== 'string') continue
    if (!semver.validRange(needs) || !semver.subset(supported, needs)) narrower.push(`${location.replace(/^.*node_modules\//, '')}@${entry.version} needs ${needs}`)
  }
  assert.deepEqual(narrower, [], `these do not support all of ${supported}`)
})
