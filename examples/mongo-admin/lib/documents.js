'use strict'

const { ObjectId } = require('mongodb')
const { HttpError } = require('./http-errors')

const OBJECT_ID = /^[0-9a-fA-F]{24}$/
const MAX_FIELDS = 1000

/** A document id from the URL: 24 hexadecimal characters (an ObjectId), else a 400 saying so. */
function parseDocumentId (text) {
  if (typeof text !== 'string' || !OBJECT_ID.test(text)) {
    throw new HttpError(400, `Malformed document id "${text}": expected an ObjectId, 24 hexadecimal characters`)
  }
  return new ObjectId(text)
}

/**
 * The document to insert, from a parsed body (JSON object for the API; for the HTML form, its `document`
 * field holding JSON text). Rejects what MongoDB would refuse or misread, with what was wrong.
 */
function documentFromBody (body, { form }) {
  let candidate = body
  if (form) {
    if (body === undefined || body === null || typeof body.document !== 'string' || body.document.trim() === '') {
      throw new HttpError(400, 'Missing field "document": expected the new document as JSON text, e.g. {"username": "ada"}')
    }
    try {
      candidate = JSON.parse(body.document)
    } catch (err) {
      throw new HttpError(400, `Field "document" is not valid JSON (${err.message}); expected e.g. {"username": "ada"}`)
    }
  }
  if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) {
    throw new HttpError(400, `The new document must be a JSON object, e.g. {"username": "ada"}; received ${describe(candidate)}`)
  }
  const keys = Object.keys(candidate)
  if (keys.length === 0) throw new HttpError(400, 'The new document is empty; expected at least one field, e.g. {"username": "ada"}')
  if (keys.length > MAX_FIELDS) throw new HttpError(400, `The new document has ${keys.length} fields; at most ${MAX_FIELDS} are accepted`)
  checkFieldNames(candidate, '')
  if ('_id' in candidate) {
    throw new HttpError(400, 'The new document must not set "_id": the database assigns it')
  }
  return candidate
}

function checkFieldNames (value, path) {
  if (value === null || typeof value !== 'object') return
  for (const key of Object.keys(value)) {
    if (!Array.isArray(value) && (key.startsWith('$') || key.includes('\0'))) {
      throw new HttpError(400, `Field name "${path}${key}" is not allowed: names must not start with "$" or contain a NUL character`)
    }
    checkFieldNames(value[key], `${path}${key}.`)
  }
}

function describe (value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value === undefined) return 'nothing'
  return `a ${typeof value}`
}

/** `?skip=&limit=` of a collection page: whole numbers in range, else a 400. */
function parsePage (query, { defaultLimit, maxLimit }) {
  const skip = parseWholeNumber(query.skip, 'skip', 0, Number.MAX_SAFE_INTEGER)
  const limit = parseWholeNumber(query.limit, 'limit', 1, maxLimit)
  return { skip: skip ?? 0, limit: limit ?? defaultLimit }
}

function parseWholeNumber (text, name, min, max) {
  if (text === undefined || text === '') return undefined
  const value = Number(text)
  if (typeof text !== 'string' || !Number.isInteger(value) || value < min || value > max) {
    throw new HttpError(400, `Query parameter "${name}" must be a whole number from ${min} to ${max}; received "${text}"`)
  }
  return value
}

module.exports = { parseDocumentId, documentFromBody, parsePage }
