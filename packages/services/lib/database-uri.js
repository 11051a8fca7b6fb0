'use strict'

// The URI `nodebench services start db` prints: the database's address with a database name, so that an app
// pastes it as is (a driver given no name uses `test`, and connect-mongo or mongoose then write there). The
// name is --database's, else the package.json name of the directory the command runs in (the app's), else
// `app`.

const fs = require('node:fs')
const path = require('node:path')
const { codes, NodebenchError } = require('@nodebench/errors')

const DEFAULT_NAME = 'app'
// MongoDB's rule: at most 63 bytes, none of / \ . " $ * < > : | ? or a space.
const FORBIDDEN = /[/\\. "$*<>:|?\0]/
const MAX_LENGTH = 63

/** Whether `name` can name a MongoDB database. */
function isDatabaseName (name) {
  return typeof name === 'string' && name.length > 0 && Buffer.byteLength(name) <= MAX_LENGTH && !FORBIDDEN.test(name)
}

/** `name` when it can name a database; else a usage error saying what can. */
function checkDatabaseName (name) {
  if (isDatabaseName(name)) return name
  throw new NodebenchError(codes.NB_ERR_USAGE,
    `--database ${JSON.stringify(name)}: not a MongoDB database name; expected 1 to 63 bytes without / \\ . " $ * < > : | ? or spaces`)
}

/** The database name for an app in `dir`: its package.json name without a scope, made a valid name; else 'app'. */
function databaseNameFor (dir) {
  try {
    const { name } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
    const bare = String(name).replace(/^@[^/]+\//, '').replace(/[/\\. "$*<>:|?\0]+/g, '-').slice(0, MAX_LENGTH)
    return isDatabaseName(bare) ? bare : DEFAULT_NAME
  } catch {
    return DEFAULT_NAME
  }
}

/** `uri` (mongodb://host:port/) with `name` as its database, its query kept. */
function uriWithDatabase (uri, name) {
  const url = new URL(uri)
  url.pathname = `/${encodeURIComponent(name)}`
  return url.toString()
}

module.exports = { checkDatabaseName, databaseNameFor, uriWithDatabase, isDatabaseName }
