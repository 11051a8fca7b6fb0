'use strict'

// The tests' Express 4 app with express-async-errors (fixtures/express4-async-errors): the package's peer is
// Express 4, which the workspace's Express 5 cannot satisfy, so the fixture has its own package-lock.json,
// installed with `npm ci` by test/prepare.js (or by the test on first use; skipped when nothing changed).

const path = require('node:path')
const { installFixture } = require('./nest-apps')

const EXPRESS4_ASYNC_ERRORS = path.join(__dirname, 'fixtures', 'express4-async-errors')

/** The fixture's createApp(trace), installed first if need be. */
function loadExpress4AsyncErrorsApp ({ onProgress = (line) => process.stderr.write(`${line}\n`) } = {}) {
  installFixture(EXPRESS4_ASYNC_ERRORS, onProgress)
  return require(path.join(EXPRESS4_ASYNC_ERRORS, 'app.js'))
}

module.exports = { EXPRESS4_ASYNC_ERRORS, loadExpress4AsyncErrorsApp }
