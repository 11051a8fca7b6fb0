'use strict'

const fs = require('node:fs')

// Connection attempts a listening socket's full queue turned away, from the kernel's counters (/proc/net/netstat,
// TcpExt ListenOverflows and ListenDrops): with 1,000 clients connecting at once, a server's backlog (511 by
// default for Node.js and Apache httpd) fills, and each attempt beyond it waits for the client's SYN to be sent
// again, 1 s later, then 3 s: where the seconds of a run's longest requests come from. The counters are the
// machine's, so a cell's difference counts every listening socket's, the cell's server's above all.

/** The kernel's counters now, `{ overflows, drops }`; null where /proc cannot tell. */
function listenQueueCounters (file = '/proc/net/netstat') {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'))
    const names = lines[0].split(/\s+/)
    const values = lines[1].split(/\s+/).map(Number)
    const at = (name) => values[names.indexOf(name)]
    return { overflows: at('ListenOverflows'), drops: at('ListenDrops') }
  } catch {
    return null
  }
}

/** What the counters rose by since `before` (listenQueueCounters'); null when either is unknown. */
function listenQueueSince (before, after = listenQueueCounters()) {
  const known = (counters) => counters !== null && Number.isFinite(counters.overflows)
  if (!known(before) || !known(after)) return null
  return { overflows: after.overflows - before.overflows, drops: after.drops - before.drops }
}

module.exports = { listenQueueCounters, listenQueueSince }
