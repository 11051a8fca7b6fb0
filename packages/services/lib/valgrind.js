'use strict'

const { ensureDebianExecutable } = require('./debian-package')
const errors = require('./errors')

// valgrind counts the CPU instructions of a request for middleware/benchmarks/instructions.js: a figure
// that does not drift with what else the machine is doing. From VALGRIND_PATH, or Debian's `valgrind`
// package (debian-package.js).

const VALGRIND_CANDIDATES = Object.freeze(['/usr/bin/valgrind'])

/**
 * The path of a valgrind executable: VALGRIND_PATH, else the first of `candidates` that exists, else
 * Debian's valgrind package installed with apt-get (as root only).
 * @param {object} [options] as ensureChromium's: onProgress, env, candidates, canInstall, aptGet
 * @returns {Promise<string>}
 */
function ensureValgrind ({ candidates = VALGRIND_CANDIDATES, ...options } = {}) {
  return ensureDebianExecutable({
    packageName: 'valgrind',
    envVar: 'VALGRIND_PATH',
    candidates,
    purpose: 'for the instruction-count benchmark',
    missing: errors.valgrindMissing
  }, options)
}

module.exports = { ensureValgrind, VALGRIND_CANDIDATES }
