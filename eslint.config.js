'use strict'

// The whole repository is linted with neostandard (standard's rules for ESLint 9, as fastify, pino and
// router use); test/lint.test.js runs it with `npm test`. The example's single-page client runs in a browser.
const neostandard = require('neostandard')

module.exports = [
  ...neostandard({
    ignores: ['**/node_modules/**', '.cache/**', 'runs/**', 'flamegraphs/**', '**/*.d.ts']
  }),
  {
    files: ['examples/mongo-admin/public/**/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', location: 'readonly', alert: 'readonly', Node: 'readonly', fetch: 'readonly' } }
  }
]
