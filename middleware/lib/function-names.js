'use strict'

const path = require('path')
const { FunctionLookup } = require('./function-lookup')
const { AppExports } = require('./app-exports')
const { originOf, wrappedFunction, factoryCall, callSiteName, calledMiddleware, bounded } = require('./closure-names')
const { reportInternalError } = require('./internal-errors')
const { unwrapFunction } = require('./foreign-wrappers')
const { SourceMaps } = require('./source-maps')

// The name a reader recognises for each timed function, resolved off the request path: the naming rules.
// What V8 knows of a function (its location, closures, source) comes from function-lookup.js.
//
// Instrumenting an app (on its first request) only records which function each layer runs: a LayerInfo with
// the layer's kind and, for a param callback, the parameter's name. Names, files and lines are filled in by
// resolveNames() when something first needs them: a breakdown snapshot, a cluster merge, a span export, a
// Server-Timing header. One call resolves every pending LayerInfo, so an app pays once, not per request.
//
// `exp.viewDocument = function (req, res) {}` has an empty `.name` (the spec only names functions assigned
// to plain identifiers and object-literal keys), yet a stack trace shows `viewDocument`: the name is the
// assignment target in front of the function in the script's source. Functions made by wrappers and factories
// (catchAsync, auth('getUsers')) are named by closure-names.js's rules.

/**
 * What nodebench knows of one timed layer: its kind at once; its name, file, line and breakdown key once
 * resolved (`key` is null until then). One class for every layer, so the request path's reads of `kind`
 * see one shape.
 */
class LayerInfo {
  constructor (kind, fn, fixedName) {
    this.kind = kind
    this.name = fixedName
    this.file = null
    this.line = null
    this.key = null
    this.fn = fn
    // A param callback's parameter; or how a layer of a framework's pipeline is named (NAMED_BY_CLASS).
    this.param = null
    this.namedBy = null
    // The other names it is known by (describe()'s `aliases`), frozen.
    this.aliases = NO_ALIASES
    // The bytes of this layer's spans, made by the OTLP encoder at its first sampled span (otlp-encoder.js).
    this.spanTemplate = null
  }
}

// A unit named after the class of the object its function is bound to (a NestJS exception filter's `catch`).
const NAMED_BY_CLASS = 'class'

// LayerInfos waiting for resolveNames().
const pending = new Set()
// fn -> describe()'s answer: a function used by several layers (or apps) is looked up once.
const described = new WeakMap()

/** A layer running `fn`, resolved by the next resolveNames(). `fixedName`: its name, when it is known already. */
function layerInfo (kind, fn, fixedName = null) {
  return pendingInfo(new LayerInfo(kind, unwrapFunction(fn), fixedName))
}

/** A param callback: named after its parameter, with its function's name beside it when it has another one. */
function paramInfo (fn, param) {
  const info = new LayerInfo('param', unwrapFunction(fn), null)
  info.param = param
  return pendingInfo(info)
}

/** A layer of a framework's pipeline named after the class its function is bound to (`TeapotFilter`). */
function classInfo (kind, boundFn) {
  const info = new LayerInfo(kind, boundFn, null)
  info.namedBy = NAMED_BY_CLASS
  return pendingInfo(info)
}

/** A layer with a name of its own and no function to look up (a framework's own step: Nest writing the reply). */
function fixedInfo (kind, name) {
  const info = new LayerInfo(kind, null, name)
  info.key = `${kind} ${name}`
  return info
}

function pendingInfo (info) {
  const known = described.get(info.fn)
  if (known !== undefined) finishInfo(info, known)
  else pending.add(info)
  return info
}

/** A router or mounted app: its children are the segments; it needs no name of its own beyond `name`. */
function containerInfo (name) {
  const info = new LayerInfo('router', null, name)
  info.key = `router ${name}`
  return info
}

function hasPendingNames () {
  return pending.size > 0
}

