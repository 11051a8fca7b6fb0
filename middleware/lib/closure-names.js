'use strict'

const path = require('path')
const { moduleNameOf } = require('./app-exports')

// Names for functions made by other functions, read from the closures V8 keeps (function-lookup.js):
//
// - A wrapper's product is named by what it wraps. `catchAsync = (fn) => (req, res, next) => ...`,
//   express-async-handler's `asyncUtil(fn)`, express-async-errors' `wrap(fn)`, express-rate-limit's
//   `handleAsyncErrors(fn)`: a closure made by a function whose first parameter is a function it keeps. It is
//   named by the name the app knows it by (the export it came from, `userController.getUsers`, or the variable
//   it is assigned to, `const getUsers = catchAsync(...)`), else by the wrapped function's own name, else by
//   where that is defined; its file and line are the wrapped function's.
// - A factory's product is named by its factory and the factory's short, stable arguments: `auth('getUsers')`,
//   `validate(userValidation.getUsers)`, `authenticate('jwt')` (passport's, which `passport.session()` calls as
//   `authenticate('session')`), `rateLimit`; or by the export the app keeps it in (`rateLimiter.authLimiter`).
//   The factory is the function whose call made the closure's innermost scope (V8 names the scope after it);
//   its parameters are read from its source. In the app's own code, only a closure its factory returns counts
//   (`=> (req, res, next) =>`, `return function`), not one a setup function passes to app.use; a wrapper's
//   product may be kept in a variable first (`const handler = (req, res, next) => ...; return handler`).
// - An anonymous function of the app's that only calls another middleware (`(req, res, next) => { ...
//   lusca.csrf()(req, res, next) }`) is named after what it calls.

// The longest argument shown in a factory's name, the most arguments, and the longest name.
const MAX_ARGUMENT = 40
const MAX_ARGUMENTS = 3
const MAX_NAME = 120

/**
 * `{ owner, parameters, variables, returned }` of the function whose call made `fn`'s innermost closure, or
 * null when there is none (a module's own function). `returned`: whether `fn` is what it returns (always taken
 * as so for a package's closure).
 */
function originOf (lookup, fn, location) {
  const scope = lookup.closureScopes(fn, 1)[0]
  if (scope === undefined || scope.kind !== 'Closure') return null
  if (scope.owner === null && isPackageFile(location.file)) return null
  const lines = lookup.sourceLines(location, fn)
  const offset = offsetOf(lines, location.lineNumber, location.columnNumber)
  const text = lines.join('\n')
  const owner = scope.owner !== null ? scope.owner : keptName(text, offset, fn)
  if (owner === null) return null
  // In the app's own code, a factory returns its product; a wrapper is told by its call of what it keeps.
  const returned = isPackageFile(location.file) || isReturned(text, offset)
  const parameters = factoryParameters(text, offset, owner)
  return { owner, parameters, variables: scope.variables, returned }
}

// esbuild's keepNames, which tsx (and tsup, vite-node) run the app's TypeScript with, writes `const stamp = (o) =>
// (req, res, next) => ...` as `const stamp=__name(o=>(req,res,next)=>{...},"stamp")`: the factory is an argument of
// its helper, so V8 names no function for the product's closure scope. Its name is the string the helper gets right
// after the factory's text, which ends where the product's does (or a few closing brackets later: `return`).
const KEPT_NAME_HELPER = /\b__name\s*=\s*\(/
const KEPT_NAME_TAIL = /^[\s;)}]{0,8},\s*"([A-Za-z_$][\w$]*)"\s*\)/

