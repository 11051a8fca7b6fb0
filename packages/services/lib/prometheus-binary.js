'use strict'

const { ensureDebianExecutable } = require('./debian-package')
const errors = require('./errors')

// The Prometheus that scrapes the instances of a fleet for `nodebench services start prometheus`, bench's
// --breakdown-source prometheus and the fleet tests. From PROMETHEUS_PATH, or Debian's `prometheus` package
// (debian-package.js). nodebench runs it itself with a configuration of its own; the package's own service
// (a systemd unit) is not used.

const PROMETHEUS_CANDIDATES = Object.freeze(['/usr/bin/prometheus'])

/**
 * The path of a prometheus executable: PROMETHEUS_PATH, else the first of `candidates` that exists, else
 * Debian's prometheus package installed with apt-get (as root only).
 * @param {object} [options] as ensureChromium's: onProgress, env, candidates, canInstall, aptGet
 * @returns {Promise<string>}
 */
function ensurePrometheus ({ candidates = PROMETHEUS_CANDIDATES, ...options } = {}) {
  return ensureDebianExecutable({
    packageName: 'prometheus',
    envVar: 'PROMETHEUS_PATH',
    candidates,
    purpose: 'for fleet breakdowns (metrics scraped from every instance)',
    missing: errors.prometheusMissing
  }, options)
}

module.exports = { ensurePrometheus, PROMETHEUS_CANDIDATES }
