'use strict'

// What a dependency call is, as the breakdown, the metrics and the spans name it: system, operation and target
// (`mongodb find users`, `http GET api.example:443`), and the span attributes every call of it shares. One
// frozen object per distinct dependency, made on its first call and found again by a string key; their number
// is bounded (an app calling many hosts or collections), past which calls are described as `other`.

const MAX_DEPENDENCIES = 1000

const known = new Map()

/** The description kept for calls the bound leaves out: attributed, under no name. */
const OTHER = Object.freeze({
  key: 'other other other',
  system: 'other',
  operation: 'other',
  target: 'other',
  spanName: 'other',
  attributes: Object.freeze({})
})

/**
 * The description of a dependency on the server at `host`:`port` (either may be null): `key` (system, operation
 * and target: what the breakdown and the metrics tell apart), and `attributes` (its span attributes, the
 * conventions' db.* or http.* and server.*), made only on its first call by `makeAttributes()`.
 */
function describeDependency (system, operation, target, spanName, host, port, makeAttributes) {
  const serverKey = `${system} ${operation} ${target} ${host} ${port}`
  let dependency = known.get(serverKey)
  if (dependency === undefined) {
    if (known.size >= MAX_DEPENDENCIES) return OTHER
    dependency = Object.freeze({
      key: `${system} ${operation} ${target}`, system, operation, target, spanName, attributes: Object.freeze(makeAttributes())
    })
    known.set(serverKey, dependency)
  }
  return dependency
}

module.exports = { describeDependency, OTHER, MAX_DEPENDENCIES }