function finishInfo (info, found) {
  info.file = found.file
  info.line = found.line
  // A framework's middleware registered as a route's handler (Nest's, for some routes) is a middleware.
  if (found.kind === 'middleware' && info.kind === 'handler') info.kind = 'middleware'
  if (info.param !== null) {
    // `database` for `exp.database = function (req, res, next, name)`, `findBook (:isbn)` for a named callback.
    info.name = found.name && found.name !== info.param ? `${found.name} (:${info.param})` : info.param
    info.aliases = aliasList(info.name, [found.name, ...(found.aliases || NO_ALIASES)])
  } else if (info.name === null) {
    const byClass = info.namedBy === NAMED_BY_CLASS ? found.className : null
    info.name = byClass || found.name || anonymousName(found)
    info.aliases = aliasList(info.name, [found.name, ...(found.aliases || NO_ALIASES)])
  }
  info.key = `${info.kind} ${info.name} ${info.file || '?'}:${info.line || 0}`
  info.fn = null
}

/** Fills in the name, file, line and key of every pending LayerInfo. Never throws; safe to call often. */
function resolveNames () {
  if (pending.size === 0) return
  const infos = Array.from(pending)
  pending.clear()
  const lookup = new FunctionLookup()
  const namer = new FunctionNamer(lookup)
  const sourceMaps = new SourceMaps()
  try {
    for (const info of infos) {
      let found = described.get(info.fn)
      if (found === undefined) {
        found = writtenAt(namer.describe(info.fn), lookup, sourceMaps)
        described.set(info.fn, found)
      }
      finishInfo(info, found)
    }
  } catch (err) {
    reportInternalError('resolve names', err)
    for (const info of infos) {
      if (info.key === null) {
        finishInfo(info, { name: info.fn && info.fn.name ? info.fn.name : null, file: null, line: null })
      }
    }
  } finally {
    lookup.close()
  }
}

// Files V8 cannot run as they are on disk: a loader (ts-node, @babel/register) compiled them in memory, and the
// code it ran may name a source map of its own (Node.js's type stripping keeps every position and names none).
const COMPILED_ON_LOAD = /\.(?:[cm]?tsx?|jsx)$/

/**
 * A description whose file and line are where the function was written: the app's compiled code (TypeScript's
 * dist/, or what ts-node ran) placed in its source by the code's source map (source-maps.js). A package's files
 * stay as they are.
 */
function writtenAt (found, lookup, sourceMaps) {
  if (found.file === null || found.line === null || packageOf(found.file) !== null) return found
  const column = found.location ? found.location.columnNumber : null
  let place = sourceMaps.originalPlace(found.file, found.line - 1, column)
  if (place === null && found.location && COMPILED_ON_LOAD.test(found.file)) {
    const ran = lookup.scriptSource(found.location.scriptId)
    if (ran !== null) place = sourceMaps.originalPlace(found.file, found.line - 1, column, ran)
  }
  return place === null ? found : { ...found, file: place.file, line: place.line }
}

/**
 * The naming rules over one inspector session (function-lookup.js) and the app's exports (app-exports.js).
 * describe(fn) is `{ name, file, line, aliases, className?, kind? }`: `aliases` are the other names the
 * function is known by (the plain function's name, its factory's, the export's key), which a workload's
 * `dominant` may use.
 */
class FunctionNamer {
  constructor (lookup) {
    this.lookup = lookup
    this.exports = new AppExports()
  }