/** The name esbuild's keepNames gives the function around `fn` (at `offset` of the script's `text`), or null. */
function keptName (text, offset, fn) {
  if (!KEPT_NAME_HELPER.test(text)) return null
  const own = Function.prototype.toString.call(fn)
  const start = text.lastIndexOf(own, offset)
  if (start === -1 || offset >= start + own.length) return null
  // `__name(product, "handler")`: that names the product itself, not what made it.
  if (/__name\(\s*$/.test(text.slice(Math.max(0, start - 20), start)) || text.lastIndexOf('__name(', start) === -1) return null
  const end = start + own.length
  const tail = KEPT_NAME_TAIL.exec(text.slice(end, end + 200))
  return tail === null ? null : tail[1]
}

/**
 * The wrapped function when `origin`'s factory is a wrapper, or null: its first parameter is a function the
 * product keeps and calls with the product's own arguments (`fn(req, res, next)`, `fn(...args)`,
 * `fn.apply(this, args)`, `fn.apply(this, arguments)`). multer's `makeMiddleware(setup)` keeps a function it
 * calls otherwise: no wrapper.
 */
function wrappedFunction (lookup, fn, origin) {
  if (origin.parameters === null || origin.parameters.length === 0) return null
  const wrapped = origin.parameters[0].name
  const first = origin.variables.get(wrapped)
  if (first === undefined || first.type !== 'function') return null
  const text = Function.prototype.toString.call(fn)
  const own = parameterList(text, FUNCTION_PARAMETERS, ARROW_PARAMETER)
  if (own === null || own.length === 0) return null
  const callee = escapeRegExp(wrapped)
  const argument = `(?:${escapeRegExp(own[0].name)}|arguments)`
  const calls = new RegExp(`(?:^|[^\\w$.])${callee}\\s*(?:\\.(?:call|apply)\\s*\\(\\s*[\\w$]+\\s*,|\\()\\s*(?:\\.\\.\\.)?${argument}\\b`)
  if (!calls.test(text)) return null
  const value = lookup.remoteValue(first.objectId)
  return typeof value === 'function' ? value : null
}

/**
 * The name of a factory's product: the factory's name and its short, stable arguments (strings, numbers,
 * booleans, arrays of them, values the app exports, named functions); arguments that are none of these (an
 * options object) are left out, and a factory shown with no arguments is its bare name (`rateLimit`).
 */
function factoryCall (lookup, origin, exportsIndex) {
  const shown = []
  for (const parameter of origin.parameters || []) {
    if (shown.length >= MAX_ARGUMENTS) break
    const variable = origin.variables.get(parameter.name)
    if (variable === undefined) continue
    const text = argumentText(lookup, variable, parameter.rest, exportsIndex)
    if (text !== null) shown.push(text)
  }
  return bounded(shown.length === 0 ? origin.owner : `${origin.owner}(${shown.join(', ')})`)
}

function argumentText (lookup, remote, rest, exportsIndex) {
  if (remote.type === 'string') return literalText(remote.value)
  if (remote.type === 'number' || remote.type === 'boolean') return String(remote.value)
  if (!remote.objectId) return null
  const value = lookup.remoteValue(remote.objectId)
  const exported = exportsIndex.exportOf(value)
  if (exported !== null) return exported.name
  if (typeof value === 'function') return typeof value.name === 'string' && /^[\w$]+$/.test(value.name) ? value.name : null
  if (Array.isArray(value) && value.length <= MAX_ARGUMENTS) {
    const items = value.map(literalText)
    if (items.includes(null)) return null
    // A rest parameter's items are the call's arguments; a factory that makes an array of one argument
    // (passport's `name = [name]`) was most likely called with that argument.
    const text = rest || items.length === 1 ? items.join(', ') : `[${items.join(', ')}]`
    return text.length <= MAX_ARGUMENT ? text : null
  }
  return null
}

/**
 * A literal as the app wrote it, or null: long strings and absolute paths (`express.static(PUBLIC)`: another
 * checkout, another name) are not shown.
 */
function literalText (value) {
  if (typeof value === 'string') return value.length <= MAX_ARGUMENT && !path.isAbsolute(value) ? quote(value) : null
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

function quote (value) {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}'`
}

/**
 * The variable (or object key) a call's result is assigned to, for a function written as that call's argument:
 * `getUsers` for the `async (req, res) =>` of `const getUsers = catchAsync(async (req, res) => {`, in the app's
 * own code (a package's variables are not names the app knows); an ESM export
 * (`export const getUsers = ...`) is named after its module too, as a CommonJS export is (`userController.getUsers`).
 */
function callSiteName (lookup, fn, location) {
  if (isPackageFile(location.file)) return null
  const lines = lookup.sourceLines(location, fn)
  const before = lines.slice(Math.max(0, location.lineNumber - 2), location.lineNumber).join('\n') + '\n' +
    lines[location.lineNumber].slice(0, location.columnNumber).replace(FUNCTION_HEAD, '')
  const assigned = CALL_ASSIGNED.exec(before.slice(-300))
  if (assigned === null) return null
  const target = assigned[2]
  const name = target.slice(target.lastIndexOf('.') + 1)
  if (name === 'exports') return location.file ? moduleNameOf(location.file) : null
  return assigned[1] && location.file ? `${moduleNameOf(location.file)}.${name}` : name
}

/**
 * What an anonymous middleware calls with its own request, response and next: `lusca.csrf()` for
 * `(req, res, next) => { ... lusca.csrf()(req, res, next) }`. Null when it calls no such function.
 */
function calledMiddleware (fn) {
  const text = Function.prototype.toString.call(fn)
  const parameters = parameterList(text, FUNCTION_PARAMETERS, ARROW_PARAMETER)
  if (parameters === null || parameters.length < 2 || parameters.some((p) => p.name === null)) return null
  const [req, res, next] = parameters.map((p) => escapeRegExp(p.name))
  const call = new RegExp(`([A-Za-z_$][\\w$.]*(?:\\([^()]{0,${MAX_ARGUMENT}}\\))?)\\s*\\(\\s*${req}\\s*,\\s*${res}\\s*(?:,\\s*${next || '[\\w$]+'}\\s*)?\\)`)
  const found = call.exec(text.slice(text.indexOf(')') + 1))
  return found === null ? null : bounded(found[1])
}

// A function's parameters in its own text: `function name (a, b)`, `async (a, b) =>`, `a =>`, a method `name (a)`.
const FUNCTION_PARAMETERS = /^(?:async\s*)?(?:function\b[^(]*|[\w$]+\s*)?\(([^)]*)\)/
const ARROW_PARAMETER = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/
// What stands before a function's parameters in its source: `async`, `function name`, `function*`.
const FUNCTION_HEAD = /\s*(?:async\s*)?(?:function\s*\*?\s*[\w$]*\s*)?$/
// `const getUsers = catchAsync(`, `getUsers: asyncHandler(`, `exports.getUsers = catchAsync(wrap(`; and as tsc and
// esbuild call an imported function, `const getUsers=(0,import_catchAsync.catchAsync)(`.
const CALL_ASSIGNED = /(?:^|[^\w$.])(export\s+(?:const|let|var)\s+)?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\s*[=:]\s*(?:await\s+)?(?:(?:[A-Za-z_$][\w$.]*|\(\s*0\s*,\s*[A-Za-z_$][\w$.]*\s*\))\s*\(\s*)+$/

function offsetOf (lines, lineNumber, columnNumber) {
  let offset = columnNumber
  for (let i = 0; i < lineNumber && i < lines.length; i++) offset += lines[i].length + 1
  return offset
}

/** Whether the function at `offset` is what the function around it returns: `=> (req, res) =>`, `return function`. */
function isReturned (text, offset) {
  const before = text.slice(Math.max(0, offset - 200), offset).replace(FUNCTION_HEAD, '')
  return /(?:=>|\breturn)\s*$/.test(before)
}

/**
 * The parameters of the function named `owner` whose text holds `offset`: its nearest declaration before it
 * (`const auth = (...requiredRights) =>`, `function validate (schema) {`, `asyncUtil = fn =>`), as
 * `[{ name, rest }]`; null when it cannot be read (no declaration found, destructured parameters).
 */
function factoryParameters (text, offset, owner) {
  const name = escapeRegExp(owner)
  // A factory esbuild's keepNames kept the name of is declared `stamp=__name(o=>` (keptName above).
  const declarations = [
    new RegExp(`(?:\\bfunction\\s*\\*?\\s*${name}|(?:^|[^\\w$.])${name}\\s*[=:]\\s*(?:__name\\(\\s*)?(?:async\\s*)?(?:function\\b[^(]*)?)\\s*\\(([^)]*)\\)`, 'g'),
    new RegExp(`(?:^|[^\\w$.])${name}\\s*[=:]\\s*(?:__name\\(\\s*)?(?:async\\s+)?([A-Za-z_$][\\w$]*)\\s*=>`, 'g'),
    new RegExp(`(?:^|[\\s;{},])${name}\\s*\\(([^)]*)\\)\\s*\\{`, 'g')
  ]
  const window = text.slice(Math.max(0, offset - 20000), offset)
  let best = null
  for (const declaration of declarations) {
    for (const match of window.matchAll(declaration)) {
      if (best === null || match.index > best.index) best = match
    }
  }
  return best === null ? null : splitParameters(best[1])
}

function parameterList (text, ...patterns) {
  for (const pattern of patterns) {
    const match = pattern.exec(text)
    if (match !== null) return splitParameters(match[1])
  }
  return null
}

/** `a, ...rest, b = 1` -> [{ name: 'a' }, { name: 'rest', rest: true }, { name: 'b' }]; null when destructured. */
function splitParameters (list) {
  const parameters = []
  for (const part of list.split(',')) {
    const trimmed = part.trim()
    if (trimmed === '') continue
    const match = /^(\.\.\.)?\s*([A-Za-z_$][\w$]*)\s*(?:=.*)?$/s.exec(trimmed)
    if (match === null) return null
    parameters.push({ name: match[2], rest: match[1] !== undefined })
  }
  return parameters
}

/** A package's file, or Node.js's own: its closures are its API's products, returned or not. */
function isPackageFile (file) {
  return typeof file === 'string' && (/[\\/]node_modules[\\/]/.test(file) || file.startsWith('node:'))
}

function escapeRegExp (text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function bounded (name) {
  return name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 1)}…`
}

module.exports = {
  originOf, wrappedFunction, factoryCall, callSiteName, calledMiddleware, factoryParameters, splitParameters, bounded
}
