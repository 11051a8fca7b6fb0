'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const { reportInternalError } = require('./internal-errors')
const { unwrapFunction } = require('./foreign-wrappers')

// Where a timed function was defined, and the name a reader recognises, resolved off the request path.
//
// Instrumenting an app (on its first request) only records which function each layer runs: a LayerInfo with
// the layer's kind and, for a param callback, the parameter's name. Names, files and lines are filled in by
// resolveNames() when something first needs them: a breakdown snapshot, a cluster merge, a span export, a
// Server-Timing header. One call resolves every pending LayerInfo, so an app pays once, not per request.
//
// `exp.viewDocument = function (req, res) {}` has an empty `.name` (the spec only names functions assigned
// to plain identifiers and object-literal keys), yet a stack trace shows `viewDocument`. The inspector gives
// the function's [[FunctionLocation]] (script id, line, column); the name is the assignment target in front
// of the function in the script's source. A same-thread inspector session answers synchronously.
//
// What it costs, measured on a 2-core VM (Node.js 20, 22 and 24): a session and a function's location,
// 0.1-0.4 ms per function (Runtime domain only). Script URLs come from one Profiler.getBestEffortCoverage
// (5-15 ms with a small heap, ~50-80 ms at 280 MB), and sources from the files themselves, checked against the
// function's own text. Debugger.enable, which reports every script and took 60-120 ms (and more on a larger
// heap), is only the fallback for code whose file is not its source (transpiled, eval'd).

let inspector = null
try {
  inspector = require('node:inspector')
} catch {
  // Node built without the inspector: names fall back to `.name` and locations are unknown.
}

const TEMP_GLOBAL = '__nodebench_inspect_target__'
const OBJECT_GROUP = 'nodebench'

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
    // The bytes of this layer's spans, made by the OTLP encoder at its first sampled span (otlp-encoder.js).
    this.spanTemplate = null
  }
}

// A unit named after the class of the object its function is bound to (a NestJS exception filter's `catch`).
const NAMED_BY_CLASS = 'class'

