'use strict'

// Which FerretDB backend the embedded database should run: SQLite (files in a data directory, nothing else to
// install) or PostgreSQL (a server to install and start). The same launcher (ferretdb/) on each, the same
// operations an app's request makes, on a collection of --documents documents:
//   - findOne by _id (random ids), the session store's and a document page's read;
//   - an upsert by _id (updateOne with upsert: true), the session store's write;
//   - a find of 1,000 documents (toArray), a list page.
// Each operation runs --rounds times after a few unmeasured ones; the figures are the median and p90 in ms.
//
//   node packages/services/benchmarks/ferretdb-backends.js [--postgresql-url postgres://...] [--documents 10000]
//     [--rounds 200] [--ids objectid|string|number] [--json]
//
// Without --postgresql-url only SQLite is measured. The PostgreSQL backend needs an empty database of a running
// PostgreSQL, for example Debian's postgresql package started on loopback in a temporary directory (the
// commands are in packages/services/README.md, "What the embedded database does not do").

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { MongoClient, ObjectId } = require('mongodb')
const { startDatabase } = require('..')

const WARMUP_ROUNDS = 10
const FIND_SIZE = 1000

function percentile (sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

/** Times `operation(i)` `rounds` times after a warm-up: `{ medianMs, p90Ms }`. */
async function timed (rounds, operation) {
  for (let i = 0; i < WARMUP_ROUNDS; i++) await operation(i)
  const times = []
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint()
    await operation(i)
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  times.sort((a, b) => a - b)
  const ms = (value) => Math.round(value * 100) / 100
  return { medianMs: ms(percentile(times, 0.5)), p90Ms: ms(percentile(times, 0.9)) }
}

/**
 * The `_id` of document `n`, of the type `--ids` names: an ObjectId (mongoose's default), a string (a session
 * id), or a number. FerretDB's SQLite backend looks up the first two in its index and scans for any other.
 */
function idsOf (kind) {
  if (kind === 'number') return (n) => n
  if (kind === 'string') return (n) => `session-${String(n).padStart(8, '0')}`
  return (n) => new ObjectId(n.toString(16).padStart(24, '0'))
}

async function measure (uri, { documents, rounds, log, idOf }) {
  const client = new MongoClient(uri)
  try {
    const collection = client.db('nodebench_backends').collection('things')
    await collection.drop().catch(() => {})
    log(`  inserting ${documents.toLocaleString('en-US')} documents...`)
    for (let start = 0; start < documents; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, documents - start) }, (_, i) => ({
        _id: idOf(start + i), name: `thing ${start + i}`, tags: ['a', 'b'], at: new Date(), payload: 'x'.repeat(200)
      }))
      await collection.insertMany(batch, { ordered: false })
    }
    const idAt = (i) => idOf((i * 7919) % documents)
    return {
      findOneById: await timed(rounds, (i) => collection.findOne({ _id: idAt(i) })),
      upsertById: await timed(rounds, (i) => collection.updateOne(
        { _id: idAt(i + 1) }, { $set: { seen: i, at: new Date() } }, { upsert: true })),
      find1000: await timed(Math.max(10, Math.round(rounds / 10)), () => collection.find({}).limit(FIND_SIZE).toArray())
    }
  } finally {
    await client.close()
  }
}

async function main () {
  const { values } = parseArgs({
    options: {
      'postgresql-url': { type: 'string' },
      documents: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '200' },
      ids: { type: 'string', default: 'objectid' },
      json: { type: 'boolean', default: false }
    }
  })
  const documents = Number(values.documents)
  const rounds = Number(values.rounds)
  const log = (message) => process.stderr.write(`${message}\n`)
  const backends = [['sqlite', undefined], ...(values['postgresql-url'] ? [['postgresql', values['postgresql-url']]] : [])]
  const results = {
    node: process.version, documents, rounds, ids: values.ids, date: new Date().toISOString(), backends: {}
  }
  for (const [name, postgresqlUrl] of backends) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-backends-'))
    log(`${name}:`)
    const database = await startDatabase({ dataDir: path.join(dir, 'data'), postgresqlUrl, onProgress: log })
    try {
      results.backends[name] = await measure(database.uri, { documents, rounds, log, idOf: idsOf(values.ids) })
    } finally {
      await database.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  if (values.json) {
    process.stdout.write(JSON.stringify(results, null, 2) + '\n')
    return
  }
  process.stdout.write(`FerretDB backends, ${documents.toLocaleString('en-US')} documents (${values.ids} _id), ${rounds} rounds, ` +
    `Node.js ${process.version}\n`)
  process.stdout.write('backend      findOne by _id ms    upsert by _id ms     find 1,000 ms\n')
  for (const [name, figures] of Object.entries(results.backends)) {
    const cell = ({ medianMs, p90Ms }) => `${medianMs} (p90 ${p90Ms})`.padEnd(21)
    process.stdout.write(`${name.padEnd(13)}${cell(figures.findOneById)}${cell(figures.upsertById)}${cell(figures.find1000)}\n`)
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exitCode = 1
})
