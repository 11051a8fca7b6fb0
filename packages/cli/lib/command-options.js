'use strict'

const { parseArgs } = require('node:util')
const { usageError } = require('./usage-error')

// What the commands' option parsers (bench, flame, browser) share. Every error is NB_ERR_USAGE (exit 2, one
// line), prefixed with the command's name.

/**
 * The helpers of one command's parser:
 * - `usageError(message)`;
 * - `parse(argv, options)`: parseArgs' `values`, strictly (no positionals, no unknown option);
 * - `wholeNumber(text, name, min, max)`: `--<name> <text>` as a whole number from `min` to `max`;
 * - `baseUrl(text)`: `--url <text>` as a base URL without its trailing slash.
 * @param {string} command e.g. 'bench'
 */
function commandOptions (command) {
  const fail = (message) => usageError(message, command)
  return {
    usageError: fail,
    parse (argv, options) {
      try {
        return parseArgs({ args: argv, options, allowPositionals: false, strict: true }).values
      } catch (err) {
        throw fail(err.message)
      }
    },
    wholeNumber (text, name, min, max) {
      const value = Number(text)
      if (String(text).trim() === '' || !Number.isInteger(value) || value < min || value > max) {
        throw fail(`--${name} must be a whole number from ${min} to ${max}; received '${text}'`)
      }
      return value
    },
    baseUrl (text) {
      try {
        return new URL(text).href.replace(/\/$/, '')
      } catch {
        throw fail(`--url '${text}' is not a URL; expected e.g. http://127.0.0.1:3000`)
      }
    }
  }
}

module.exports = { commandOptions }