  /**
   * The name is the function's own, else what its library says it is (an express-validator chain:
   * `body('email')`), else the one a stack trace would show. A bound function is described by its target,
   * named `Class.method` after the object it is bound to (`className`: that class). A function of a framework
   * that wraps the user's (a NestJS route or middleware) is described by the user's function it calls; a
   * wrapper's or a factory's product by what it wraps or what made it (closure-names.js).
   */
  describe (fn, depth = 0) {
    const label = libraryLabel(fn)
    const info = { name: label || ownName(fn), file: null, line: null, aliases: NO_ALIASES, location: null }
    const lookup = this.lookup
    if (!lookup.open()) return info
    try {
      const internals = lookup.internalProperties(fn)
      const target = internals.find((p) => p.name === '[[TargetFunction]]')
      if (target !== undefined) return this.describeBound(fn, internals, target)
      const location = lookup.locationOf(internals)
      if (location === null) return info
      info.file = location.file
      info.line = location.line
      info.location = location
      if (isFrameworkFile(info.file)) {
        const wrapped = this.wrappedUserFunction(fn)
        if (wrapped !== null) return wrapped
      }
      if (label === null && depth < MAX_WRAPPER_DEPTH) {
        const made = this.madeBy(fn, location, info.name, depth)
        if (made !== null) return made
      }
      if (!info.name) {
        const lines = lookup.sourceLines(location, fn)
        info.name = nameFromSource(lines, location.lineNumber, location.columnNumber, info.file)
      }
      if (!info.name && packageOf(info.file || '') === null) info.name = calledMiddleware(fn)
    } catch (err) {
      reportInternalError('function location', err)
    }
    return info
  }

  /**
   * What made `fn` (closure-names.js): the function it wraps, named by the export or variable the app keeps
   * the wrapper's product in, else by its own description; or the factory that returned it, with its short
   * arguments. Null when `fn` is no closure made by another function, or keeps a name of its own.
   */
  madeBy (fn, location, ownName, depth) {
    const origin = originOf(this.lookup, fn, location)
    if (origin === null) return null
    const wrapped = wrappedFunction(this.lookup, fn, origin)
    if (wrapped !== null) {
      const inner = this.describe(wrapped, depth + 1)
      const exported = this.exports.exportOf(fn, inner.file)
      const variable = inner.location === null ? null : callSiteName(this.lookup, wrapped, inner.location)
      const name = (exported && exported.name) || variable || inner.name || anonymousName(inner)
      const plainVariable = variable && variable.slice(variable.lastIndexOf('.') + 1)
      return {
        ...inner,
        name,
        aliases: aliasList(name, [exported && exported.key, plainVariable, inner.name, ...inner.aliases])
      }
    }
    if (!origin.returned) return null
    const call = factoryCall(this.lookup, origin, this.exports)
    const fromPackage = location.file === null ? null : packageOf(location.file)
    const exported = this.exports.exportOf(fn)
    // A name of its own other than its factory's (helmet's `helmetMiddleware`) says more than the factory.
    const own = ownName !== null && ownName !== origin.owner ? ownName : null
    // A package's factory with a name that says nothing (express-mongo-sanitize's `middleware()`) is its package.
    const generic = call === origin.owner && GENERIC_FACTORIES.has(origin.owner)
    const byPackage = fromPackage !== null && generic ? fromPackage : null
    const name = exported !== null ? exported.name : own || byPackage || call
    return {
      name,
      file: location.file,
      line: location.line,
      location,
      aliases: aliasList(name, [own, call, origin.owner, ownName, exported && exported.key, fromPackage])
    }
  }

  /** A bound function: its target's location and name, after the class of what it is bound to when it has one. */
  describeBound (fn, internals, target) {
    const targetFn = this.lookup.remoteValue(target.value.objectId)
    const described = typeof targetFn === 'function' ? this.describe(targetFn) : { name: null, file: null, line: null }
    const boundThis = internals.find((p) => p.name === '[[BoundThis]]')
    const className = boundThis && boundThis.value.type === 'object' ? instanceClass(boundThis.value) : null
    const method = described.name || null
    const name = className !== null && method !== null ? `${className}.${method}` : method || className || ownName(fn)
    return {
      name,
      file: described.file,
      line: described.line,
      location: null,
      aliases: className !== null && method !== null ? aliasList(name, [method]) : NO_ALIASES,
      className
    }
  }

