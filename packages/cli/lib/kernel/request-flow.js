'use strict'

const { randomUUID } = require('node:crypto')
const { codes, NodebenchError } = require('@nodebench/errors')

// What a cell sends, request by request, and what it checks of every answer. A workload's request may change
// from one request to the next (workload.js): `{$seq}` and `{$uuid}` in its path, headers and body, a
// `setupRequest` function that builds it (as autocannon's does), values `capture`d from an earlier answer on the
// same connection (a CSRF token in a form), and a session per connection (`session`: a cookie jar, and requests
// each connection sends once before the load, logging it in). autocannon sends them: each of its connections
// gets its own requests (`setupClient`, which its API gives for exactly this), whose `setupRequest` fills them in
// and whose `onResponse` reads the answer, both with that connection's state at hand. A connection's state is
// kept by its index over a cell's runs (the warm-up, the probe, each repetition), as the app's sessions are.
//
// Every answer is checked against its request's status, in every run: the first that is not what the workload
// expects is kept with its run, its number, its request and the start of its body, so a failure names the
// request that failed (`warm-up request 2 of 20 (POST /register) answered 400 ...`), not the app.

// Request numbers over the whole nodebench process: `{$seq}` never repeats within a run, whatever the cells.
let lastSeq = 0

/** A form value's encoding (URLSearchParams'). */
function formEncode (text) {
  return new URLSearchParams({ v: text }).toString().slice(2)
}

// How much of a body a failure shows.
const BODY_SHOWN = 200
// Connections whose session requests run at once.
const SESSION_CONCURRENCY = 8

const PER_REQUEST = /\{(\$seq|\$uuid|[A-Za-z_$][\w$]*)\}/g

function flowError (code, message) {
  return new NodebenchError(code, message)
}

function bodyText (body) {
  const text = Buffer.isBuffer(body) ? body.toString('utf8', 0, BODY_SHOWN) : String(body ?? '').slice(0, BODY_SHOWN)
  return JSON.stringify(text)
}

/** A header's value in autocannon's (names as sent, arrays for repeats) or fetch's headers, case-insensitive. */
function headerValues (headers, name) {
  if (headers === null || headers === undefined) return []
  if (typeof headers.getSetCookie === 'function' && name === 'set-cookie') return headers.getSetCookie()
  if (typeof headers.get === 'function') {
    const value = headers.get(name)
    return value === null ? [] : [value]
  }
  const values = []
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) values.push(...(Array.isArray(value) ? value : [value]))
  }
  return values
}

/**
 * A connection's cookies, as a browser keeps them for one site: each Set-Cookie's name and value, dropped again
 * when it expires (Max-Age 0 or an Expires in the past). One host and one connection: the path and domain
 * matching of a full cookie jar (tough-cookie's) decides nothing here, and would cost on every request.
 */
class CookieJar {
  constructor () {
    this.cookies = new Map()
  }

  store (setCookies) {
    for (const line of setCookies) {
      const [pair, ...attributes] = String(line).split(';')
      const at = pair.indexOf('=')
      if (at <= 0) continue
      const name = pair.slice(0, at).trim()
      const expired = attributes.some((attribute) => {
        const [key, value = ''] = attribute.split('=')
        const lower = key.trim().toLowerCase()
        if (lower === 'max-age') return Number(value) <= 0
        if (lower === 'expires') return Date.parse(value) < Date.now()
        return false
      })
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, pair.slice(at + 1).trim())
    }
  }

  header () {
    if (this.cookies.size === 0) return null
    return Array.from(this.cookies, ([name, value]) => `${name}=${value}`).join('; ')
  }
}

/** The value `capture` (workload.js checkCapture) takes from an answer; undefined when it has none. */
function captured (capture, body, headers) {
  if (capture.header !== undefined) return headerValues(headers, capture.header)[0]
  if (capture.json !== undefined) {
    let value
    try {
      value = JSON.parse(body)
    } catch {
      return undefined
    }
    for (const key of capture.json.split('.')) value = value === null || value === undefined ? undefined : value[key]
    return value === null || value === undefined || typeof value === 'object' ? undefined : String(value)
  }
  const match = capture.body.exec(body)
  return match === null ? undefined : (match[1] ?? match[0])
}

