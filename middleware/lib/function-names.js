'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const { reportInternalError } = require('./internal-errors')

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
  }
}

// LayerInfos waiting for resolveNames().
const pending = new Set()
// fn -> { name, file, line }: a function used by several layers (or apps) is looked up once.
const described = new WeakMap()
// scriptId -> url, for every script seen in a coverage report (script ids are stable for the process's life).
const scriptUrls = new Map()

/** A layer running `fn`, resolved by the next resolveNames(). `fixedName`: a param callback's parameter. */
function layerInfo (kind, fn, fixedName = null) {
  const info = new LayerInfo(kind, fn, fixedName)
  const known = described.get(fn)
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
  if (info.name === null) info.name = found.name || anonymousName(found)
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

  /** `{ name, file, line }` of `fn`; file and line null when unknown. */
  describe (fn) {
    const info = { name: fn.name || null, file: null, line: null }
    if (!this.open()) return info
    try {
      const location = this.internalProperties(fn).find((p) => p.name === '[[FunctionLocation]]')
      if (location) {
        const { scriptId, lineNumber, columnNumber } = location.value.value
        info.file = toFilePath(this.scriptUrl(scriptId))
        info.line = lineNumber + 1
        if (!info.name) {
          const lines = this.sourceLines(scriptId, info.file, lineNumber, columnNumber, fn)
          if (lines !== null) info.name = nameFromSource(lines, lineNumber, columnNumber, info.file)
        }
      }
    } catch (err) {
      reportInternalError('function location', err)
    }
    return info
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
      const scopes = this.internalProperties(fn).find((p) => p.name === '[[Scopes]]')
      if (!scopes) return undefined
      const { result: scopeList } = this.post('Runtime.getProperties', { objectId: scopes.value.objectId, ownProperties: true })
      for (const scope of scopeList) {
        if (!scope.value || !/^Closure/.test(scope.value.description)) continue
        const { result: variables } = this.post('Runtime.getProperties', { objectId: scope.value.objectId, ownProperties: true })
        const variable = variables.find((v) => v.name === variableName)
        if (variable && variable.value && variable.value.objectId) {
          this.post('Runtime.callFunctionOn', {
            objectId: variable.value.objectId,
            functionDeclaration: `function () { globalThis.${TEMP_GLOBAL} = this }`
          })
          const value = globalThis[TEMP_GLOBAL]
          delete globalThis[TEMP_GLOBAL]
          return value
        }
      }
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

/** `<anonymous> routes/db.js:42`, relative to the working directory when below it. */
function anonymousName (info) {
  if (!info.file) return '<anonymous>'
  const relative = path.relative(process.cwd(), info.file)
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : info.file
  return `<anonymous> ${shown}:${info.line}`
}

module.exports = {
  LayerInfo,
  layerInfo,
  containerInfo,
  hasPendingNames,
  resolveNames,
  FunctionLookup,
  holdsFunction,
  nameFromSource,
  anonymousName
}
