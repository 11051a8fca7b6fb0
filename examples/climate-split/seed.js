#!/usr/bin/env node
'use strict'

// node examples/climate-split/seed.js [--count <n>]: makes nodebench.measurements hold exactly the documents 0
// to n - 1 (default 300,000, the study's largest read). MONGODB_URI, else the embedded FerretDB. Progress on stderr.

const { parseArgs } = require('node:util')
const { MongoClient } = require('mongodb')
const { resolveDatabase } = require('@nodebench/services')
const { seedMeasurements } = require('./lib/measurements')

async function main () {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '300000' } } })
  const count = Number(values.count)
  if (!Number.isInteger(count) || count < 0) throw new TypeError(`--count must be a whole number; received ${values.count}`)
  const log = (message) => process.stderr.write(`${message}\n`)
  const database = await resolveDatabase({ onProgress: log })
  const client = new MongoClient(database.uri)
  try {
    await client.connect()
    const result = await seedMeasurements(client, { count, onProgress: log })
    log(`climate-split: nodebench.measurements holds ${result.count} documents (inserted ${result.inserted}, removed ${result.removed})`)
  } finally {
    await client.close()
    await database.stop()
  }
}

main().catch((err) => {
  process.stderr.write(`climate-split seed: ${err.message}\n`)
  process.exit(1)
})