function captureText (capture) {
  if (capture.header !== undefined) return `no ${capture.header} header`
  if (capture.json !== undefined) return `no value at ${capture.json} in its JSON body`
  return `no match of ${capture.body} in its body`
}

class Connection {
  constructor (index, cookies) {
    this.index = index
    this.jar = cookies ? new CookieJar() : null
    this.captured = {}
    // The request on the wire (autocannon sends one at a time on a connection): what its answer is checked against.
    this.inFlight = null
  }
}

/**
 * The answers of one run (a warm-up, a repetition, the probe): how many, how many not as expected, the first of
 * those, and the first failure of the workload's own code (a setupRequest that threw, a value not captured).
 */
class AnswerCheck {
  constructor (phase) {
    this.phase = phase
    this.answered = 0
    this.unexpected = 0
    this.first = null
    this.failure = null
    this.onFailure = () => {}
  }

  answer (status, body, entry, sentRequest) {
    this.answered++
    if (status === entry.status) return true
    this.unexpected++
    if (this.first === null) {
      this.first = {
        phase: this.phase,
        number: this.answered,
        // Its {$seq} where the request has one (its own, or its setupRequest's to use).
        seq: entry.usesSeq || entry.setupRequest !== null ? sentRequest?.seq ?? null : null,
        method: sentRequest?.method ?? entry.method,
        path: sentRequest?.path ?? entry.path,
        where: entry.where,
        status,
        expected: entry.status,
        body: bodyText(body)
      }
    }
    return false
  }

  fail (err) {
    if (this.failure === null) {
      this.failure = err
      this.onFailure(err)
    }
  }

  summary () {
    return { phase: this.phase, answered: this.answered, unexpected: this.unexpected, first: this.first }
  }
}

/**
 * `first` of an AnswerCheck as words: `warm-up request 2 of 20 (POST /register, {$seq} 14) answered 400, expected 201
 * (request.status): "..."`.
 */
function unexpectedText (first, total = null) {
  const of = total === null ? '' : ` of ${total}`
  const seq = first.seq === null ? '' : `, {$seq} ${first.seq}`
  return `${first.phase} request ${first.number}${of} (${first.method} ${first.path}${seq}) answered ${first.status}, ` +
    `expected ${first.expected} (${first.where}.status): ${first.body}`
}

/**
 * The flow of one cell: `entries` (workload.js requestsOf: each request to send in turn, its values but the
 * per-request ones filled in), the scenario's `session`, the cell's `values` (for setupRequest). Its
 * connections' states live as long as it does.
 */
class RequestFlow {
  constructor ({ entries, session, values, scenario, format }) {
    this.entries = entries
    this.session = session
    this.values = Object.freeze({ ...values })
    this.scenario = scenario
    this.format = format
    this.connections = []
    // Static entries (no per-request value, capture or function, no session) are built once by autocannon.
    this.dynamic = session !== null || entries.some((entry) => entry.dynamic)
  }

  label () {
    return `scenario '${this.scenario}' (${this.format})`
  }

  connection (index) {
    this.connections[index] ??= new Connection(index, this.session !== null && this.session.cookies)
    return this.connections[index]
  }

