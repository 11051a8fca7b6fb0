'use strict'

const fs = require('node:fs')

// Whether a run's connections fit in the open-file limit. Each connection is a file descriptor in nodebench's
// process (autocannon) and one in the server's (the app, or one of Apache's children). Node.js raises its own soft
// limit to the hard one when it starts, and the servers nodebench starts inherit that; above the hard limit,
// only root can go, before nodebench starts (`ulimit -n`), so a run that needs more says so instead of failing
// with EMFILE halfway.

// Descriptors a process holds besides its connections (modules, logs, pipes, the database's sockets).
const MARGIN = 256

/** The open-file limits of this process, `{ soft, hard }` (null where /proc cannot tell). */
function openFilesLimit (limitsFile = '/proc/self/limits') {
  try {
    const line = fs.readFileSync(limitsFile, 'utf8').split('\n').find((text) => text.startsWith('Max open files'))
    const [soft, hard] = line.trim().split(/\s{2,}/).slice(1, 3).map((value) => (value === 'unlimited' ? Infinity : Number(value)))
    return { soft, hard }
  } catch {
    return { soft: null, hard: null }
  }
}

/**
 * What the run of `config` needs (its most connections plus a margin) against the limit: `{ soft, hard,
 * needed, enough, note }`, `note` saying what to do when it is not enough.
 */
function checkOpenFiles (config, { limits = openFilesLimit() } = {}) {
  const connections = Math.max(...Object.values(config.connections), config.findMax ? config.findMax.maxConnections : 0)
  const needed = connections + MARGIN
  const { soft, hard } = limits
  if (soft === null) return { soft, hard, needed, enough: true, note: 'the open-file limit could not be read (no /proc/self/limits)' }
  const enough = soft >= needed
  const note = enough
    ? `${connections} connections fit in the open-file limit (${soft === Infinity ? 'unlimited' : soft})`
    : `this run opens up to ${connections} connections, each a file in nodebench's process and in the server's, but ` +
      `this process may open ${soft} files (ulimit -n; hard limit ${hard === Infinity ? 'unlimited' : hard}): requests beyond ` +
      `it fail with EMFILE. Raise the limit before running bench, to ${needed} or more (\`ulimit -n ${needed}\`; above the ` +
      'hard limit as root, or in /etc/security/limits.conf)'
  return { soft: soft === Infinity ? null : soft, hard: hard === Infinity ? null : hard, needed, enough, note }
}

module.exports = { openFilesLimit, checkOpenFiles }
