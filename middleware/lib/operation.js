'use strict'

// What an operation is: the route template a request matched (the mount templates of the routers and sub-apps
// it entered, then its route's own path) and the format of its response. Operations are what the breakdown
// groups requests by and what a request span is named after; they are decided here only: the route's layer
// (wrap-layer.js, instrument-app.js), a param callback (wrap-layer.js) and the request's record when it
// enters a router (enterContainer) or finishes (request-record.js) ask this module.

const kTemplates = Symbol('nodebench.templates')
const TEMPLATE_CACHE_SIZE = 64

/** A route's own path as a template: a path, the paths of an array joined with `|`, else its string. */
function routePath (path) {
  if (typeof path === 'string') return path
  if (Array.isArray(path)) return path.map(routePath).join('|')
  return String(path)
}

/** A route's template, under the prefix of the routers it is mounted in (the last one joined is kept). */
class RouteTemplate {
  constructor (path, refresh) {
    this.path = path
    this.refresh = refresh
    this.lastPrefix = ''
    this.lastTemplate = path
  }

  templateUnder (prefix) {
    if (prefix !== this.lastPrefix) {
      this.lastPrefix = prefix
      this.lastTemplate = prefix + this.path
    }
    return this.lastTemplate
  }
}

/**
 * The template of the path a router/app layer matched, cached per layer and matched path (a mount path
 * usually matches the same few values), so a request entering a router does not split and re-match it.
 */
function mountTemplate (layer, matched, params) {
  if (matched === '') return ''
  let cache = layer[kTemplates]
  if (cache === undefined) {
    cache = new Map()
    layer[kTemplates] = cache
  }
  let template = cache.get(matched)
  if (template === undefined) {
    template = templateOf(matched, matchedKeys(layer, matched), params)
    if (cache.size >= TEMPLATE_CACHE_SIZE) cache.clear()
    cache.set(matched, template)
  }
  return template
}

// The last content-type asked and its format: an app's responses mostly carry one content-type, and comparing it
// with the last one is cheaper than searching it for 'json' (Express builds the string anew for each response,
// so the comparison is of characters, ~30 of them, not of a pointer).
let lastContentType = null
let lastFormat = 'other'

/** A response's format, from its content-type: json, html or other. */
function formatOf (contentType) {
  if (typeof contentType !== 'string') return 'other'
  if (contentType === lastContentType) return lastFormat
  const format = contentType.includes('json') ? 'json' : contentType.includes('html') ? 'html' : 'other'
  lastContentType = contentType
  lastFormat = format
  return format
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

/** The route of a request no route answered: `*` under the prefix of the routers it entered. */
function unmatchedRoute (prefix) {
  return prefix ? prefix + '/*' : '*'
}

module.exports = { RouteTemplate, routePath, mountTemplate, templateOf, formatOf, unmatchedRoute }
