'use strict'

const { documentFromBody } = require('../documents')
const { databaseOverview, collectionPage, databaseList } = require('../queries')
const { toHttpError } = require('../http-errors')
const { collectionUrl } = require('../urls')

/** The single-page port's API: the same data as the pages, as JSON. */
function createApiControllers ({ catalog, pageSize, maxPageSize, log }) {
  const exp = {}

  exp.viewIndex = async function (req, res) {
    res.json({ databases: await databaseList(catalog) })
  }

  exp.viewDatabase = async function (req, res) {
    res.json(await databaseOverview(req, catalog))
  }

  exp.viewCollection = async function (req, res) {
    res.json(await collectionPage(req, { pageSize, maxPageSize }))
  }

  exp.viewDocument = function (req, res) {
    res.json({ database: req.dbName, collection: req.collectionName, document: req.document })
  }

  exp.addDocument = async function (req, res) {
    const document = documentFromBody(req.body, { form: false })
    const { insertedId } = await req.collection.insertOne(document)
    res.status(201).location(`${collectionUrl(req)}/${insertedId}`).json({ _id: insertedId })
  }

  exp.deleteDocument = async function (req, res) {
    await req.collection.deleteOne({ _id: req.document._id })
    res.json({ deleted: 1, _id: req.document._id })
  }

  exp.notFound = function (req, res) {
    res.status(404).json({ error: `No API route for ${req.method} ${req.originalUrl}` })
  }

  exp.sendError = function (err, req, res, next) {
    const httpError = toHttpError(err)
    if (httpError.status >= 500) log(httpError.cause || httpError)
    if (res.headersSent) return next(err)
    res.status(httpError.status).json({ error: httpError.message })
  }

  return exp
}

module.exports = { createApiControllers }
