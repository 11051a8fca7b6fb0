'use strict'

const express = require('express')
const { COLLECTION, DATABASE } = require('./measurements')
const { streamRange } = require('./stream-documents')

// A back-end of the split read (the KIT study's "back-end server"): it reads one sub-task's documents, a range
// of `_id`s, and streams them back. Traced with nodebench like any app: its spans join the front-end's trace
// through the `traceparent` the front-end sends.

/** The back-end's Express app over a connected MongoClient; `trace`: nodebenchTrace() or null. */
function createBackendApp ({ client, trace }) {
  const app = express()
  if (trace !== null) app.use(trace)
  const collection = client.db(DATABASE).collection(COLLECTION)

  app.get('/documents', function parseRange (req, res, next) {
    const from = Number(req.query.from)
    const to = Number(req.query.to)
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) {
      res.status(400).json({ error: `from and to must be whole numbers with 0 <= from <= to; received from=${req.query.from}, to=${req.query.to}` })
      return
    }
    res.locals.range = { from, to }
    next()
  }, async function streamDocuments (req, res) {
    await streamRange(collection, res.locals.range.from, res.locals.range.to, res)
  })

  app.use(function answerFailure (err, req, res, next) {
    if (res.headersSent) return res.destroy(err)
    res.status(503).json({ error: `the database did not answer: ${err.message}` })
  })
  return app
}

module.exports = { createBackendApp }
