'use strict'

const path = require('node:path')
const { fileURLToPath } = require('node:url')
const { reportInternalError } = require('./internal-errors')

// Where a function was defined, and the name a reader recognises, found once per function.
//
// `exp.viewDocument = function (req, res) {}` has an empty `.name` (the spec only names functions
// assigned to plain identifiers and object-literal keys), yet a stack trace shows `viewDocument`.
// The inspector gives the function's [[FunctionLocation]] (script id, line, column) and the script's
// source; the name is the assignment target in front of the function. A same-thread inspector session
// answers synchronously, so this runs inline, once, while the app is instrumented.

let inspector = null
try {
  inspector = require('node:inspector')
} catch {
  // Node built without the inspector: names fall back to `.name` and locations are unknown.
}

const TEMP_GLOBAL = '__nodebench_inspect_target__'
const cache = new WeakMap()

/** A batch of look-ups sharing one inspector session (Debugger.enable once per batch). */
class InspectorBatch {
  constructor () {
    this.session = null
    this.scriptUrls = new Map()
    this.scriptLines = new Map()
  }

  open () {
    if (this.session !== null || inspector === null) return this.session !== null
    try {
      const session = new inspector.Session()
      session.connect()
      session.on('Debugger.scriptParsed', (message) => {
        this.scriptUrls.set(message.params.scriptId, message.params.url)
      })
      this.session = session
      this.post('Debugger.enable')
      return true
    } catch (err) {
      reportInternalError('inspector session', err)
      this.close()
      return false
    }
  }

  close () {
    if (this.session === null) return
    try {
      this.post('Runtime.releaseObjectGroup', { objectGroup: 'nodebench' })
      this.post('Debugger.disable')
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
      const { result } = this.post('Runtime.evaluate', { expression: `globalThis.${TEMP_GLOBAL}`, objectGroup: 'nodebench' })
      return result.objectId
    } finally {
      delete globalThis[TEMP_GLOBAL]
    }
  }

  internalProperties (fn) {
    const { internalProperties = [] } = this.post('Runtime.getProperties', { objectId: this.objectId(fn), ownProperties: true })
    return internalProperties
  }

  lines (scriptId) {
    let lines = this.scriptLines.get(scriptId)
    if (lines === undefined) {
      const { scriptSource } = this.post('Debugger.getScriptSource', { scriptId })
      lines = scriptSource.split('\n')
      this.scriptLines.set(scriptId, lines)
    }
    return lines
  }

  describe (fn) {
    let info = cache.get(fn)
    if (info !== undefined) return info
    info = { name: fn.name || null, file: null, line: null }
    if (this.open()) {
      try {
        const location = this.internalProperties(fn).find((p) => p.name === '[[FunctionLocation]]')
        if (location) {
          const { scriptId, lineNumber, columnNumber } = location.value.value
          info.file = toFilePath(this.scriptUrls.get(scriptId))
          info.line = lineNumber + 1
          if (!info.name) info.name = nameFromSource(this.lines(scriptId), lineNumber, columnNumber, info.file)
        }
      } catch (err) {
        reportInternalError('function location', err)
      }
    }
    cache.set(fn, info)
    return info
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

module.exports = { InspectorBatch, nameFromSource, anonymousName }
