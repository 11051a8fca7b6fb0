'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { testFiles, runsOnce, splitOnce } = require('./test-files')

test('a file runs once when a line of its own tags it so and says why; a misspelt tag or one without a reason throws', () => {
  assert.equal(runsOnce("'use strict'\n\nconst test = require('node:test')\n"), null)
  assert.equal(runsOnce("'use strict'\n\n// nodebench-test: once. nginx is Debian's.\n"), "nginx is Debian's.")
  assert.equal(runsOnce('// nodebench-test: once: Chromium draws it\n'), 'Chromium draws it')
  assert.equal(runsOnce("const tag = '// nodebench-test: once. not at the start of a line'\n"), null)
  assert.throws(() => runsOnce('// nodebench-test: onse. typo\n', 'x.test.js'), /^Error: x\.test\.js: "\/\/ nodebench-test: onse\. typo": the one tag is "\/\/ nodebench-test: once\. <why/)
  assert.throws(() => runsOnce('// nodebench-test: once\n', 'x.test.js'), /^Error: x\.test\.js: "\/\/ nodebench-test: once" says why/)
})

test('every test file of the tree is listed, and every tag in it reads; the middleware\'s own tests run on every line', () => {
  const files = testFiles()
  assert.ok(files.includes('test/test-files.test.js') && files.includes('middleware/test/options.test.js'))
  assert.ok(files.every((file) => !file.split('/').includes('node_modules')))
  const { everyLine, once } = splitOnce(files)
  assert.equal(everyLine.length + once.length, files.length)
  assert.deepEqual(once.filter(({ file }) => file.startsWith('middleware/')), [],
    'the middleware is what a Node.js version changes: its hot path, channels, async context, http internals')
})
