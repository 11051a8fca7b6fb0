'use strict'

const { grewEnough } = require('../kernel/collection-sizes')

// What a comparison says of the sides' databases (results.json's `database`, kernel/collection-sizes.js): a
// store that grew during a side's run moves that side's later figures, and two runs that started from
// different stores differ by the database as much as by the app. Either can look like a regression of the app.

const count = (value) => value.toLocaleString('en-US')

/** The collections whose size at the start of `a` and of `b` differ enough to move the figures. */
function differentStarts (a, b) {
  const start = (database) => new Map((database?.collections ?? []).map(({ name, before }) => [name, before]))
  const aStart = start(a.database)
  const bStart = start(b.database)
  if (aStart.size === 0 || bStart.size === 0) return []
  const names = [...new Set([...aStart.keys(), ...bStart.keys()])].sort()
  return names.map((name) => ({ name, a: aStart.get(name) ?? 0, b: bStart.get(name) ?? 0 }))
    .filter(({ a: sizeA, b: sizeB }) => grewEnough({ before: Math.min(sizeA, sizeB), after: Math.max(sizeA, sizeB) }))
}

/** The comparison's notes about the databases of results `a` and `b`. */
function databaseNotes (a, b) {
  const notes = []
  const warnings = [['a', a.database?.warning], ['b', b.database?.warning]].filter(([, warning]) => typeof warning === 'string')
  if (warnings.length === 2 && warnings[0][1] === warnings[1][1]) {
    notes.push(`both sides (one database, their repetitions taking turns): ${warnings[0][1]}`)
  } else {
    for (const [side, warning] of warnings) notes.push(`${side}: ${warning}`)
  }
  const apart = differentStarts(a, b)
  if (apart.length > 0) {
    notes.push(`a and b started from different databases (${apart.map(({ name, a: sizeA, b: sizeB }) =>
      `${name}: ${count(sizeA)} against ${count(sizeB)} documents`).join('; ')}): part of a difference may be the database's; ` +
      'an empty embedded database per run (the default) or the same seeded MongoDB on both sides keeps it out')
  }
  return notes
}

module.exports = { databaseNotes }