  /**
   * The user's function a framework's wrapper calls, found in the wrapper's closures (breadth first, a few
   * levels deep): a NestJS route handler closes over the controller `instance` and its method (`callback`),
   * named `CatsController.findOne`; a Nest middleware over its class's `use` bound to an instance, named after
   * the class (`RequestIdMiddleware`), or over the user's function (a functional middleware). Null if none.
   */
  wrappedUserFunction (fn) {
    const lookup = this.lookup
    const queue = [fn]
    const seen = new Set(queue)
    for (let visited = 0; queue.length > 0 && visited < MAX_WRAPPER_FUNCTIONS; visited++) {
      const variables = lookup.closureVariables(queue.shift())
      const instance = variables.get('instance')
      const callback = variables.get('callback')
      if (instance !== undefined && instance.type === 'object' && callback !== undefined && callback.type === 'function') {
        const method = lookup.remoteValue(callback.objectId)
        const described = this.describe(method)
        return { ...described, name: `${instanceClass(instance)}.${method.name || described.name}` }
      }
      for (const [name, variable] of variables) {
        if (variable.type !== 'function' || !WRAPPED_VARIABLES.has(name)) continue
        const value = lookup.remoteValue(variable.objectId)
        if (typeof value !== 'function' || seen.has(value)) continue
        seen.add(value)
        const internals = lookup.internalProperties(value)
        const target = internals.find((p) => p.name === '[[TargetFunction]]')
        if (target !== undefined) {
          const bound = this.describeBound(value, internals, target)
          // A Nest middleware: its class's `use`, bound to the instance Nest made.
          if (bound.file !== null && !isFrameworkFile(bound.file)) return { ...bound, name: bound.className || bound.name, kind: 'middleware' }
          const targetFn = lookup.remoteValue(target.value.objectId)
          if (typeof targetFn === 'function' && !seen.has(targetFn)) queue.push(targetFn)
          continue
        }
        const location = lookup.locationOf(internals)
        if (location === null || !path.isAbsolute(location.file || '')) continue
        if (isFrameworkFile(location.file)) queue.push(value)
        else if (name === 'middleware') return { ...this.describe(value), kind: 'middleware' }
        else return this.describe(value)
      }
    }
    return null
  }
}

// Factory names that name no middleware in particular: a package's product made by one is named by its package.
const GENERIC_FACTORIES = new Set(['middleware', 'createMiddleware', 'factory', 'create', 'handler', 'wrapper', 'plugin'])
// How many wrappers deep describe() looks (`catchAsync(asyncHandler(fn))`).
const MAX_WRAPPER_DEPTH = 4
// The most other names a function is known by, kept beside its name.
const MAX_ALIASES = 6
const NO_ALIASES = Object.freeze([])

/** The other names, without the name itself, duplicates or empties; bounded in count and length. */
function aliasList (name, candidates) {
  const aliases = []
  for (const candidate of candidates) {
    if (typeof candidate !== 'string' || candidate === '' || candidate === name) continue
    const alias = bounded(candidate)
    if (!aliases.includes(alias) && aliases.length < MAX_ALIASES) aliases.push(alias)
  }
  return aliases.length === 0 ? NO_ALIASES : Object.freeze(aliases)
}

