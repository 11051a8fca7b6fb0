'use strict'

const path = require('path')

// The names an app knows its values by: what its own CommonJS modules export. A controller module
// `controllers/user.controller.js` exporting `{ getUsers, createUser }` makes `userController.getUsers` the name
// of whatever `getUsers` holds (a handler wrapped by catchAsync, a validation schema); a module exporting one
// function names it after the module (`catchAsync`). Read from require.cache once per naming batch, and only
// when a wrapper or a factory needs it; packages' modules (node_modules) and nodebench's own are left out.
// ESM modules are not in require.cache: their names come from the source (`export const getUsers = ...`).

// nodebench's own modules: its lib/ and its index.js.
const OWN_DIRECTORY = __dirname
const OWN_INDEX = path.join(path.dirname(__dirname), 'index.js')
// Bounds on what is read: modules, keys of one module's exports.
const MAX_MODULES = 5000
const MAX_KEYS = 500

class AppExports {
  constructor () {
    // value -> [{ name, key, file }] in the order the app loaded its modules.
    this.names = null
  }

  build () {
    this.names = new Map()
    let modules = 0
    for (const file of Object.keys(require.cache)) {
      if (modules++ >= MAX_MODULES) break
      if (!isAppFile(file)) continue
      try {
        this.addModule(file, require.cache[file].exports)
      } catch {
        // An export that cannot be read (a Proxy that throws) names nothing.
      }
    }
  }

  addModule (file, exported) {
    if (exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) return
    const moduleName = moduleNameOf(file)
    if (typeof exported === 'function') this.add(exported, { name: moduleName, key: moduleName, file })
    const keys = Object.keys(exported)
    for (let i = 0; i < keys.length && i < MAX_KEYS; i++) {
      const key = keys[i]
      if (key === 'default' || key === '__esModule') continue
      // Data properties only: reading a getter would run the app's code.
      const descriptor = Object.getOwnPropertyDescriptor(exported, key)
      if (descriptor === undefined || !('value' in descriptor)) continue
      const value = descriptor.value
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue
      this.add(value, { name: `${moduleName}.${key}`, key, file })
    }
  }

  add (value, entry) {
    const known = this.names.get(value)
    if (known === undefined) this.names.set(value, [entry])
    else if (known.length < 4) known.push(entry)
  }

  /**
   * `{ name, key }` the app exports `value` as, or null: the export of the module in `preferredFile` when
   * there is one (the controller module a wrapped handler is written in), else the first module loaded.
   */
  exportOf (value, preferredFile = null) {
    if (this.names === null) this.build()
    const entries = this.names.get(value)
    if (entries === undefined) return null
    return entries.find((entry) => entry.file === preferredFile) || entries[0]
  }
}

function isAppFile (file) {
  return path.isAbsolute(file) && !/[\\/]node_modules[\\/]/.test(file) &&
    !file.startsWith(OWN_DIRECTORY + path.sep) && file !== OWN_INDEX
}

/** `user.controller.js` -> `userController`, `rate-limiter.js` -> `rateLimiter`, `users/index.js` -> `users`. */
function moduleNameOf (file) {
  let base = path.basename(file).replace(/\.[cm]?[jt]sx?$/, '')
  if (base === 'index') base = path.basename(path.dirname(file))
  const words = base.split(/[^A-Za-z0-9_$]+/).filter(Boolean)
  if (words.length === 0) return base
  return words[0] + words.slice(1).map((word) => word[0].toUpperCase() + word.slice(1)).join('')
}

module.exports = { AppExports, moduleNameOf }
