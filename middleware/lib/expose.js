'use strict'

const { renderHtml } = require('@nodebench/breakdown')
const { refusal } = require('./access')
const { reportInternalError } = require('./internal-errors')

// GET <expose>: the breakdown snapshot as JSON, or as an HTML table for a browser.
// DELETE <expose>: returns the snapshot and resets the aggregates (used by `nodebench bench` between cells).
// Each answers only the clients its access rule allows (access.js): 403 with the reason otherwise.

const ALLOWED_METHODS = 'GET, HEAD, DELETE'

function pathnameOf (req) {
  const url = req.originalUrl || req.url
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/** The client went away: nothing it asked for can reach it. */
function clientGone (req, res) {
  return res.destroyed === true || (req.socket !== null && req.socket !== undefined && req.socket.destroyed === true)
}

function sendJson (res, status, body) {
  res.statusCode = status
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.end(JSON.stringify(body))
}

/**
 * `access`: the rules ({ read, reset }). `source` gives the breakdown:
 *   local(reset) -> snapshot, taken (and the aggregates reset) at once;
 *   cluster(reset) -> null in a process that answers for itself, else a promise of `{ snapshot, state }`
 *     from the cluster primary (`state`, for a reset: what was reset);
 *   absorb(state) -> adds a reset's state back to this process's aggregates.
 * A reset whose client has gone away resets nothing, or, in a cluster, is added back where it was asked.
 */
function serveBreakdown (req, res, { access, source }) {
  const method = req.method
  const resetting = method === 'DELETE'
  const refused = refusal(resetting ? access.reset : access.read, req, resetting ? 'access.reset' : 'access.read')
  if (refused !== null) {
    sendJson(res, 403, { error: refused })
    return
  }
  if (method !== 'GET' && method !== 'HEAD' && !resetting) {
    res.setHeader('Allow', ALLOWED_METHODS)
    sendJson(res, 405, { error: `method ${method} not allowed here; use GET for the breakdown or DELETE to reset it` })
    return
  }
  const fromCluster = source.cluster(resetting)
  if (fromCluster === null) {
    if (resetting && clientGone(req, res)) return
    sendSnapshot(req, res, source.local(resetting))
    return
  }
  fromCluster.then(({ snapshot, state }) => {
    if (clientGone(req, res)) {
      if (state !== null) source.absorb(state)
      return
    }
    sendSnapshot(req, res, snapshot)
  }, (err) => {
    // The primary did not answer: this process's own breakdown, saying so.
    if (resetting && clientGone(req, res)) return
    const snapshot = source.local(resetting)
    snapshot.warning = `this snapshot covers process ${process.pid} only: ${err.message}`
    sendSnapshot(req, res, snapshot)
  }).catch((err) => {
    reportInternalError('expose', err)
    if (!res.headersSent) sendJson(res, 500, { error: 'nodebench could not make the breakdown; see NODE_DEBUG=nodebench' })
  })
}

function sendSnapshot (req, res, snapshot) {
  const method = req.method
  // Any Accept header, even a malformed one, gets an answer: HTML only when it asks for HTML over JSON.
  let accepts = 'json'
  try {
    if (typeof req.accepts === 'function') accepts = req.accepts(['json', 'html'])
  } catch {}
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