// LayerInfos waiting for resolveNames().
const pending = new Set()
// fn -> { name, file, line }: a function used by several layers (or apps) is looked up once.
const described = new WeakMap()
// scriptId -> url, for every script seen in a coverage report (script ids are stable for the process's life).
const scriptUrls = new Map()

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
  } else if (info.name === null) {
    const byClass = info.namedBy === NAMED_BY_CLASS ? found.className : null
    info.name = byClass || found.name || anonymousName(found)
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
  try {
    for (const info of infos) {
      let found = described.get(info.fn)
      if (found === undefined) {
        found = lookup.describe(info.fn)
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

/** One inspector session for a batch of look-ups; opened on first use, closed by close(). */
class FunctionLookup {
  constructor () {
    this.session = null
    this.failed = false
    this.debuggerEnabled = false
    this.debuggerUrls = null
    this.coverageRead = false
    this.files = new Map()
  }

  open () {
    if (this.session !== null) return true
    if (this.failed || inspector === null) return false
    try {
      const session = new inspector.Session()
      session.connect()
      this.session = session
      return true
    } catch (err) {
      this.failed = true
      reportInternalError('inspector session', err)
      return false
    }
  }

  close () {
    if (this.session === null) return
    try {
      this.post('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP })
      if (this.debuggerEnabled) this.post('Debugger.disable')
      this.session.disconnect()
    } catch (err) {
      reportInternalError('inspector session', err)
    }
    this.session = null
    delete globalThis[TEMP_GLOBAL]
  }

  /** Same-thread sessions call back before post() returns; this turns that into a return value. */
  post (method, params) {
    let error = null
    let result
    let answered = false
    this.session.post(method, params, (err, value) => {
      answered = true
      error = err
      result = value
    })
    if (!answered) throw new Error(`inspector did not answer ${method} synchronously`)
    if (error) throw error
    return result
  }

  objectId (value) {
    globalThis[TEMP_GLOBAL] = value
    try {
      const { result } = this.post('Runtime.evaluate', { expression: `globalThis.${TEMP_GLOBAL}`, objectGroup: OBJECT_GROUP })
      return result.objectId
    } finally {
      delete globalThis[TEMP_GLOBAL]
    }
  }

  internalProperties (fn) {
    const { internalProperties = [] } = this.post('Runtime.getProperties', { objectId: this.objectId(fn), ownProperties: true })
    return internalProperties
  }

  /**
   * `{ name, file, line, className }` of `fn`; file and line null when unknown. The name is the function's own,
   * else what its library says it is (an express-validator chain: `body('email')`), else the one a stack trace
   * would show. A bound function is described by its target, named `Class.method` after the object it is
   * bound to (`className`: that class). A function of a framework that wraps the user's (a NestJS route or
   * middleware) is described by the user's function it calls.
   */
  describe (fn) {
    const info = { name: libraryLabel(fn) || ownName(fn), file: null, line: null }
    if (!this.open()) return info
    try {
      const internals = this.internalProperties(fn)
      const target = internals.find((p) => p.name === '[[TargetFunction]]')
      if (target !== undefined) return this.describeBound(fn, internals, target)
      const location = this.locationOf(internals)
      if (location === null) return info
      info.file = location.file
      info.line = location.line
      if (isFrameworkFile(info.file)) {
        const wrapped = this.wrappedUserFunction(fn)
        if (wrapped !== null) return wrapped
      }
      if (!info.name) {
        const lines = this.sourceLines(location.scriptId, info.file, location.lineNumber, location.columnNumber, fn)
        if (lines !== null) info.name = nameFromSource(lines, location.lineNumber, location.columnNumber, info.file)
      }
    } catch (err) {
      reportInternalError('function location', err)
    }
    return info
  }

  /** The file `fn` was defined in, or null. */
  fileOf (fn) {
    if (!this.open()) return null
    try {
      const location = this.locationOf(this.internalProperties(fn))
      return location === null ? null : location.file
    } catch (err) {
      reportInternalError('function location', err)
      return null
    }
  }

  /** `{ scriptId, lineNumber, columnNumber, file, line }` from a function's internal properties, or null. */
  locationOf (internals) {
    const location = internals.find((p) => p.name === '[[FunctionLocation]]')
    if (!location) return null
    const { scriptId, lineNumber, columnNumber } = location.value.value
    return { scriptId, lineNumber, columnNumber, file: toFilePath(this.scriptUrl(scriptId)), line: lineNumber + 1 }
  }

  /** A bound function: its target's location and name, after the class of what it is bound to when it has one. */
  describeBound (fn, internals, target) {
    const targetFn = this.remoteValue(target.value.objectId)
    const described = typeof targetFn === 'function' ? this.describe(targetFn) : { name: null, file: null, line: null }
    const boundThis = internals.find((p) => p.name === '[[BoundThis]]')
    const className = boundThis && boundThis.value.type === 'object' ? instanceClass(boundThis.value) : null
    const method = described.name || null
    return {
      name: className !== null && method !== null ? `${className}.${method}` : method || className || ownName(fn),
      file: described.file,
      line: described.line,
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
    const queue = [fn]
    const seen = new Set(queue)
    for (let visited = 0; queue.length > 0 && visited < MAX_WRAPPER_FUNCTIONS; visited++) {
      const variables = this.closureVariables(queue.shift())
      const instance = variables.get('instance')
      const callback = variables.get('callback')
      if (instance !== undefined && instance.type === 'object' && callback !== undefined && callback.type === 'function') {
        const method = this.remoteValue(callback.objectId)
        const described = this.describe(method)
        return { ...described, name: `${instanceClass(instance)}.${method.name || described.name}` }
      }
      for (const [name, variable] of variables) {
        if (variable.type !== 'function' || !WRAPPED_VARIABLES.has(name)) continue
        const value = this.remoteValue(variable.objectId)
        if (typeof value !== 'function' || seen.has(value)) continue
        seen.add(value)
        const internals = this.internalProperties(value)
        const target = internals.find((p) => p.name === '[[TargetFunction]]')
        if (target !== undefined) {
          const bound = this.describeBound(value, internals, target)
          // A Nest middleware: its class's `use`, bound to the instance Nest made.
          if (bound.file !== null && !isFrameworkFile(bound.file)) return { ...bound, name: bound.className || bound.name, kind: 'middleware' }
          const targetFn = this.remoteValue(target.value.objectId)
          if (typeof targetFn === 'function' && !seen.has(targetFn)) queue.push(targetFn)
          continue
        }
        const location = this.locationOf(internals)
        if (location === null || !path.isAbsolute(location.file || '')) continue
        if (isFrameworkFile(location.file)) queue.push(value)
        else if (name === 'middleware') return { ...this.describe(value), kind: 'middleware' }
        else return this.describe(value)
      }
    }
    return null
  }

  /** name -> remote object of the variables `fn` closes over (its closure and block scopes, innermost first). */
  closureVariables (fn) {
    const variables = new Map()
    const scopes = this.internalProperties(fn).find((p) => p.name === '[[Scopes]]')
    if (!scopes) return variables
    const { result: scopeList } = this.post('Runtime.getProperties', { objectId: scopes.value.objectId, ownProperties: true })
    for (const scope of scopeList) {
      if (!scope.value || !/^(Closure|Block)/.test(scope.value.description)) continue
      const { result } = this.post('Runtime.getProperties', { objectId: scope.value.objectId, ownProperties: true })
      for (const variable of result) {
        if (!variable.value || !variable.value.objectId || variables.has(variable.name)) continue
        variables.set(variable.name, variable.value)
      }
    }
    return variables
  }

  /** The JavaScript value of a remote object of this session. */
  remoteValue (objectId) {
    this.post('Runtime.callFunctionOn', { objectId, functionDeclaration: `function () { globalThis.${TEMP_GLOBAL} = this }` })
    const value = globalThis[TEMP_GLOBAL]
    delete globalThis[TEMP_GLOBAL]
    return value
  }

  /** The script's URL: from a coverage report (every script with compiled functions), else the debugger's list. */
  scriptUrl (scriptId) {
    if (!scriptUrls.has(scriptId) && !this.coverageRead) {
      this.coverageRead = true
      try {
        for (const script of this.post('Profiler.getBestEffortCoverage').result) scriptUrls.set(script.scriptId, script.url)
      } catch (err) {
        reportInternalError('script urls', err)
      }
    }
    if (scriptUrls.has(scriptId)) return scriptUrls.get(scriptId)
    return this.enableDebugger().get(scriptId)
  }

  /**
   * The script's source, as lines. The file's text when it is what V8 compiled, as it is for the app's own
   * CommonJS and ESM files (checked: the function's own text is in the file at its location); otherwise the
   * debugger's copy of the script (transpiled or eval'd code), which needs Debugger.enable.
   */
  sourceLines (scriptId, file, lineNumber, columnNumber, fn) {
    if (file !== null && path.isAbsolute(file)) {
      const source = this.readFile(file)
      if (source !== null &&
        holdsFunction(source, lineNumber, columnNumber, Function.prototype.toString.call(fn))) return source.lines
    }
    this.enableDebugger()
    const { scriptSource } = this.post('Debugger.getScriptSource', { scriptId })
    return scriptSource.split('\n')
  }

  /** `{ text, lines }` of a file, or null when it cannot be read. */
  readFile (file) {
    if (!this.files.has(file)) {
      let source = null
      try {
        // Node strips a byte-order mark before compiling; positions count from after it.
        const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '')
        source = { text, lines: text.split('\n') }
      } catch {}
      this.files.set(file, source)
    }
    return this.files.get(file)
  }

  /** Debugger.enable once per lookup: scriptId -> url of every script it reports. */
  enableDebugger () {
    if (this.debuggerUrls === null) {
      const urls = new Map()
      this.session.on('Debugger.scriptParsed', (message) => urls.set(message.params.scriptId, message.params.url))
      this.post('Debugger.enable')
      this.debuggerEnabled = true
      this.debuggerUrls = urls
    }
    return this.debuggerUrls
  }

  /** The value of a variable closed over by `fn` (e.g. the sub-app inside Express's `mounted_app`). */
  closureValue (fn, variableName) {
    if (!this.open()) return undefined
    try {
      const variable = this.closureVariables(fn).get(variableName)
      if (variable !== undefined) return this.remoteValue(variable.objectId)
    } catch (err) {
      reportInternalError('closure look-up', err)
    }
    return undefined
  }
}

/**
 * Whether a file's `{ text, lines }` hold the function whose text is `functionText` around (line, column):
 * V8's location of a function is where its parameters start; its text begins at or before that (`function`,
 * `async`, a method's name) and runs past it.
 */
function holdsFunction ({ text, lines }, lineNumber, columnNumber, functionText) {
  if (lineNumber >= lines.length) return false
  let offset = columnNumber
  for (let i = 0; i < lineNumber; i++) offset += lines[i].length + 1
  const start = text.lastIndexOf(functionText, offset)
  return start !== -1 && offset < start + functionText.length
}

function toFilePath (url) {
  if (!url) return null
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url)
    } catch {
      return url
    }
  }
  return url
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
  FunctionLookup,
  holdsFunction,
  nameFromSource,
  anonymousName,
  packageOf,
  libraryLabel
}
