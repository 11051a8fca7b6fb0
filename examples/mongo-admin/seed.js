#!/usr/bin/env node
'use strict'

// node examples/mongo-admin/seed.js [--count <n>]
//
// Makes database `nodebench` hold exactly the studies' documents, `count` (default 1000) in each collection:
// `users`, the 2017 study's `{ username: 'user-<n>' }`, and `reviews`, the TU Berlin study's REST service's
// records `{ reviewer: 'reviewer-<n>', product, rating, text }`. Missing ones are inserted, any other document
// (e.g. left by a write run) is removed, so running it again changes nothing. Progress goes to stderr; the
// last line of stdout is the id of a document to read (user-0's).

const { parseArgs } = require('node:util')
const { MongoClient } = require('mongodb')

const DATABASE = 'nodebench'
const COLLECTION = 'users'
const REVIEWS = 'reviews'

// Each collection's documents, by number, and the field that tells one from another.
const DOCUMENTS = Object.freeze({
  [COLLECTION]: { key: 'username', documentOf: (n) => ({ username: `user-${n}` }) },
  [REVIEWS]: {
    key: 'reviewer',
    documentOf: (n) => ({
      reviewer: `reviewer-${n}`, product: `product-${n % 50}`, rating: 1 + (n % 5), text: `Review ${n} of product ${n % 50}.`
    })
  }
})

function log (message) {
  process.stderr.write(`${message}\n`)
}

/** Makes `nodebench.<name>` hold exactly its `count` documents. Returns what changed. */
async function seedCollection (client, name, { count }) {
  const { key, documentOf } = DOCUMENTS[name]
  const collection = client.db(DATABASE).collection(name)
  const documents = Array.from({ length: count }, (_, n) => documentOf(n))
  const wanted = new Map(documents.map((document) => [document[key], document]))
  const existing = await collection.find({}, { projection: { [key]: 1 } }).toArray()
  const kept = new Set()
  const toRemove = []
  for (const document of existing) {
    if (wanted.has(document[key]) && !kept.has(document[key])) kept.add(document[key])
    else toRemove.push(document._id)
  }
  if (toRemove.length > 0) await collection.deleteMany({ _id: { $in: toRemove } })
  const missing = Array.from(wanted.values()).filter((document) => !kept.has(document[key]))
  if (missing.length > 0) await collection.insertMany(missing, { ordered: false })
  return { collection: name, inserted: missing.length, removed: toRemove.length, count }
}

/**
 * Seeds `nodebench.users` through `client`. Returns the id of user-0 and what changed.
 * @returns {Promise<{ documentId: string, inserted: number, removed: number, count: number }>}
 */
async function seed (client, { count = 1000 } = {}) {
  const result = await seedCollection(client, COLLECTION, { count })
  const first = await client.db(DATABASE).collection(COLLECTION).findOne({ username: 'user-0' }, { projection: { _id: 1 } })
  return { documentId: String(first._id), inserted: result.inserted, removed: result.removed, count }
}

/** Seeds `nodebench.reviews` (the TU Berlin study's records) through `client`. Returns what changed. */
function seedReviews (client, { count = 1000 } = {}) {
  return seedCollection(client, REVIEWS, { count })
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
    const reviews = await seedReviews(client, { count })
    log(`seed: ${DATABASE}.${REVIEWS} holds ${reviews.count} documents (inserted ${reviews.inserted}, removed ${reviews.removed})`)
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

module.exports = { seed, seedReviews, DATABASE, COLLECTION, REVIEWS }
