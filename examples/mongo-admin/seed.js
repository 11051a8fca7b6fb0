#!/usr/bin/env node
'use strict'

// node examples/mongo-admin/seed.js [--count <n>]
//
// Makes database `nodebench`, collection `users` hold exactly the study's documents
// `{ username: 'user-<n>' }` for n < count (default 1000): missing ones are inserted, any other document
// (e.g. left by a write run) is removed, so running it again changes nothing. Progress goes to stderr; the
// last line of stdout is the id of a document to read (user-0's).

const { parseArgs } = require('node:util')
const { MongoClient } = require('mongodb')

const DATABASE = 'nodebench'
const COLLECTION = 'users'

function log (message) {
  process.stderr.write(`${message}\n`)
}

/**
 * Seeds `nodebench.users` through `client`. Returns the id of user-0 and what changed.
 * @returns {Promise<{ documentId: string, inserted: number, removed: number, count: number }>}
 */
async function seed (client, { count = 1000 } = {}) {
  const users = client.db(DATABASE).collection(COLLECTION)
  const wanted = new Set(Array.from({ length: count }, (_, n) => `user-${n}`))
  const existing = await users.find({}, { projection: { username: 1 } }).toArray()
  const kept = new Set()
  const toRemove = []
  for (const document of existing) {
    if (wanted.has(document.username) && !kept.has(document.username)) kept.add(document.username)
    else toRemove.push(document._id)
  }
  if (toRemove.length > 0) await users.deleteMany({ _id: { $in: toRemove } })
  const missing = Array.from(wanted).filter((username) => !kept.has(username)).map((username) => ({ username }))
  if (missing.length > 0) await users.insertMany(missing, { ordered: false })
  const first = await users.findOne({ username: 'user-0' }, { projection: { _id: 1 } })
  return { documentId: String(first._id), inserted: missing.length, removed: toRemove.length, count }
}

async function main () {
  let count
  try {
    const { values } = parseArgs({ options: { count: { type: 'string', default: '1000' } }, strict: true })
    count = Number(values.count)
    if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
      throw new Error(`--count must be a whole number from 1 to 1000000; received "${values.count}"`)
    }
  } catch (err) {
    log(`seed: ${err.message}\nusage: node examples/mongo-admin/seed.js [--count <n>]   (reads MONGODB_URI)`)
    process.exitCode = 2
    return
  }
  const { resolveDatabase } = require('@nodebench/services')
  const database = await resolveDatabase({ onProgress: log })
  const client = new MongoClient(database.uri, { serverSelectionTimeoutMS: 10000 })
  try {
    const result = await seed(client, { count })
    log(`seed: ${DATABASE}.${COLLECTION} holds ${result.count} documents (inserted ${result.inserted}, removed ${result.removed})`)
    process.stdout.write(`${result.documentId}\n`)
  } finally {
    await client.close()
    await database.stop()
  }
}

if (require.main === module) {
  main().catch((err) => {
    log(`seed: ${err.code ? err.message : (err.stack || err)}`)
    process.exitCode = 1
  })
}

module.exports = { seed, DATABASE, COLLECTION }
