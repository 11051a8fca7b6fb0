'use strict'

const { renderHtml } = require('@nodebench/breakdown')

// GET <expose>: the breakdown snapshot as JSON, or as an HTML table for a browser.
// DELETE <expose>: returns the snapshot and resets the aggregates (used by `nodebench bench` between cells).

function pathnameOf (req) {
  const url = req.originalUrl || req.url
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/**
 * `produce(reset)` gives the snapshot (resetting the aggregates after taking it when asked): a value, or a
 * promise when it comes from the cluster primary.
 */
function serveBreakdown (req, res, produce) {
  const method = req.method
  if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') {
    res.statusCode = 405
    res.setHeader('Allow', 'GET, HEAD, DELETE')
    res.setHeader('Content-Type', 'application/json; charset=utf-8')
    res.end(JSON.stringify({ error: `method ${method} not allowed here; use GET for the breakdown or DELETE to reset it` }))
    return
  }
  const snapshot = produce(method === 'DELETE')
  if (typeof snapshot.then === 'function') {
    snapshot.then((value) => sendSnapshot(req, res, value))
    return
  }
  sendSnapshot(req, res, snapshot)
}

function sendSnapshot (req, res, snapshot) {
  const method = req.method
  const accepts = typeof req.accepts === 'function' ? req.accepts(['json', 'html']) : 'json'
  res.statusCode = 200
  res.setHeader('Cache-Control', 'no-store')
  if (accepts === 'html' && method !== 'DELETE') {
    res.setHeader('Content-Type', 'text/html; charset=utf-8')
    res.end(method === 'HEAD' ? undefined : renderHtml(snapshot))
  } else {
    res.setHeader('Content-Type', 'application/json; charset=utf-8')
    res.end(method === 'HEAD' ? undefined : JSON.stringify(snapshot))
  }
}

module.exports = { serveBreakdown, pathnameOf }
