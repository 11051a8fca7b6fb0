'use strict'

const { BSON } = require('mongodb')
const { documentFromBody } = require('../documents')
const { databaseOverview, collectionPage, databaseList } = require('../queries')
const { toHttpError } = require('../http-errors')
const { collectionUrl } = require('../urls')

/** The Mongo-Express controllers: server-rendered pages (nunjucks templates in views/). */
function createHtmlControllers ({ catalog, pageSize, maxPageSize, log }) {
  const exp = {}

  exp.viewIndex = async function (req, res) {
    res.render('index.njk', { title: 'Databases', databaseList: await databaseList(catalog) })
  }

  exp.viewDatabase = async function (req, res) {
    const overview = await databaseOverview(req, catalog)
    res.render('database.njk', { title: req.dbName, ...overview })
  }

  exp.viewCollection = async function (req, res) {
    const page = await collectionPage(req, { pageSize, maxPageSize })
    res.render('collection.njk', {
      title: `${req.dbName}.${req.collectionName}`,
      ...page,
      columns: columnsOf(page.documents),
      rows: page.documents.map((document) => ({ id: String(document._id), document })),
      previousSkip: page.skip > 0 ? Math.max(0, page.skip - page.limit) : null,
      nextSkip: page.skip + page.documents.length < page.count ? page.skip + page.limit : null
    })
  }

  exp.viewDocument = function (req, res) {
    res.render('document.njk', {
      title: String(req.document._id),
      id: String(req.document._id),
      documentText: BSON.EJSON.stringify(req.document, null, 2, { relaxed: true })
    })
  }

  exp.addDocument = async function (req, res) {
    const document = documentFromBody(req.body, { form: true })
    await req.collection.insertOne(document)
    res.redirect(collectionUrl(req))
  }

  exp.deleteDocument = async function (req, res) {
    await req.collection.deleteOne({ _id: req.document._id })
    res.redirect(collectionUrl(req))
  }

  exp.renderError = function (err, req, res, next) {
    const httpError = toHttpError(err)
    if (httpError.status >= 500) log(httpError.cause || httpError)
    if (res.headersSent) return next(err)
    res.status(httpError.status).render('error.njk', {
      title: `Error ${httpError.status}`,
      status: httpError.status,
      message: httpError.message
    })
  }

  return exp
}

/** The table's columns: every top-level field of the page's documents, `_id` first, as Mongo-Express shows them. */
function columnsOf (documents) {
  const columns = new Set(['_id'])
  for (const document of documents) {
    for (const key of Object.keys(document)) columns.add(key)
  }
  return Array.from(columns)
}

module.exports = { createHtmlControllers }
