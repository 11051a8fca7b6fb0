'use strict'

const { HttpError } = require('./http-errors')
const { parseDocumentId } = require('./documents')

/**
 * The param middleware of Mongo-Express, in the order Express runs them for `/db/:database/:collection/
 * :document`: each checks that its part of the path exists and binds it to the request.
 * The same functions serve the HTML pages and the JSON API, so both formats share one middleware chain.
 */
function createParamMiddleware ({ client, catalog }) {
  const exp = {}

  exp.database = function (req, res, next, name) {
    catalog.requireDatabase(name).then(() => {
      req.dbName = name
      req.db = client.db(name)
      res.locals.dbName = name
      next()
    }, next)
  }

  exp.collection = function (req, res, next, name) {
    catalog.requireCollection(req.dbName, name).then(() => {
      req.collectionName = name
      req.collection = req.db.collection(name)
      res.locals.collectionName = name
      next()
    }, next)
  }

  exp.document = function (req, res, next, id) {
    let _id
    try {
      _id = parseDocumentId(id)
    } catch (err) {
      return next(err)
    }
    req.collection.findOne({ _id }).then((document) => {
      if (document === null) {
        return next(new HttpError(404, `Document "${id}" not found in ${req.dbName}.${req.collectionName}`))
      }
      req.document = document
      next()
    }, next)
  }

  return exp
}

module.exports = { createParamMiddleware }
