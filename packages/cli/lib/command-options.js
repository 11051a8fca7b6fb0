'use strict'

const { parseArgs } = require('node:util')
const { usageError } = require('./usage-error')
const { optionErrorMessage } = require('./suggest')

// What the commands' option parsers and the features' configurations (bench, flame, browser) share to read
// option values: from the command line they are strings, from JavaScript numbers and arrays will do. Every
// error is NB_ERR_USAGE (exit 2, one line), prefixed with the command's name.

/**
 * The helpers of one command's parser:
 * - `usageError(message)`;
 * - `parse(argv, options)`: parseArgs' `values`, strictly (no positionals, no unknown option);
 * - `parseCommand(argv, options, configOf)`: `{ command: 'help' }` for --help, else `{ command, config }`, the
 *   config `configOf(values)` makes;
 * - `wholeNumber(text, name, min, max)`: `--<name> <text>` as a whole number from `min` to `max`;
 * - `listOf(text, name, known, { paths })`: `--<name> a,b` (or an array) as the distinct items, each one of
 *   `known` (or, with `paths`, a path starting with '/').
 * @param {string} command e.g. 'bench'
 */
function commandOptions (command) {
  const fail = (message) => usageError(message, command)
  const parse = (argv, options) => {
    try {
      return parseArgs({ args: argv, options, allowPositionals: false, strict: true }).values
    } catch (err) {
      throw fail(optionErrorMessage(err, options))
    }
  }
  return {
    usageError: fail,
    parse,
    parseCommand (argv, options, configOf) {
      const values = parse(argv, options)
      return values.help ? { command: 'help' } : { command, config: configOf(values) }
    },
    wholeNumber (text, name, min, max) {
      const value = Number(text)
      if (String(text).trim() === '' || !Number.isInteger(value) || value < min || value > max) {
        throw fail(`--${name} must be a whole number from ${min} to ${max}; received '${text}'`)
      }
      return value
    },
    listOf (text, name, known, { paths = false } = {}) {
      const items = [...new Set((Array.isArray(text) ? text : String(text).split(',')).map((item) => String(item).trim()).filter(Boolean))]
      if (items.length === 0) throw fail(`--${name} is empty; expected a comma-separated list of ${known.join(', ')}`)
      for (const item of items) {
        if (paths && item.startsWith('/')) continue
        if (!known.includes(item)) {
          throw fail(`unknown ${name.replace(/s$/, '').replace(/-/, ' ')} '${item}'; expected one of ${known.join(', ')}` +
            (paths ? ', or a path such as /db/nodebench' : ''))
        }
      }
      return items
    }
  }
}

module.exports = { commandOptions }
