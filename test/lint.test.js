'use strict'

// nodebench-test: once. eslint reads the sources: the Node.js version does not change what this tests.
// `npm test` lints the whole repository with the project's eslint.config.js (neostandard): a problem fails
// the suite with the file, line and rule.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { ESLint } = require('eslint')

const ROOT = path.join(__dirname, '..')

test('the repository passes the linter (eslint.config.js)', { timeout: 180_000 }, async () => {
  const eslint = new ESLint({ cwd: ROOT })
  const results = await eslint.lintFiles(['.'])
  const problems = results.flatMap((result) => result.messages.map((message) =>
    `${path.relative(ROOT, result.filePath)}:${message.line}:${message.column} ${message.ruleId || 'parse'}: ${message.message}`))
  assert.ok(results.length > 100, `linted ${results.length} files`)
  assert.deepEqual(problems, [])
})
