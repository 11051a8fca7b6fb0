'use strict'

// What a dependency call is, as the breakdown, the metrics and the spans name it: system, operation and target
// (`mongodb find users`, `http GET api.example:443`), and what every span of it says (its name, the
// conventions' db.* or http.* and server.* attributes). One frozen object per distinct dependency and server,
// made on its first call, then found by the strings the call has at hand (the connection's address, the Host
// header, the command's name and collection) in nested maps: no key is built per call. Their number is bounded
// (an app calling many hosts or collections), past which calls are described as `other`.

const MAX_DEPENDENCIES = 1000

let count = 0
const known = new Map()

/** The description kept for calls the bound leaves out: attributed, under no name. */
const OTHER = Object.freeze({
  key: 'other other other',
  system: 'other',
  operation: 'other',
  target: 'other',
  spanName: 'other',
  urlBase: null,
  spanKind: 'client',
  attributes: Object.freeze({})
})

/**
 * The description of a call of `source` (a string naming where it comes from: 'mongodb', 'http:') to the
 * server `server` (its address as the call has it), of `operation` on `target` (strings; '' when the server is
 * the target). `describe()` makes it on the first such call: `{ system, operation, target, spanName,
 * attributes, urlBase?, spanKind? }`. `scope`: what else the description depends on (a MongoDB call's database:
 * the same collection in two databases is two namespaces), '' when nothing.
 */
function describeDependency (source, server, operation, target, describe, scope = '') {
  let byServer = known.get(source)
  if (byServer === undefined) known.set(source, (byServer = new Map()))
  let byOperation = byServer.get(server)
  if (byOperation === undefined) byServer.set(server, (byOperation = new Map()))
  let byTarget = byOperation.get(operation)
  if (byTarget === undefined) byOperation.set(operation, (byTarget = new Map()))
  let byScope = byTarget.get(target)
  if (byScope === undefined) byTarget.set(target, (byScope = new Map()))
  let dependency = byScope.get(scope)
  if (dependency === undefined) {
    if (count >= MAX_DEPENDENCIES) return OTHER
    const made = describe()
    dependency = Object.freeze({
      key: `${made.system} ${made.operation} ${made.target}`,
      system: made.system,
      operation: made.operation,
      target: made.target,
      spanName: made.spanName,
      urlBase: made.urlBase ?? null,
      // A call's span: 'client'; work of the app's own (rendering.js) 'internal' (a render) or 'none' (a
      // serialisation: timed in the breakdown, no span).
      spanKind: made.spanKind ?? 'client',
      attributes: Object.freeze(made.attributes)
    })
    byScope.set(scope, dependency)
    count++
  }
  return dependency
}

module.exports = { describeDependency, OTHER, MAX_DEPENDENCIES }
