'use strict'

// What the tests run besides npm packages, made ready before the first test starts: the embedded database
// and Jaeger (built from the Go module proxy, minutes the first time), Chromium, Prometheus, nginx, Apache httpd
// and PHP (Debian's packages, installed with apt-get as root), and the NestJS apps (Nest 11 and 10 installed with npm ci
// into their fixtures, all three compiled from TypeScript). The tests would fetch each on first use too, but inside a test's time
// limit, which a first build or installation on a fresh machine exceeds. Each step is cached (the project
// and per-user caches, apt), so later runs only check that the files are there.

const { ferretdbBinary, ensureChromium, ensurePrometheus, ensureNginx, ensureApachePhp } = require('@nodebench/services')
const { jaegerBinary } = require('@nodebench/collector')
const { prepareNestApps, installFixture } = require('../middleware/test/nest-apps')
const { EXPRESS4_ASYNC_ERRORS } = require('../middleware/test/express4-async-errors')
const defaultProgress = (line) => process.stderr.write(`${line}\n`)

const STEPS = Object.freeze([
  { what: 'the embedded database (FerretDB)', ready: (onProgress) => ferretdbBinary({ onProgress }) },
  { what: 'Jaeger', ready: (onProgress) => jaegerBinary({ onProgress }) },
  { what: 'Chromium (the report\'s browser check, nodebench browser)', ready: (onProgress) => ensureChromium({ onProgress }) },
  { what: 'Prometheus (the fleet tests)', ready: (onProgress) => ensurePrometheus({ onProgress }) },
  { what: 'nginx (the scale-out tests)', ready: (onProgress) => ensureNginx({ onProgress }) },
  { what: 'Apache httpd with PHP (the baseline tests)', ready: (onProgress) => ensureApachePhp({ onProgress }) },
  { what: 'the NestJS apps (Nest 12, 11 and 10, compiled from examples/nest-cats)', ready: async (onProgress) => prepareNestApps(onProgress ? { onProgress } : {}) },
  { what: 'Express 4 with express-async-errors (its own folder: its peer is Express 4)', ready: async (onProgress) => installFixture(EXPRESS4_ASYNC_ERRORS, onProgress || defaultProgress) }
])

/**
 * Resolves when every step is ready; rejects with the first step's error, its `step` property naming it,
 * without running the steps after it.
 * @param {object} [options]
 * @param {(message: string) => void} [options.onProgress] progress lines; default: each step's own (stderr)
 * @param {{ what: string, ready: (onProgress: Function) => Promise<unknown> }[]} [options.steps] for tests
 */
async function prepareTestDependencies ({ onProgress, steps = STEPS } = {}) {
  for (const step of steps) {
    try {
      await step.ready(onProgress)
    } catch (err) {
      err.step = step.what
      throw err
    }
  }
}

module.exports = { prepareTestDependencies, STEPS }
