'use strict'

const path = require('path')
const { startCallIn, endCall } = require('./calls')
const { describeDependency } = require('./describe')
const { recordOf } = require('../request-record')
const { reportInternalError } = require('../internal-errors')

// What a segment spends making its response's body, reported beside its dependencies (docs/middleware.md):
// template rendering (`res.render`, any engine: `render pug home`) and JSON serialisation (`res.json`,
// `res.jsonp`, and so `res.send` of an object: `serialize json`). Both are found on the response prototype of the
// Express the app runs on, wrapped when nodebench finds the app (no require hook, no preload); the request is the
// response's own record (request-record.js), so no AsyncLocalStorage is needed. An app that never renders nor
// serialises never enters a wrapper; the layers' path is unchanged.
//
// A render lasts from `res.render` called to its callback (Express's own, which sends the page or hands the
// error to next(), or the app's): the view's lookup, the engine's compilation (unless cached) and rendering,
// async engines included. Express's res.render hands its callback to `app.render`, wrapped (per app, at its first
// render) to end the call when the callback runs, and to hand it on unchanged. A serialisation lasts from
// `res.json` called to its `res.send` of the string (JSON.stringify, the Content-Type), so the sending (ETag,
// the write) is the segment's own time, as after a render.

const kOriginal = Symbol('nodebench.originalRender')

const wrappedPrototypes = new WeakSet()
// The render res.render has started, until app.render (called by it, synchronously) takes it.
let pendingRender = null
// The serialisation res.json has started, until its res.send (called by it, synchronously).
let serializing = null

/** Template engines known by their package or extension, as their template language is called. */
const ENGINE_NAMES = new Map([
  ['hbs', 'handlebars'], ['express-handlebars', 'handlebars'], ['express-hbs', 'handlebars'],
  ['njk', 'nunjucks'], ['nunjucks', 'nunjucks'], ['jade', 'pug']
])

/**
 * Wraps res.render, res.json, res.jsonp and res.send of the Express `app` runs on (the prototype every app of
 * that Express shares: `app.response`'s), once per Express copy.
 */
function observeRendering (app) {
  try {
    const response = app !== null && typeof app === 'function' && app.response !== null && typeof app.response === 'object'
      ? Object.getPrototypeOf(app.response)
      : null
    if (response === null || wrappedPrototypes.has(response)) return
    if (typeof response.render !== 'function' || typeof response.json !== 'function' || typeof response.send !== 'function') return
    wrappedPrototypes.add(response)
    wrapMethod(response, 'render', wrapRender)
    wrapMethod(response, 'json', wrapSerialize('json'))
    if (typeof response.jsonp === 'function') wrapMethod(response, 'jsonp', wrapSerialize('jsonp'))
    wrapMethod(response, 'send', wrapSend)
  } catch (err) {
    reportInternalError('find how the app renders', err)
  }
}

function wrapMethod (object, name, wrap) {
  const original = object[name]
  if (original[kOriginal] !== undefined) return
  const wrapper = wrap(original)
  wrapper[kOriginal] = original
  object[name] = wrapper
}

function wrapRender (original) {
  return function render (view) {
    const call = startRender(this, view)
    if (call === null) return original.apply(this, arguments)
    pendingRender = call
    try {
      return original.apply(this, arguments)
    } catch (err) {
      endCall(call, errorType(err))
      throw err
    } finally {
      // Still here: app.render was not reached (a res.render of the app's own), so the time is what ran.
      if (pendingRender === call) {
        pendingRender = null
        endCall(call, null)
      }
    }
  }
}

/** The render `res` starts of `view`, or null when its request is not timed (or anything is unexpected). */
function startRender (res, view) {
  try {
    if (typeof view !== 'string') return null
    const record = recordOf(res)
    if (record === undefined) return null
    const app = res.req?.app
    if (typeof app !== 'function' || typeof app.render !== 'function') return null
    if (app.render[kOriginal] === undefined) wrapAppRender(app)
    const ext = extensionOf(app, view)
    const engine = engineOf(app, ext)
    const dependency = describeDependency('render', engine, ext, view, () => {
      const target = viewTarget(app, view, ext)
      return {
        system: 'render',
        operation: engine,
        target,
        spanName: `render ${target}`,
        spanKind: 'internal',
        attributes: {
          'nodebench.dependency.system': 'render',
          'nodebench.dependency.operation': engine,
          'nodebench.dependency.target': target
        }
      }
    })
    return startCallIn(record, dependency)
  } catch (err) {
    reportInternalError('time a render', err)
    return null
  }
}

/** Wraps `app.render` (each app has its own, mixed in by Express) to end the pending render at its callback. */
function wrapAppRender (app) {
  const original = app.render
  const render = function render (name, options, callback) {
    const call = pendingRender
    if (call === null) return original.apply(this, arguments)
    pendingRender = null
    const done = typeof options === 'function' ? options : callback
    if (typeof done !== 'function') return original.apply(this, arguments)
    const renderDone = function renderDone (err) {
      endCall(call, err === null || err === undefined ? null : errorType(err))
      return done.apply(this, arguments)
    }
    return typeof options === 'function'
      ? original.call(this, name, renderDone)
      : original.call(this, name, options, renderDone)
  }
  render[kOriginal] = original
  app.render = render
}

