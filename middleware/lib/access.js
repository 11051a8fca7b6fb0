'use strict'

const net = require('net')
const { reportInternalError } = require('./internal-errors')

// Who may read nodebench's endpoints (the breakdown, the metrics scrape) and who may reset the breakdown.
// A rule is 'local' (the default), 'anyone', or the app's predicate `(req) => boolean`. The breakdown names
// every route, middleware and source file and times them; a reset wipes what a whole cluster measured: by
// default, only the machine the app runs on may do either.
//
// 'local' is decided from the client's real address. Express's req.ip honours the app's 'trust proxy'
// setting: behind a proxy the app trusts, req.ip is the client the proxy names. A request that carries
// forwarding headers the app does not trust came through a proxy whose client nodebench cannot know: a proxy
// on the same machine would otherwise make every client of the internet local. It is refused, and the reason
// says to set 'trust proxy'.

const FORWARDING_HEADERS = Object.freeze(['forwarded', 'x-forwarded-for', 'x-real-ip'])

const RULES = Object.freeze({ local: 'local', anyone: 'anyone' })

/** Whether `address` (an IP address as a socket or Express gives it) is one of this machine's loopback addresses. */
function isLoopbackAddress (address) {
  if (typeof address !== 'string') return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (net.isIPv4(v4)) return v4.startsWith('127.')
  return address === '::1'
}

/** The app's trust proxy function (Express 4 and 5 compile the setting into 'trust proxy fn'). */
function trustProxyOf (req) {
  const app = req.app
  if (app === undefined || app === null || typeof app.get !== 'function') return null
  const trust = app.get('trust proxy fn')
  return typeof trust === 'function' ? trust : null
}

/**
 * Why the 'local' rule refuses `req`, or null when it comes from this machine. A request over a Unix socket
 * has no address and is local unless a proxy forwarded it.
 */
function localRefusal (req) {
  const socketAddress = req.socket ? req.socket.remoteAddress : undefined
  const forwarded = FORWARDING_HEADERS.find((name) => req.headers[name] !== undefined)
  const trust = trustProxyOf(req)
  const trusted = forwarded !== undefined && trust !== null && socketAddress !== undefined && trust(socketAddress, 0)
  if (forwarded !== undefined && !trusted) {
    return `the request came through a proxy (${forwarded} header) and Express's 'trust proxy' setting does not trust it, so its client is unknown; set 'trust proxy' for that proxy`
  }
  // req.ip is Express's: the socket's address, or, behind a trusted proxy, the client it forwarded.
  const address = typeof req.ip === 'string' ? req.ip : socketAddress
  if (address === undefined) return null
  return isLoopbackAddress(address) ? null : `the request came from ${address}`
}

/**
 * Why `rule` refuses `req` (one line), or null when it allows it. `what` names the rule in the reason
 * ('access.read'). A predicate that throws refuses; the error goes to NODE_DEBUG=nodebench.
 */
function refusal (rule, req, what) {
  if (rule === RULES.anyone) return null
  if (rule === RULES.local) {
    const reason = localRefusal(req)
    return reason === null ? null : `nodebench: ${what} is 'local' (this machine only) and ${reason}`
  }
  let allowed = false
  try {
    allowed = rule(req) === true
  } catch (err) {
    reportInternalError(`${what} rule`, err)
    return `nodebench: the ${what} rule threw; see NODE_DEBUG=nodebench`
  }
  return allowed ? null : `nodebench: refused by the ${what} rule`
}

module.exports = { RULES, refusal, localRefusal, isLoopbackAddress }
