'use strict'

const { parsePage } = require('./documents')

// What a page shows, read the same way for the HTML pages and the JSON API: only the rendering differs.

/** The collections of `req.db` with their document counts, and the database's size. */
async function databaseOverview (req, catalog) {
  const names = catalog.collectionNames(req.dbName)
  const [stats, counts] = await Promise.all([
    req.db.stats(),
    Promise.all(names.map((name) => req.db.collection(name).estimatedDocumentCount()))
  ])
  return {
    database: req.dbName,
    stats: {
      collections: names.length, documents: stats.objects, dataSize: stats.dataSize, storageSize: stats.storageSize
    },
    collections: names.map((name, i) => ({ name, count: counts[i] }))
  }
}

/** One page of `req.collection` (`?skip=&limit=`), with the collection's document count. */
async function collectionPage (req, { pageSize, maxPageSize }) {
  const { skip, limit } = parsePage(req.query, { defaultLimit: pageSize, maxLimit: maxPageSize })
  const [documents, count] = await Promise.all([
    req.collection.find({}).sort({ _id: 1 }).skip(skip).limit(limit).toArray(),
    req.collection.estimatedDocumentCount()
  ])
  return { database: req.dbName, collection: req.collectionName, count, skip, limit, documents }
}

/** Every database the catalog knows, with its collections (listing them again first). */
async function databaseList (catalog) {
  await catalog.refresh()
  return catalog.databaseNames().map((name) => ({ name, collections: catalog.collectionNames(name) }))
}

module.exports = { databaseOverview, collectionPage, databaseList }
