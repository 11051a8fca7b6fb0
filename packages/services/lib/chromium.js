'use strict'

const { ensureDebianExecutable } = require('./debian-package')
const errors = require('./errors')

// The Chromium that checks nodebench's reports in a real browser and that `nodebench browser` loads the app's
// pages in (both through playwright-core). nodebench never downloads a browser build: it uses CHROMIUM_PATH,
// or Debian's `chromium` package (debian-package.js).

/** Where Debian's (and Ubuntu's older) chromium packages put the executable. */
const CHROMIUM_CANDIDATES = Object.freeze(['/usr/bin/chromium', '/usr/bin/chromium-browser'])

/**
 * The path of a Chromium executable: CHROMIUM_PATH, else the first of `candidates` that exists, else Debian's
 * chromium package installed with apt-get (as root only).
 * @param {object} [options]
 * @param {(message: string) => void} [options.onProgress] default: stderr
 * @param {NodeJS.ProcessEnv} [options.env] read for CHROMIUM_PATH and PATH; default process.env
 * @param {string[]} [options.candidates] default /usr/bin/chromium, /usr/bin/chromium-browser
 * @param {boolean} [options.canInstall] default: running as root with apt-get on PATH
 * @param {string} [options.aptGet] the apt-get to run; default the one on PATH
 * @param {number} [options.lockTimeoutMs] how long to wait for Debian's package lock; default 10 minutes
 * @param {string} [options.usedFor] what needs it, in messages; default "the report's browser check"
 * @returns {Promise<string>}
 */
function ensureChromium ({ candidates = CHROMIUM_CANDIDATES, usedFor = "the report's browser check", ...options } = {}) {
  return ensureDebianExecutable({
    packageName: 'chromium',
    envVar: 'CHROMIUM_PATH',
    candidates,
    purpose: `for ${usedFor}`,
    missing: (reason, output) => errors.chromiumMissing(reason, output, usedFor)
  }, options)
}

module.exports = { ensureChromium, CHROMIUM_CANDIDATES }