  /**
   * Runs the session's requests for connections 0 to `count - 1` that have none yet (a new cell's app knows no
   * session), a few connections at a time; each answer checked, its cookies and captures kept.
   */
  async prepare (base, count) {
    if (this.session === null || this.session.requests.length === 0) return
    const pending = []
    for (let index = 0; index < count; index++) {
      const connection = this.connection(index)
      if (!connection.prepared) pending.push(connection)
    }
    for (let at = 0; at < pending.length; at += SESSION_CONCURRENCY) {
      await Promise.all(pending.slice(at, at + SESSION_CONCURRENCY).map(async (connection) => {
        const check = new AnswerCheck(`connection ${connection.index + 1}'s session`)
        for (const entry of this.session.requests) {
          await this.fetchOne(base, entry, connection, check)
          if (check.failure !== null) throw check.failure
          if (check.first !== null) {
            throw flowError(codes.NB_ERR_WORKLOAD_PROBE, `${this.label()}: ${unexpectedText(check.first)}`)
          }
        }
        connection.prepared = true
      }))
    }
  }

  /**
   * Sends each entry once on connection 0 (its session prepared), as autocannon would, checking each answer:
   * the first request of a cell. Returns the first answer `{ status, bytes, body, contentType }`.
   */
  async probe (base, maxPaths) {
    await this.prepare(base, 1)
    const check = new AnswerCheck('probe')
    const connection = this.connection(0)
    let first = null
    const seen = new Set()
    for (const entry of this.entries) {
      // A list of paths rotates: the first ones are checked, each once.
      if (!entry.dynamic && (seen.has(`${entry.method} ${entry.path}`) || seen.size >= maxPaths)) continue
      seen.add(`${entry.method} ${entry.path}`)
      const answer = await this.fetchOne(base, entry, connection, check)
      if (check.failure !== null) throw check.failure
      if (check.first !== null) throw flowError(codes.NB_ERR_WORKLOAD_PROBE, `${this.label()}: ${unexpectedText(check.first)}`)
      first ??= answer
    }
    return first
  }

  /** One entry sent with fetch on `connection`, its answer read as autocannon's would be. */
  async fetchOne (base, entry, connection, check) {
    const unbuilt = { method: entry.method, path: entry.path, headers: { ...entry.headers }, body: entry.body }
    const request = this.build(entry, connection, unbuilt, check)
    if (check.failure !== null) return null
    const response = await fetch(base + request.path, {
      method: request.method, headers: request.headers, body: request.body, redirect: 'manual'
    })
    const body = Buffer.from(await response.arrayBuffer())
    this.read(entry, connection, response.status, body.toString('utf8'), response.headers, check)
    return { status: response.status, bytes: body.length, body, contentType: response.headers.get('content-type') }
  }

