'use strict'

/** The collection's URL under the router that serves the request (`/db/...` or `/api/db/...`). */
function collectionUrl (req) {
  return `${req.baseUrl}/db/${encodeURIComponent(req.dbName)}/${encodeURIComponent(req.collectionName)}`
}

module.exports = { collectionUrl }
