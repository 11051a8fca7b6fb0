'use strict'

// lerna.json (how the packages are versioned, read by `npx lerna`) names the same package folders as the
// root's npm workspaces, and says the packages are versioned independently with npm.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const rootPackage = require('../package.json')
const lerna = require('../lerna.json')

test('lerna.json: the workspaces of package.json, independent versions, npm', () => {
  assert.deepEqual(lerna.packages, rootPackage.workspaces)
  assert.equal(lerna.version, 'independent')
  assert.equal(lerna.npmClient, 'npm')
})
