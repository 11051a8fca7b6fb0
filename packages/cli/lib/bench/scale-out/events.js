'use strict'

const { round } = require('../../kernel/statistics')

// Scale-out's elasticity cells: instances added or killed behind nginx while a repetition's load runs
// (--add-instance-at, --kill-instance-at, scale-out/config.js). The matrix starts them with the load (matrix.js);
// elasticity.js reads what happened around them from nginx's log once the cell's servers stopped.

/**
 * Runs a repetition's events (instances added or killed behind nginx) at their seconds from `startedAt`.
 * `settled()` resolves, once every event has run, to what happened: `{ type, atSec, atMs, address, pid,
 * reloadedAtMs? }` or `{ type, atSec, atMs, failure }`.
 */
function scheduleEvents (events, running, { startedAt, source, log }) {
  const happened = []
  const runs = events.map((event) => new Promise((resolve) => {
    setTimeout(async () => {
      const atMs = Date.now()
      const atSec = round((performance.now() - startedAt) / 1000, 2)
      try {
        if (event.type === 'kill') {
          const victim = running.killInstance()
          if (victim === null) throw new Error('no live instance to kill')
          source.gone(victim.env)
          log(`${atSec} s: killed the instance at ${victim.address} (pid ${victim.pid})`)
          happened.push({ type: 'kill', atSec, atMs, address: victim.address, pid: victim.pid })
        } else {
          const instance = await running.addInstance()
          log(`${atSec} s: added an instance at ${instance.address} (pid ${instance.pid}); nginx reloaded`)
          happened.push({ type: 'add', atSec, atMs, address: instance.address, pid: instance.pid, reloadedAtMs: instance.addedAt })
        }
      } catch (err) {
        log(`${atSec} s: could not ${event.type === 'kill' ? 'kill' : 'add'} an instance: ${err.message}`)
        happened.push({ type: event.type, atSec, atMs, failure: err.message })
      }
      resolve()
    }, event.atSec * 1000)
  }))
  return { settled: () => Promise.all(runs).then(() => happened.sort((a, b) => a.atSec - b.atSec)) }
}

module.exports = { scheduleEvents }