/** The extension Express looks the view up with: its own, else the app's `view engine`'s ('.pug'). */
function extensionOf (app, view) {
  const own = path.extname(view)
  if (own !== '') return own
  const defaultEngine = typeof app.get === 'function' ? app.get('view engine') : undefined
  if (typeof defaultEngine !== 'string' || defaultEngine === '') return ''
  return defaultEngine[0] === '.' ? defaultEngine : `.${defaultEngine}`
}

const enginePackages = new WeakMap()

/**
 * The template engine's name: the package of the function registered for the extension (`app.engine('html',
 * ejs.renderFile)`: ejs), else the view class an engine installed (nunjucks's NunjucksView), else the extension,
 * which is the package Express itself requires for it. Handlebars, through whichever package, is `handlebars`.
 */
function engineOf (app, ext) {
  let name = null
  const registered = app.engines !== null && typeof app.engines === 'object' ? app.engines[ext] : undefined
  if (typeof registered === 'function') {
    name = enginePackages.get(registered)
    if (name === undefined) {
      name = packageExporting(registered)
      enginePackages.set(registered, name)
    }
  }
  if (name === null) {
    const View = app.get('view')
    const match = typeof View === 'function' ? /^(\w+)View$/.exec(View.name) : null
    if (match !== null) name = match[1].toLowerCase()
  }
  if (name === null) name = ext === '' ? 'unknown' : ext.slice(1)
  return ENGINE_NAMES.get(name) ?? name
}

function exportsEngine (exported, engine) {
  if (exported === engine) return true
  if (exported === undefined || exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) return false
  try {
    return exported.__express === engine || exported.renderFile === engine
  } catch {
    return false // a module whose getters throw
  }
}

const PACKAGE_OF_FILE = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](?!.*[\\/]node_modules[\\/])/

/** The package whose module exports `engine` (as itself, `__express` or `renderFile`), or null. */
function packageExporting (engine) {
  for (const filename of Object.keys(require.cache)) {
    const match = PACKAGE_OF_FILE.exec(filename)
    if (match !== null && exportsEngine(require.cache[filename]?.exports, engine)) return match[1].replace(/\\/g, '/')
  }
  return null
}

/** The view as the app names it, relative to its views directory, without the engine's extension: `admin/users`. */
function viewTarget (app, view, ext) {
  let target = view
  if (path.isAbsolute(view)) {
    const views = app.get('views')
    for (const root of Array.isArray(views) ? views : [views]) {
      if (typeof root !== 'string') continue
      const relative = path.relative(root, view)
      if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) {
        target = relative
        break
      }
    }
  }
  target = path.posix.normalize(target.replace(/\\/g, '/'))
  if (ext !== '' && target.endsWith(ext)) target = target.slice(0, -ext.length)
  return target
}

const serializations = new Map()

/** What a `format` serialisation (json, jsonp) is. */
function serialization (format) {
  return describeDependency('serialize', '', format, '', () => ({
    system: 'serialize',
    operation: format,
    target: '',
    spanName: `serialize ${format}`,
    // Nearly every response of an API serialises, in well under a millisecond: a span each would add to every
    // request's export what the breakdown already says.
    spanKind: 'none',
    attributes: {}
  }))
}

function wrapSerialize (format) {
  return function wrap (original) {
    return function serialize () {
      const call = startSerialize(this, format)
      if (call === null) return original.apply(this, arguments)
      const outer = serializing
      serializing = call
      try {
        return original.apply(this, arguments)
      } catch (err) {
        if (serializing === call) endCall(call, errorType(err))
        throw err
      } finally {
        // A res.json of the app's own, or one that threw: its time is what ran.
        if (serializing === call) endCall(call, null)
        serializing = outer
      }
    }
  }
}

function startSerialize (res, format) {
  try {
    const record = recordOf(res)
    if (record === undefined) return null
    let dependency = serializations.get(format)
    if (dependency === undefined) serializations.set(format, (dependency = serialization(format)))
    return startCallIn(record, dependency)
  } catch (err) {
    reportInternalError('time a serialisation', err)
    return null
  }
}

// res.send is where a serialisation ends: the body is made. One compare when nothing is being serialised.
function wrapSend (original) {
  return function send () {
    if (serializing !== null) {
      endCall(serializing, null)
      serializing = null
    }
    return original.apply(this, arguments)
  }
}

function errorType (err) {
  if (err !== null && typeof err === 'object') {
    if (typeof err.code === 'string') return err.code
    if (typeof err.name === 'string') return err.name
  }
  return '_OTHER'
}

module.exports = { observeRendering, engineOf, viewTarget }
