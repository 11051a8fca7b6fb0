'use strict'

const { runAutocannon } = require('../bench/runner')
const { loadWorkload, requestsOf, runHook } = require('../workload')

// The load a flamegraph is taken under: one scenario of a workload in one format, for a duration, against
// the app at `base`. Used in process for 0x, and as the `--on-port` command of clinic flame (run as a script).

/** Warms the app up, then drives it; resolves to `{ requests, non2xx, errors, unexpectedStatus }`. */
async function driveLoad ({ base, workload, scenario, format, values, duration, connections, log = () => {} }) {
  const definition = workload.scenarios[scenario]
  const setupValues = await runHook(definition.setup, `scenario '${scenario}' setup`, workload, { base, env: process.env, log, values })
  const sent = requestsOf(definition, format, { ...values, ...setupValues })
  await runAutocannon(base, sent, { connections, amount: Math.max(connections * 2, 20) })
  const result = await runAutocannon(base, sent, { connections, duration })
  let expected = 0
  for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) {
    if (Number(code) === sent.status) expected += count
  }
  const requests = result.requests.total
  return { requests, errors: result.errors, non2xx: result.non2xx, unexpectedStatus: requests - expected }
}

if (require.main === module) {
  // node drive-load.js <port> <workload file> <scenario> <format> <duration> <connections> <values as JSON>:
  // clinic flame's --on-port command.
  const [port, workloadFile, scenario, format, duration, connections, valuesJson] = process.argv.slice(2)
  Promise.resolve()
    .then(() => driveLoad({
      base: `http://127.0.0.1:${port}`,
      workload: loadWorkload(workloadFile),
      scenario,
      format,
      values: JSON.parse(valuesJson),
      duration: Number(duration),
      connections: Number(connections)
    }))
    .then((outcome) => {
      process.stderr.write(`nodebench flame: ${outcome.requests} requests, ${outcome.unexpectedStatus} unexpected statuses, ${outcome.errors} errors\n`)
    }, (err) => {
      process.stderr.write(`nodebench flame: the load failed: ${err.message}\n`)
      process.exitCode = 1
    })
}

module.exports = { driveLoad }
