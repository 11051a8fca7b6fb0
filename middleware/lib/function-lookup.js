'use strict'

const fs = require('fs')
const path = require('path')
const { fileURLToPath } = require('url')
const { reportInternalError } = require('./internal-errors')

// What V8 knows of a function, through a same-thread inspector session: where it is defined
// ([[FunctionLocation]]), what a bound function targets, the variables a closure holds ([[Scopes]]), and the
// source of its script. The naming rules (function-names.js, closure-names.js) decide what to make of it.
//
// What it costs, measured on a 2-core VM (Node.js 20, 22 and 24): a session and a function's location,
// 0.1-0.4 ms per function (Runtime domain only). Script URLs come from one Profiler.getBestEffortCoverage
// (5-15 ms with a small heap, ~50-80 ms at 280 MB), and sources from the files themselves, checked against the
// function's own text. Debugger.enable, which reports every script and took 60-120 ms (and more on a larger
// heap), is only the fallback for code whose file is not its source (transpiled, eval'd).

let inspector = null
try {
  inspector = require('inspector')
} catch {
  // Node built without the inspector: names fall back to `.name` and locations are unknown.
}

const TEMP_GLOBAL = '__nodebench_inspect_target__'
// Values pass between the app and the session through a property of the main context's global, the one
// Runtime.evaluate sees. Under Jest, nodebench's own `globalThis` is the test's sandbox (a vm context): a value put
// there was not found, and every segment of an app under Jest was `<anonymous>` with no file.
const MAIN_GLOBAL = require('vm').runInThisContext('globalThis')
const OBJECT_GROUP = 'nodebench'

// scriptId -> url, for every script seen in a coverage report (script ids are stable for the process's life).
const scriptUrls = new Map()

/** One inspector session for a batch of look-ups; opened on first use, closed by close(). */
class FunctionLookup {
  constructor () {
    this.session = null
    this.mainGlobalId = null
    this.failed = false
    this.debuggerEnabled = false
    this.debuggerUrls = null
    this.coverageRead = false
    this.files = new Map()
    this.ranSources = new Map()
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
    this.mainGlobalId = null
    delete MAIN_GLOBAL[TEMP_GLOBAL]
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
    MAIN_GLOBAL[TEMP_GLOBAL] = value
    try {
      const { result } = this.post('Runtime.evaluate', { expression: `globalThis.${TEMP_GLOBAL}`, objectGroup: OBJECT_GROUP })
      return result.objectId
    } finally {
      delete MAIN_GLOBAL[TEMP_GLOBAL]
    }
  }

  internalProperties (fn) {
    const { internalProperties = [] } = this.post('Runtime.getProperties', { objectId: this.objectId(fn), ownProperties: true })
    return internalProperties
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

  /**
   * The scopes `fn` closes over, innermost first, each `{ kind, owner, variables }` (kind: Closure, Module or
   * Script). `owner` is the name of the function whose call made the scope (`catchAsync` for
   * `(fn) => (req, res, next) => ...`; null for a module's or an unnamed function's); `variables`, name -> remote
   * object of the variables of that scope `fn` uses (V8 keeps no others; a module's scope is listed without
   * its variables). Block scopes belong to the closure scope around them; the global scope is left out.
   * `limit`: the most scopes read.
   */
  closureScopes (fn, limit = Infinity) {
    const scopes = []
    const found = this.internalProperties(fn).find((p) => p.name === '[[Scopes]]')
    if (!found) return scopes
    const { result: scopeList } = this.post('Runtime.getProperties', { objectId: found.value.objectId, ownProperties: true })
    let blocks = new Map()
    for (const scope of scopeList) {
      if (scopes.length >= limit) break
      const description = scope.value ? scope.value.description : ''
      const kind = /^(Closure|Block|Module|Script)/.exec(description)
      if (kind === null) continue
      const variables = new Map()
      // A module's own variables are not a closure's: not listed (an ESM module's scope holds all of them).
      if (kind[1] === 'Module' || kind[1] === 'Script') {
        scopes.push({ kind: kind[1], owner: null, variables })
        blocks = new Map()
        continue
      }
      const { result } = this.post('Runtime.getProperties', { objectId: scope.value.objectId, ownProperties: true })
      for (const variable of result) {
        if (variable.value && !variables.has(variable.name)) variables.set(variable.name, variable.value)
      }
      if (kind[1] === 'Block') {
        for (const [name, value] of variables) if (!blocks.has(name)) blocks.set(name, value)
        continue
      }
      for (const [name, value] of blocks) if (!variables.has(name)) variables.set(name, value)
      blocks = new Map()
      const owner = kind[1] === 'Closure' ? /^Closure \((.+)\)$/.exec(description) : null
      scopes.push({ kind: kind[1], owner: owner === null ? null : owner[1], variables })
    }
    return scopes
  }

  /** name -> remote object of the variables `fn` closes over (its closure and block scopes, innermost first). */
  closureVariables (fn, limit = Infinity) {
    const variables = new Map()
    for (const scope of this.closureScopes(fn, limit)) {
      if (scope.kind !== 'Closure') continue
      for (const [name, value] of scope.variables) {
        if (value.objectId && !variables.has(name)) variables.set(name, value)
      }
    }
    return variables
  }

  /** The JavaScript value of a remote object of this session. */
  remoteValue (objectId) {
    // The main global is handed to the function: in it, `globalThis` is the global of the object's own context.
    if (this.mainGlobalId === null) {
      this.mainGlobalId = this.post('Runtime.evaluate', { expression: 'globalThis', objectGroup: OBJECT_GROUP }).result.objectId
    }
    this.post('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: `function (holder) { holder.${TEMP_GLOBAL} = this }`,
      arguments: [{ objectId: this.mainGlobalId }]
    })
    const value = MAIN_GLOBAL[TEMP_GLOBAL]
    delete MAIN_GLOBAL[TEMP_GLOBAL]
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
  sourceLines ({ scriptId, file, lineNumber, columnNumber }, fn) {
    if (file !== null && path.isAbsolute(file)) {
      const source = this.readFile(file)
      if (source !== null &&
        holdsFunction(source, lineNumber, columnNumber, Function.prototype.toString.call(fn))) return source.lines
    }
    return this.ranSource(scriptId).split('\n')
  }

  /** The code V8 ran for a script: the debugger's copy (Debugger.enable once per lookup), read once per lookup. */
  ranSource (scriptId) {
    let source = this.ranSources.get(scriptId)
    if (source === undefined) {
      this.enableDebugger()
      source = this.post('Debugger.getScriptSource', { scriptId }).scriptSource
      this.ranSources.set(scriptId, source)
    }
    return source
  }

  /** The code V8 ran for a script, or null when the inspector cannot tell. */
  scriptSource (scriptId) {
    if (!this.open()) return null
    try {
      return this.ranSource(scriptId)
    } catch (err) {
      reportInternalError('script source', err)
      return null
    }
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

  /**
   * The value of a variable closed over by `fn` (e.g. the sub-app inside Express's `mounted_app`); `limit`: how
   * many scopes, innermost first, to look in.
   */
  closureValue (fn, variableName, limit = Infinity) {
    if (!this.open()) return undefined
    try {
      const variable = this.closureVariables(fn, limit).get(variableName)
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

module.exports = { FunctionLookup, holdsFunction }
