'use strict'

const express = require('express')

/**
 * The routes of one response format. The HTML pages and the JSON API have the same paths (the API under
 * `/api`), the same param middleware and controllers of the same names.
 */
function createRouter (params, controllers) {
  const router = express.Router()
  router.param('database', params.database)
  router.param('collection', params.collection)
  router.param('document', params.document)

  router.get('/', controllers.viewIndex)
  router.get('/db/:database', controllers.viewDatabase)
  router.get('/db/:database/:collection', controllers.viewCollection)
  router.post('/db/:database/:collection', controllers.addDocument)
  router.get('/db/:database/:collection/:document', controllers.viewDocument)
  router.delete('/db/:database/:collection/:document', controllers.deleteDocument)
  return router
}

module.exports = { createRouter }
