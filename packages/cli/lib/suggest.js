'use strict'

const { distance } = require('fastest-levenshtein')

// "Did you mean": what a command line most likely meant by a word it does not know (an option, a command), when
// one known word is a single edit away (a letter missing, extra, changed or two swapped), as git and npm do.

/** The one word of `known` one edit away from `word` (a swap of two neighbours counts as one), else null. */
function closest (word, known) {
  // A one-letter flag (-q) is one edit from every other (-h): no guess.
  if (/^-[^-]$/.test(word)) return null
  const near = known.filter((candidate) => distance(word, candidate) === 1 || swapped(word, candidate))
  return near.length === 1 ? near[0] : null
}

/** Whether `b` is `a` with two neighbouring characters swapped. */
function swapped (a, b) {
  if (a.length !== b.length || a === b) return false
  const differ = [...a].map((char, i) => (char === b[i] ? -1 : i)).filter((i) => i !== -1)
  if (differ.length !== 2 || differ[1] !== differ[0] + 1) return false
  return a[differ[0]] === b[differ[1]] && a[differ[1]] === b[differ[0]]
}

/**
 * The message for parseArgs' error `err` over `options` (parseArgs' option definitions): an unknown option named,
 * with the option one edit away when there is one; any other error's own message.
 */
function optionErrorMessage (err, options) {
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return err.message
  const option = /'([^']+)'/.exec(err.message)?.[1] ?? err.message
  const known = Object.entries(options).flatMap(([name, { short }]) => [`--${name}`, ...(short ? [`-${short}`] : [])])
  const name = option.split('=')[0]
  const suggestion = closest(name, known)
  return `unknown option '${option}'` + (suggestion === null ? '' : `; did you mean '${suggestion}'?`)
}

module.exports = { closest, optionErrorMessage }
