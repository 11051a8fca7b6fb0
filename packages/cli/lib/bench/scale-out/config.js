'use strict'

const { commandOptions } = require('../../command-options')

// Scale-out's options of a bench run: the topologies (node:cluster, independent instances behind nginx) and
// nginx's balancer, where the breakdowns come from (a fleet's from Prometheus), --find-max's steps, and the
// instances added or killed mid-run. The cells these make are run by find-max.js and events.js (bench/matrix.js
// calls them); the report's section is index.js.

const { usageError, wholeNumber, listOf } = commandOptions('bench')

const TOPOLOGIES = Object.freeze(['cluster', 'nginx'])
const BALANCERS = Object.freeze(['least_conn', 'round_robin'])
// --find-max: connections double from the scenario's up to this, each step this many seconds.
const FIND_MAX_CONNECTIONS = 1024
const FIND_MAX_STEP_SEC = 5
// Seconds autocannon waits for an answer: under --find-max a timeout is an error, so it must come sooner.
const REQUEST_TIMEOUT_SEC = 60
const FIND_MAX_TIMEOUT_SEC = 10

/** `--add-instance-at 10,20` (or [10, 20]): seconds into a run, each checked. */
function secondsList (text, name) {
  if (text === undefined) return []
  return (Array.isArray(text) ? text : String(text).split(',')).map((item) => wholeNumber(String(item).trim(), name, 1, 3600))
}

/**
 * Scale-out's part of a bench configuration from option values, for the app `target` (kernel/app-target.js):
 * `{ topologies, balanced, balancer, breakdownSource, events, findMax, requestTimeoutSec, stepSec }`, `stepSec`
 * the seconds per repetition --find-max takes without --duration (null without it).
 * Throws NB_ERR_USAGE (exit 2) for anything not understood.
 */
function scaleOutOf (values, target) {
  const topologies = listOf(values.topology ?? 'cluster', 'topology', TOPOLOGIES)
  const balanced = topologies.includes('nginx')
  const balancer = values.balancer ?? 'least_conn'
  if (!BALANCERS.includes(balancer)) throw usageError(`--balancer must be least_conn or round_robin; received '${balancer}'`)
  if (balanced && !target.starts) {
    throw usageError('--topology nginx needs an app nodebench starts (--app, or --cmd with a {port} placeholder): it starts every instance')
  }
  if (balanced && target.cmd !== null && !target.cmd.includes('{port}')) {
    throw usageError('--topology nginx starts the command once per instance: it needs a {port} placeholder for each one\'s port')
  }
  // Independent instances: no process holds all their figures, Prometheus does.
  const breakdownSource = values['breakdown-source'] ?? (balanced ? 'prometheus' : 'app')
  if (breakdownSource !== 'app' && breakdownSource !== 'prometheus') {
    throw usageError(`--breakdown-source must be app (the app's /__nodebench) or prometheus (every instance's metrics); received '${breakdownSource}'`)
  }
  if (breakdownSource === 'app' && balanced) {
    throw usageError('--topology nginx reads its breakdowns from Prometheus (independent instances have no primary to merge them): leave out --breakdown-source app')
  }
  if (breakdownSource === 'prometheus' && !target.starts) {
    throw usageError('--breakdown-source prometheus needs an app nodebench starts (--app, or --cmd), whose metrics it has Prometheus scrape')
  }
  const events = [
    ...secondsList(values['add-instance-at'], 'add-instance-at').map((atSec) => ({ type: 'add', atSec })),
    ...secondsList(values['kill-instance-at'], 'kill-instance-at').map((atSec) => ({ type: 'kill', atSec }))
  ].sort((a, b) => a.atSec - b.atSec)
  const findMax = Boolean(values['find-max'])
  if (findMax && values.amount !== undefined) throw usageError('--find-max runs steps of --duration seconds (default 5), not --amount requests')
  if (!findMax && values['max-connections'] !== undefined) throw usageError('--max-connections goes with --find-max')
  if (findMax && events.length > 0) throw usageError('--find-max and instances added or killed mid-run exclude each other: run them apart')
  const maxConnections = values['max-connections'] === undefined
    ? FIND_MAX_CONNECTIONS
    : wholeNumber(values['max-connections'], 'max-connections', 1, 100_000)
  const requestTimeoutSec = values.timeout !== undefined
    ? wholeNumber(values.timeout, 'timeout', 1, 600)
    : findMax ? FIND_MAX_TIMEOUT_SEC : REQUEST_TIMEOUT_SEC
  return {
    topologies,
    balanced,
    balancer,
    breakdownSource,
    events: Object.freeze(events.map(Object.freeze)),
    findMax: findMax ? Object.freeze({ maxConnections }) : null,
    requestTimeoutSec,
    stepSec: findMax ? FIND_MAX_STEP_SEC : null
  }
}

/** Checks the run's instances added or killed against its `duration` (seconds per repetition, or null). */
function checkEvents ({ events, balanced }, duration) {
  if (events.length === 0) return
  if (!balanced) throw usageError('--add-instance-at and --kill-instance-at change the instances behind nginx: they need --topology nginx')
  if (duration === null) throw usageError('--add-instance-at and --kill-instance-at are seconds into a run of --duration seconds: give --duration')
  const late = events.find((event) => event.atSec >= duration)
  if (late) throw usageError(`--${late.type}-instance-at ${late.atSec} is not within the run's ${duration} s (--duration)`)
}

module.exports = { scaleOutOf, checkEvents, TOPOLOGIES, BALANCERS }
