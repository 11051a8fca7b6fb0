'use strict'

// Which segment a workload's `dominant` names. A segment is named as the user wrote it
// (`userController.getUsers`, `auth('getUsers')`, `rateLimiter.authLimiter`) and carries the other names its
// function is known by (`aliases`: `getUsers`, `auth`, `rateLimit`, `express-rate-limit`). `dominant` may be
// any of them: the segment's name, one of its aliases, or a plain form of its name (the name without an
// occurrence ` #2`, a parameter ` (:isbn)`, a module `userController.`, a factory's arguments `(...)`), which
// is what a breakdown read back from Prometheus or Jaeger (names only, no aliases) still allows.

/** The plain forms of a segment's name: `userController.getUsers` -> `getUsers`, `auth('getUsers')` -> `auth`. */
function plainForms (name) {
  const forms = []
  let plain = name.replace(/ #\d+$/, '').replace(/ \(:[^)]*\)$/, '')
  forms.push(plain)
  const call = /^([\w$.]+)\(.*\)$/s.exec(plain)
  if (call !== null) {
    plain = call[1]
    forms.push(plain)
  }
  if (/^[\w$]+(\.[\w$]+)+$/.test(plain)) forms.push(plain.slice(plain.lastIndexOf('.') + 1))
  return forms
}

/** How well `segment` answers to `wanted`: 3 its name, 2 an alias, 1 a plain form of its name, 0 not at all. */
function matchLevel (segment, wanted) {
  if (segment.name === wanted) return 3
  if (Array.isArray(segment.aliases) && segment.aliases.includes(wanted)) return 2
  return typeof segment.name === 'string' && plainForms(segment.name).includes(wanted) ? 1 : 0
}

/** Whether `segment` is the function `wanted` names. */
function isNamed (segment, wanted) {
  return segment !== null && segment !== undefined && typeof wanted === 'string' && matchLevel(segment, wanted) > 0
}

/**
 * The segment of `operation` that `wanted` names, or null: the best match (name, then alias, then plain form),
 * and among equal ones the largest share (`authenticate` when both `authenticate('jwt')` and
 * `authenticate('session')` run).
 */
function findNamed (operation, wanted) {
  if (!operation || !Array.isArray(operation.segments) || typeof wanted !== 'string') return null
  let best = null
  let bestLevel = 0
  for (const segment of operation.segments) {
    const level = matchLevel(segment, wanted)
    if (level > bestLevel || (level > 0 && level === bestLevel && segment.share > best.share)) {
      best = segment
      bestLevel = level
    }
  }
  return best
}

module.exports = { findNamed, isNamed, plainForms }
