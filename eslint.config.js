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
    // What an app loads at run time (@nodebench/trace and the packages it requires) names Node.js's built-in
    // modules without the `node:` prefix: Jest 26's module registry does not know `node:` specifiers and an
    // app's suite under it fails to load them (ENOENT 'node:perf_hooks'). test/runners.test.js runs an app's
    // suite under Jest 26 and the other runners; tests, benchmarks and the CLI keep the prefix.
    files: ['middleware/index.js', 'middleware/lib/**/*.js', 'packages/breakdown/index.js', 'packages/breakdown/lib/**/*.js',
      'packages/errors/index.js', 'packages/errors/lib/**/*.js'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.name='require'] > Literal[value=/^node:/]",
        message: 'an app loads this at run time: require the built-in module without `node:` (Jest 26 cannot load `node:` specifiers)'
      }, {
        selector: 'ImportExpression > Literal[value=/^node:/]',
        message: 'an app loads this at run time: import the built-in module without `node:` (Jest 26 cannot load `node:` specifiers)'
      }]
    }
  },
  {
    files: ['examples/mongo-admin/public/**/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', location: 'readonly', alert: 'readonly', Node: 'readonly', fetch: 'readonly', angular: 'readonly' } }
  }
]