const ASSIGNED_NAME = /(?:^|[^\w$.])((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\s*(?:=|:)\s*$/
const ASSIGNED_KEY = /\[\s*(['"`])([^'"`]+)\1\s*\]\s*=\s*$/
const FUNCTION_KEYWORDS = /\s*(?:async\s*)?(?:function\s*\*?\s*)?$/

/**
 * The name a stack trace would show for an anonymous function starting at (line, column): the target
 * of the assignment or object key in front of it, e.g. `exp.viewDocument = function` -> `viewDocument`.
 */
function nameFromSource (lines, lineNumber, columnNumber, file) {
  let before = lines[lineNumber].slice(0, columnNumber).replace(FUNCTION_KEYWORDS, '')
  if (lineNumber > 0 && before.trim() === '') before = lines[lineNumber - 1] + '\n' + before
  before = before.slice(-300)
  const key = ASSIGNED_KEY.exec(before)
  if (key) return key[2]
  const assigned = ASSIGNED_NAME.exec(before)
  if (!assigned) return null
  const target = assigned[1]
  if (target === 'module.exports' || target === 'exports') {
    return file ? `${path.basename(file)} (module.exports)` : 'module.exports'
  }
  return target.slice(target.lastIndexOf('.') + 1)
}

// How far wrappedUserFunction() looks into a framework's closures.
const MAX_WRAPPER_FUNCTIONS = 24
// Files of frameworks whose functions wrap the user's (the pipeline of a NestJS route or middleware), and the
// variables of their closures that lead to it: Nest's route proxy calls `targetCallback`, the route's handler
// closes over the controller `instance` and its method (`callback`); a middleware is `use` of an instance bound
// (`targetCallback`), reached through `handler`, `middlewareFunction` and `proxy`, or the user's `middleware`
// function that a functional middleware's class calls. Nothing else of the closures (the modules they import) is
// looked at.
const FRAMEWORK_FILE = /[\\/]node_modules[\\/]@nestjs[\\/]core[\\/]/
const WRAPPED_VARIABLES = new Set(['targetCallback', 'proxy', 'middlewareFunction', 'handler', 'routeHandler', 'middleware'])

function isFrameworkFile (file) {
  return typeof file === 'string' && FRAMEWORK_FILE.test(file)
}

/** A function's own name; not the `bound x` V8 gives a bound function. */
function ownName (fn) {
  const name = fn.name
  return typeof name === 'string' && name !== '' && !name.startsWith('bound ') ? name : null
}

/** The class of an object as the inspector shows it, or null for a plain object. */
function instanceClass (remote) {
  const name = remote.className
  return typeof name === 'string' && name !== 'Object' && name !== '' ? name : null
}

// express-validator's chain functions (`body('email').isEmail()`) carry their builder: the fields and locations
// they check. Its functions for each location, by the name the builder gives the location.
const VALIDATOR_LOCATIONS = { body: 'body', params: 'param', query: 'query', cookies: 'cookie', headers: 'header' }

/** What a library says a middleware function is, where it says it (express-validator: `body('email')`). */
function libraryLabel (fn) {
  try {
    const builder = fn.builder
    if (builder === null || typeof builder !== 'object' || typeof fn.run !== 'function') return null
    const { fields, locations } = builder
    if (!Array.isArray(fields) || !Array.isArray(locations) || fields.length === 0) return null
    const where = locations.length === 1 && VALIDATOR_LOCATIONS[locations[0]] ? VALIDATOR_LOCATIONS[locations[0]] : 'check'
    const quoted = fields.map((field) => `'${String(field)}'`)
    return `${where}(${quoted.length === 1 ? quoted[0] : `[${quoted.join(', ')}]`})`
  } catch {
    return null
  }
}

/** The npm package a file belongs to (`express-rate-limit`, `@nestjs/platform-express`), or null. */
function packageOf (file) {
  const parts = file.split(/[\\/]/)
  const at = parts.lastIndexOf('node_modules')
  if (at === -1 || at + 1 >= parts.length) return null
  const name = parts[at + 1]
  if (!name.startsWith('@')) return name
  return at + 2 < parts.length ? `${name}/${parts[at + 2]}` : null
}

/**
 * The name of a function that has none: its package's when it comes from one (`express-rate-limit`), else
 * `<anonymous> routes/db.js:42`, relative to the working directory when below it.
 */
function anonymousName (info) {
  if (!info.file) return '<anonymous>'
  const fromPackage = packageOf(info.file)
  if (fromPackage !== null) return fromPackage
  const relative = path.relative(process.cwd(), info.file)
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : info.file
  return `<anonymous> ${shown}:${info.line}`
}

module.exports = {
  LayerInfo,
  layerInfo,
  paramInfo,
  classInfo,
  fixedInfo,
  containerInfo,
  hasPendingNames,
  resolveNames,
  FunctionNamer,
  nameFromSource,
  anonymousName,
  packageOf,
  libraryLabel
}
