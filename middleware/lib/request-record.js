'use strict'

const { performance } = require('node:perf_hooks')

const kRecord = Symbol('nodebench.record')

/**
 * Everything nodebench keeps about one request: when it entered the app, and one entry per layer
 * invocation (a segment) or per router/sub-app it passed through (a container, whose time overlaps its
 * children and therefore is not a segment of the breakdown). Entries are stored in parallel arrays so a
 * request allocates a handful of arrays, not an object per layer.
 *
 * It is also the request description BreakdownAggregator.recordRequest() reads.
 */
class RequestRecord {
  constructor (method, startMs) {
    this.method = method
    this.startMs = startMs
    this.endMs = 0
    this.done = false
    this.aborted = false
    this.errored = false
    this.statusCode = 0
    this.format = 'other'
    this.route = null
    this.prefix = ''
    this.baseUrl = ''
    // One entry per segment or container, in the order they were entered.
    this.segmentCount = 0
    this.segmentInfo = []
    this.entryStart = []
    this.entryEnd = []
    this.entryParent = []
    this.entryError = []
    this.entryTemplate = []
    // Open containers (indexes into the entries) and their base URLs, innermost last.
    this.containers = []
    this.containerBaseUrls = []
    // Tracing state, set only for sampled requests.
    this.sampled = false
    this.span = null
    this.parentSpan = null
    // The request, until the record is finished (to know whether it is counted).
    this.request = null
  }

  openEntry (info, template) {
    const index = this.segmentCount++
    this.segmentInfo.push(info)
    this.entryStart.push(performance.now())
    this.entryEnd.push(-1)
    this.entryParent.push(this.containers.length ? this.containers[this.containers.length - 1] : -1)
    this.entryError.push(null)
    this.entryTemplate.push(template)
    return index
  }

  /** Ends a segment at next(err) / throw / rejection. A second call (a layer calling next twice) is ignored. */
  closeEntry (index, err) {
    if (this.done || this.entryEnd[index] !== -1) return
    this.entryEnd[index] = performance.now()
    if (err && err !== 'route' && err !== 'router') {
      this.entryError[index] = err
      this.errored = true
    }
  }

  /**
   * Enters a router or mounted app. Express has already set req.baseUrl to include the part of the path
   * `layer` matched; turning the matched values back into `:name` gives the mount's route template.
   */
  enterContainer (info, req, layer) {
    const baseUrl = typeof req.baseUrl === 'string' ? req.baseUrl : ''
    const matched = baseUrl.startsWith(this.baseUrl) ? baseUrl.slice(this.baseUrl.length) : baseUrl
    const template = this.prefix + templateOf(matched, matchedKeys(layer, matched), req.params)
    const index = this.openEntry(info, template)
    this.containers.push(index)
    this.containerBaseUrls.push(baseUrl)
    this.prefix = template
    this.baseUrl = baseUrl
    return index
  }

  exitContainer (index) {
    if (this.done) return
    this.closeEntry(index, null)
    const at = this.containers.lastIndexOf(index)
    if (at === -1) return
    this.containers.length = at
    this.containerBaseUrls.length = at
    this.prefix = at > 0 ? this.entryTemplate[this.containers[at - 1]] : ''
    this.baseUrl = at > 0 ? this.containerBaseUrls[at - 1] : ''
  }

  /** Closes whatever is still open at the end of the response; sets format, route and status. */
  finish (res, aborted) {
    const endMs = performance.now()
    this.endMs = endMs
    this.done = true
    this.aborted = aborted
    for (let i = 0; i < this.segmentCount; i++) {
      if (this.entryEnd[i] === -1) this.entryEnd[i] = endMs
    }
    this.statusCode = res.statusCode
    if (this.statusCode >= 500) this.errored = true
    this.format = formatOf(res.getHeader('content-type'))
    if (this.route === null) this.route = this.prefix ? this.prefix + '/*' : '*'
  }

  get responseTimeMs () {
    return this.endMs - this.startMs
  }

  segmentDurationMs (index) {
    return this.entryEnd[index] - this.entryStart[index]
  }
}

function formatOf (contentType) {
  if (typeof contentType !== 'string') return 'other'
  if (contentType.includes('json')) return 'json'
  if (contentType.includes('html')) return 'html'
  return 'other'
}

function safeDecode (segment) {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The parameter names `layer` matched. Express 4 and router < 2.3 keep them on the layer; router 2.3 keeps
 * match results local to the request, so the path the layer consumed is matched again for them.
 */
function matchedKeys (layer, matchedPath) {
  if (layer.keys !== undefined) return layer.keys
  if (matchedPath === '' || typeof layer.match !== 'function') return undefined
  const match = layer.match(matchedPath)
  return match ? match.keys : undefined
}

/** `/db/nodebench` with keys [database] and params { database: 'nodebench' } -> `/db/:database`. */
function templateOf (matchedPath, keys, params) {
  if (!keys || keys.length === 0 || !params || matchedPath === '') return matchedPath
  const parts = matchedPath.split('/')
  let from = 1
  for (const key of keys) {
    const name = typeof key === 'object' && key !== null ? key.name : key
    const value = params[name]
    if (value === undefined || value === null) continue
    for (let i = from; i < parts.length; i++) {
      if (parts[i] === value || safeDecode(parts[i]) === value) {
        parts[i] = ':' + name
        from = i + 1
        break
      }
    }
  }
  return parts.join('/')
}

module.exports = { RequestRecord, kRecord, formatOf, templateOf }
