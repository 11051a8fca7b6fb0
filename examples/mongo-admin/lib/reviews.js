'use strict'

const express = require('express')
const { HttpError } = require('./http-errors')

// The REST service of the TU Berlin study (Nawaz, Rucaj, Kamran, "Evaluate scalable and high-performance
// Node.js Application Designs"), which it scaled over independent instances behind nginx: a GET that lists
// 10 records and a POST that creates one, JSON, on MongoDB. Here on `nodebench.reviews` (seed.js fills it
// as it fills `users`), at /api/reviews, beside the admin app's own routes.

const DATABASE = 'nodebench'
const COLLECTION = 'reviews'
const LIST_LENGTH = 10
const FIELDS = Object.freeze(['reviewer', 'product', 'rating', 'text'])

/** A review from a request body: every field present and of its type, nothing else; else a 400. */
function reviewFromBody (body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, `A review is a JSON object with ${FIELDS.join(', ')}`)
  }
  const unknown = Object.keys(body).filter((key) => !FIELDS.includes(key))
  if (unknown.length > 0) throw new HttpError(400, `Unknown field ${unknown[0]}; a review has ${FIELDS.join(', ')}`)
  for (const field of ['reviewer', 'product', 'text']) {
    if (typeof body[field] !== 'string' || body[field].trim() === '') throw new HttpError(400, `${field} must be a non-empty string`)
  }
  if (!Number.isInteger(body.rating) || body.rating < 1 || body.rating > 5) throw new HttpError(400, 'rating must be a whole number from 1 to 5')
  return { reviewer: body.reviewer, product: body.product, rating: body.rating, text: body.text }
}

/** The router: `GET /` lists 10 reviews, `POST /` creates one (201, with its id and location). */
function createReviewsRouter ({ client }) {
  const reviews = client.db(DATABASE).collection(COLLECTION)
  const router = express.Router()

  router.get('/', async function listReviews (req, res) {
    res.json({ reviews: await reviews.find({}).limit(LIST_LENGTH).toArray() })
  })

  router.post('/', async function createReview (req, res) {
    const { insertedId } = await reviews.insertOne(reviewFromBody(req.body))
    res.status(201).location(`${req.baseUrl}/${insertedId}`).json({ _id: insertedId })
  })

  return router
}

module.exports = { createReviewsRouter, reviewFromBody, LIST_LENGTH }
