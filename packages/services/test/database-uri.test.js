'use strict'

// The URI `nodebench services start db` prints (lib/database-uri.js): the database's address with a name.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { checkDatabaseName, databaseNameFor, uriWithDatabase } = require('../lib/database-uri')
const { temporaryDir, coded } = require('./helpers')

test('the name: the package.json name without its scope, made a database name; else app', (t) => {
  const dir = temporaryDir(t)
  assert.equal(databaseNameFor(dir), 'app', 'no package.json')
  for (const [name, expected] of [['shop', 'shop'], ['@acme/shop-api', 'shop-api'], ['my.app', 'my-app'], ['', 'app'], [42, '42']]) {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name }))
    assert.equal(databaseNameFor(dir), expected, JSON.stringify(name))
  }
  fs.writeFileSync(path.join(dir, 'package.json'), '{ not json')
  assert.equal(databaseNameFor(dir), 'app')
})

test('--database: a MongoDB database name, else a usage error; the URI keeps its query', () => {
  assert.equal(checkDatabaseName('shop_1'), 'shop_1')
  for (const bad of ['', 'a.b', 'a/b', 'a b', 'x'.repeat(64)]) {
    assert.throws(() => checkDatabaseName(bad), coded('NB_ERR_USAGE', /^--database ".*": not a MongoDB database name; expected 1 to 63 bytes/))
  }
  assert.equal(uriWithDatabase('mongodb://127.0.0.1:4000/', 'shop'), 'mongodb://127.0.0.1:4000/shop')
  assert.equal(uriWithDatabase('mongodb://127.0.0.1:4000/?directConnection=true', 'shop'), 'mongodb://127.0.0.1:4000/shop?directConnection=true')
})
