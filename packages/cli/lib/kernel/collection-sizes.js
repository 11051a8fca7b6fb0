'use strict'

const { MongoClient } = require('mongodb')

// The size of the app's database around each cell: documents per collection, read before the measured load
// and after it. The store an app writes to grows under load (sessions, logs, carts), and on the embedded
// database a larger collection is a slower one (FerretDB scans: a findOne by _id at 10,000 documents takes
// 4.6 ms), so a run whose store grew may owe its slower cells to the database, not to the app. `storeGrowth`
// finds the collections that grew enough to move the figures.

// The databases MongoDB keeps for itself.
const SYSTEM_DATABASES = Object.freeze(['admin', 'local', 'config'])
// At most this many collections are counted, so that reading the sizes stays short on a large server.
const MAX_COLLECTIONS = 200
const TIMEOUT_MS = 5000
// A collection grew enough to move the figures when it gained this many documents, or more than doubled
// (with at least MIN_DOUBLED new ones: 3 documents after 1 is not a store that slows down).
const GROWTH_DOCUMENTS = 1000
const GROWTH_FACTOR = 2
const MIN_DOUBLED = 100

/**
 * Documents per collection in every database at `uri` but MongoDB's own: `{ 'db.collection': count }`, in
 * name order, or null when the server could not be read (the run goes on without sizes).
 */
async function readCollectionSizes (uri, { timeoutMs = TIMEOUT_MS } = {}) {
  if (!uri) return null
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs * 4
  })
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true })
    const names = []
    for (const { name } of databases.filter((database) => !SYSTEM_DATABASES.includes(database.name))) {
      const collections = await client.db(name).listCollections({}, { nameOnly: true }).toArray()
      for (const collection of collections) {
        if (collection.type === 'view' || collection.name.startsWith('system.')) continue
        names.push([name, collection.name])
      }
    }
    names.sort(([a, x], [b, y]) => `${a}.${x}`.localeCompare(`${b}.${y}`))
    const sizes = {}
    for (const [database, collection] of names.slice(0, MAX_COLLECTIONS)) {
      sizes[`${database}.${collection}`] = await client.db(database).collection(collection).estimatedDocumentCount()
    }
    return sizes
  } catch {
    return null
  } finally {
    await client.close().catch(() => {})
  }
}

const count = (value) => value.toLocaleString('en-US')

function cellTitle ({ scenario, format, processes, values = {} }) {
  const varied = Object.entries(values).map(([name, value]) => `${name} ${typeof value === 'number' ? count(value) : value}`)
  const servers = processes === null ? [] : [`${processes} process${processes === 1 ? '' : 'es'}`]
  return `${scenario} (${format})${[...varied, ...servers].map((part) => `, ${part}`).join('')}`
}

/**
 * What results.json keeps of a run's database, under `database`: `{ source, fresh, name, collections, grew,
 * warning, cells }`, from `database` (database.js's openDatabase) and the app's cell records (their
 * `collections`). `collections`: each collection's size before the first counted cell and after the last;
 * `grew`: those that grew enough to move the figures; `warning`: one line saying so, or null; `cells`: each
 * counted cell's title and sizes (what the report's table shows).
 */
function databaseOfRun (database, records) {
  const counted = records.filter((record) => Array.isArray(record.collections))
  const sizes = (record, side) => Object.fromEntries(record.collections.map((entry) => [entry.name, entry[side]]))
  const collections = counted.length === 0
    ? null
    : collectionChanges(sizes(counted[0], 'before'), sizes(counted[counted.length - 1], 'after'))
  const grew = storeGrowth(collections)
  const grown = grew.map(({ name, before, after }) => `${name} from ${count(before)} to ${count(after)} documents`)
  const warning = grew.length === 0
    ? null
    : `The database grew during the run (${grown.join('; ')}): cells measured later met a larger store, and on the ` +
      'embedded database a larger collection is a slower one, so part of their time may be the database\'s. ' +
      'A scenario teardown that removes what the load wrote, or a real MongoDB (MONGODB_URI), keeps the figures apart.'
  return {
    source: database.source,
    fresh: database.fresh,
    name: database.name,
    collections,
    grew,
    warning,
    cells: counted.map((record) => ({ title: cellTitle(record), collections: record.collections }))
  }
}

/** `[{ name, before, after }]` of the collections in either reading, in name order. */
function collectionChanges (before, after) {
  if (before === null || after === null) return null
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  return names.map((name) => ({ name, before: before[name] ?? 0, after: after[name] ?? 0 }))
}

/** Whether a collection that went from `before` to `after` documents grew enough to move the figures. */
function grewEnough ({ before, after }) {
  const added = after - before
  return added >= GROWTH_DOCUMENTS || (added >= MIN_DOUBLED && after > before * GROWTH_FACTOR)
}

/**
 * The collections that grew enough over a run: `changes` from the first reading to the last. `[{ name, before,
 * after }]`, largest growth first.
 */
function storeGrowth (changes) {
  if (changes === null) return []
  return changes.filter(grewEnough).sort((a, b) => (b.after - b.before) - (a.after - a.before))
}

module.exports = { readCollectionSizes, collectionChanges, storeGrowth, databaseOfRun, grewEnough, GROWTH_DOCUMENTS }
