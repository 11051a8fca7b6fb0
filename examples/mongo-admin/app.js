'use strict'

const path = require('node:path')
const express = require('express')
const nunjucks = require('nunjucks')
const cookieParser = require('cookie-parser')
const methodOverride = require('method-override')
const morgan = require('morgan')
const { DatabaseCatalog } = require('./lib/database-catalog')
const { createParamMiddleware } = require('./lib/param-middleware')
const { createHtmlControllers } = require('./lib/controllers/html')
const { createApiControllers } = require('./lib/controllers/api')
const { createRouter } = require('./lib/routes')
const { createReviewsRouter } = require('./lib/reviews')
const { BSON } = require('mongodb')

const VIEWS = path.join(__dirname, 'views')
const PUBLIC = path.join(__dirname, 'public')
const ANGULAR = path.dirname(require.resolve('angular'))

// The study's collection read renders 1000 documents on one page.
const DEFAULT_PAGE_SIZE = 1000
const MAX_PAGE_SIZE = 10000

/**
 * The Mongo-Express-like app: HTML pages at `/db/...`, the same data as JSON at `/api/db/...`, the
 * single-page client at `/spa/`, and the TU Berlin study's REST service at `/api/reviews`.
 * Middleware in Mongo-Express's order: logger, static files, body parsing,
 * cookies, method override, a handler for every path setting template locals, then the routers with the
 * param middleware `database`, `collection`, `document` and the controllers.
 *
 * @param {object} options
 * @param {import('mongodb').MongoClient} options.client a connected (or connecting) client
 * @param {Function|null} [options.trace] nodebenchTrace() middleware, or null for the untraced baseline
 * @param {boolean} [options.requestLog] log every request (morgan 'dev'); off for load runs
 * @param {Function} [options.log] where server errors are reported
 * @returns {import('express').Express & { locals: { catalog: DatabaseCatalog } }}
 */
function createApp ({
  client, trace = null, requestLog = false, log = console.error,
  pageSize = DEFAULT_PAGE_SIZE, maxPageSize = MAX_PAGE_SIZE
}) {
  const app = express()
  const catalog = new DatabaseCatalog(client)
  app.locals.catalog = catalog

  const views = new nunjucks.Environment(new nunjucks.FileSystemLoader(VIEWS), { autoescape: true })
  views.addFilter('cell', formatCell)
  views.express(app)
  app.set('view engine', 'njk')
  app.set('views', VIEWS)

  if (trace !== null) app.use(trace)
  if (requestLog) app.use(morgan('dev'))
  app.use('/public', express.static(PUBLIC))
  // The single-page port's AngularJS, from node_modules: the version package-lock.json pins, no copy to keep.
  app.use('/spa/vendor', express.static(ANGULAR))
  app.use('/spa', express.static(path.join(PUBLIC, 'spa')))
  app.use(express.urlencoded({ extended: false, limit: '1mb' }))
  app.use(express.json({ limit: '1mb' }))
  app.use(cookieParser())
  // HTML forms can only GET and POST: `POST ...?_method=DELETE` deletes, as in Mongo-Express.
  app.use(methodOverride('_method'))
  app.all('/{*path}', function setLocals (req, res, next) {
    res.locals.databases = catalog.databaseNames()
    res.locals.path = req.path
    next()
  })

  const params = createParamMiddleware({ client, catalog })
  const pages = { catalog, pageSize, maxPageSize, log }
  const api = createApiControllers(pages)
  const html = createHtmlControllers(pages)

  app.use('/api/reviews', createReviewsRouter({ client }))
  app.use('/api', createRouter(params, api))
  app.use('/', createRouter(params, html))
  app.use('/api', api.notFound)
  app.use(function notFound (req, res) {
    res.status(404).render('error.njk', { title: 'Not found', status: 404, message: `No page at ${req.originalUrl}` })
  })
  app.use('/api', api.sendError)
  app.use(html.renderError)
  return app
}

/** A field's value in a table cell: strings as they are, anything else as relaxed Extended JSON. */
function formatCell (value) {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  return BSON.EJSON.stringify(value, { relaxed: true })
}

module.exports = { createApp, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE }
