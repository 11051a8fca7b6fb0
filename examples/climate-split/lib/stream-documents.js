'use strict'

const { once } = require('node:events')

// Documents written as one JSON array while the cursor reads them: a read of 300,000 documents is never one
// string in memory, and the client gets its first bytes early. Written in chunks of about 64 kB (one write a
// document cost more than serialising it), waiting for 'drain' when the client reads slower than the database.

const CHUNK_BYTES = 64 * 1024

/** Writes the documents of `collection` with `from <= _id < to`, in `_id` order, to `res` as a JSON array. */
async function streamRange (collection, from, to, res) {
  res.status(200).type('json')
  const cursor = collection.find({ _id: { $gte: from, $lt: to } }).sort({ _id: 1 }).batchSize(5000)
  let chunk = '['
  let first = true
  try {
    for await (const document of cursor) {
      chunk += first ? JSON.stringify(document) : ',' + JSON.stringify(document)
      first = false
      if (chunk.length >= CHUNK_BYTES) {
        if (!res.write(chunk)) await once(res, 'drain')
        chunk = ''
      }
      if (res.destroyed) return
    }
  } finally {
    await cursor.close()
  }
  res.end(chunk + ']')
}

module.exports = { streamRange }