  /**
   * `request` (autocannon's, or fetchOne's) filled in for `entry` on `connection`: per-request values, captured
   * values, cookies, then the workload's setupRequest. A failure is `check`'s, and stops its run.
   */
  build (entry, connection, request, check) {
    if (!entry.dynamic && connection.jar === null) {
      connection.inFlight = null
      return request
    }
    const seq = ++lastSeq
    const uuid = entry.usesUuid ? randomUUID() : null
    try {
      const fill = (text, where, encode = String) => text.replace(PER_REQUEST, (whole, name) => {
        if (name === '$seq') return String(seq)
        if (name === '$uuid') return uuid
        if (Object.hasOwn(connection.captured, name)) return encode(connection.captured[name])
        throw flowError(codes.NB_ERR_WORKLOAD, `workload ${this.label()}: ${where} uses {${name}}, which no answer on connection ` +
          `${connection.index + 1} captured yet (capture it in an earlier request or the session's)`)
      })
      let path = entry.templated.path ? fill(entry.path, `${entry.where}.path`) : entry.path
      const headers = { ...request.headers }
      for (const name of entry.templated.headers) headers[name] = fill(entry.headers[name], `${entry.where}.headers.${name}`)
      let body = entry.templated.body ? fill(entry.body, `${entry.where}.body`, entry.bodyEncoding === 'form' ? formEncode : String) : entry.body
      let method = entry.method
      if (connection.jar !== null) {
        const cookies = connection.jar.header()
        if (cookies !== null) headers.cookie = headers.cookie ? `${headers.cookie}; ${cookies}` : cookies
      }
      if (entry.setupRequest !== null) {
        const context = {
          seq,
          uuid: uuid ?? randomUUID(),
          values: this.values,
          captured: { ...connection.captured },
          connection: connection.index
        }
        let built
        try {
          built = entry.setupRequest({ method, path, headers, body }, context)
        } catch (err) {
          throw flowError(codes.NB_ERR_WORKLOAD_HOOK, `workload ${this.label()}: ${entry.where}.setupRequest failed: ${err.message}`)
        }
        if (built === null || typeof built !== 'object' || typeof built.then === 'function' || typeof built.path !== 'string' || !built.path.startsWith('/')) {
          throw flowError(codes.NB_ERR_WORKLOAD_HOOK, `workload ${this.label()}: ${entry.where}.setupRequest must return the request ` +
            `({ method, path, headers, body }, synchronously, a path starting with '/'); returned ${built === null || typeof built !== 'object' ? String(built) : typeof built.then === 'function' ? 'a promise' : `path ${JSON.stringify(built.path)}`}`)
        }
        method = String(built.method ?? method).toUpperCase()
        path = built.path
        Object.assign(headers, built.headers)
        body = built.body ?? undefined
        if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) {
          body = JSON.stringify(body)
          if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
        }
      }
      connection.inFlight = { seq, method, path }
      return Object.assign(request, { method, path, headers, body })
    } catch (err) {
      check.fail(err)
      connection.inFlight = { seq, method: entry.method, path: entry.path }
      return request
    }
  }

  /** An answer to `entry` on `connection`: its cookies and captures kept, its status checked. */
  read (entry, connection, status, body, headers, check) {
    if (connection.jar !== null) connection.jar.store(headerValues(headers, 'set-cookie'))
    const expected = check.answer(status, body, entry, connection.inFlight)
    if (!expected) return
    for (const [name, capture] of entry.captures) {
      const value = captured(capture, body, headers)
      if (value === undefined) {
        const sent = connection.inFlight ?? entry
        check.fail(flowError(codes.NB_ERR_WORKLOAD_PROBE, `${this.label()}: ${entry.where}.capture.${name}: ${check.phase} request ${check.answered} ` +
          `(${sent.method} ${sent.path}) answered ${status} with ${captureText(capture)}: ${bodyText(body)}`))
        return
      }
      connection.captured[name] = value
    }
  }

  /**
   * autocannon's options for one run, `phase` its name in failures (`warm-up`, `repetition 2`): `requests`, and
   * for a dynamic flow `setupClient`, which gives each connection its own requests. `observer` (load-observer.js)
   * hears each answer before autocannon reports it. `check` counts the run's answers.
   */
  autocannonOptions (phase, observer = null) {
    const check = new AnswerCheck(phase)
    const requestsFor = (connection) => this.entries.map((entry) => ({
      method: entry.method,
      path: entry.path,
      headers: { ...entry.headers },
      body: entry.body,
      ...(this.dynamic ? { setupRequest: (request) => this.build(entry, connection, request, check) } : {}),
      onResponse: (status, body, context, headers) => {
        if (observer !== null) observer.answerSeen(status, body, entry.status)
        if (connection === null) check.answer(status, body, entry, null)
        else this.read(entry, connection, status, body, headers, check)
      }
    }))
    if (!this.dynamic) return { check, options: { requests: requestsFor(null) } }
    const clients = []
    // autocannon builds a connection's first request before setupClient: the stand-ins are never sent.
    const standIns = this.entries.map((entry) => ({ method: entry.method, path: '/', headers: {} }))
    // A failure of the workload's own code closes every connection at once (autocannon's stop() waits for its
    // next one-second tick, and would send requests the workload cannot build until then).
    check.onFailure = () => setImmediate(() => { for (const client of clients) client.destroy() })
    return {
      check,
      options: {
        requests: standIns,
        setupClient: (client) => {
          clients.push(client)
          client.setRequests(requestsFor(this.connection(clients.length - 1)))
        }
      }
    }
  }
}

module.exports = { RequestFlow, CookieJar, unexpectedText, formEncode }
