'use strict'

// The whole repository is linted with neostandard (standard's rules for ESLint 9, as fastify, pino and
// router use); test/lint.test.js runs it with `npm test`. The example's single-page client runs in a browser.
const neostandard = require('neostandard')

module.exports = [
  ...neostandard({
    // Compiled output (the NestJS example's dist/) is not source.
    ignores: ['**/node_modules/**', '.cache/**', 'runs/**', 'flamegraphs/**', '**/*.d.ts', '**/dist/**']
  }),
  {
    // A readable width for code; long strings (messages, templates) may run past it rather than be cut. Tests are
    // exempt: their long lines are expected values, easier to compare on one line.
    ignores: ['**/test/**'],
    rules: {
      '@stylistic/max-len': ['error', {
        code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true
      }]
    }
  },
  {
    files: ['examples/mongo-admin/public/**/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', location: 'readonly', alert: 'readonly', Node: 'readonly', fetch: 'readonly', angular: 'readonly' } }
  }
]
