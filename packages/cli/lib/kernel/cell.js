'use strict'

const { runHook } = require('./workload')
const { probeCell, checkWarmup } = require('./repetition')
const { runAutocannon } = require('./load')

// What every cell of a run does around its measurement, bench's and compare's alike: its scenario's setup
// against the cell's running app, its requests each checked once, the warm-up; after the measurement, its
// scenario's teardown with the values the setup gave.

/** The scenario's setup against the cell's app at `base`: resolves to the workload's values with the setup's. */
async function setUpCell (workload, scenario, { base, env, log, values }) {
  const { setup } = workload.scenarios[scenario]
  return { ...values, ...await runHook(setup, `scenario '${scenario}' setup`, workload, { base, env, log, values }) }
}

/**
 * The cell's first requests (each distinct one once, checked), then `warmup` (autocannon's options: amount,
 * connections...; none when its amount is 0), every answer checked. Resolves to the first answers' sample.
 * `probeFailed(err)`: what a failed first request throws instead (bench names a server that does not answer).
 */
async function warmUpCell (base, sent, warmup, { probeFailed = (err) => { throw err } } = {}) {
  const sample = await probeCell(base, sent).catch(probeFailed)
  if (warmup.amount > 0) checkWarmup(await runAutocannon(base, sent, { ...warmup, phase: 'warm-up' }), sent)
  return sample
}

/** The scenario's teardown with the values its setup gave; a failure is logged, never thrown. */
async function tearDownCell (workload, scenario, { env, log, values }) {
  const { teardown } = workload.scenarios[scenario]
  if (teardown === null) return
  await runHook(teardown, `scenario '${scenario}' teardown`, workload, { env, log, values }).catch((err) => log(err.message))
}

module.exports = { setUpCell, warmUpCell, tearDownCell }
