'use strict'

const { requestFor, runAutocannon, findDocumentId } = require('../bench/runner')

// The load a flamegraph is taken under: one scenario in one format, for a duration, against the app at
// `base`. Used in process for 0x, and as the `--on-port` command of clinic flame (run as a script).

/** Warms the app up, then drives it; resolves to `{ requests, non2xx, errors, unexpectedStatus }`. */
async function driveLoad ({ base, scenario, format, duration, connections }) {
  const documentId = scenario === 'doc-read' ? await findDocumentId(base) : null
  const request = requestFor(scenario, format, documentId)
  await runAutocannon(base, request, { connections, amount: Math.max(connections * 2, 20) })
  const result = await runAutocannon(base, request, { connections, duration })
  let expected = 0
  for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) {
    if (Number(code) === request.expectedStatus) expected += count
  }
  const requests = result.requests.total
  return { requests, errors: result.errors, non2xx: result.non2xx, unexpectedStatus: requests - expected }
}

if (require.main === module) {
  // node drive-load.js <port> <scenario> <format> <duration> <connections>: clinic flame's --on-port command.
  const [port, scenario, format, duration, connections] = process.argv.slice(2)
  driveLoad({ base: `http://127.0.0.1:${port}`, scenario, format, duration: Number(duration), connections: Number(connections) })
    .then((outcome) => {
      process.stderr.write(`nodebench flame: ${outcome.requests} requests, ${outcome.unexpectedStatus} unexpected statuses, ${outcome.errors} errors\n`)
    }, (err) => {
      process.stderr.write(`nodebench flame: the load failed: ${err.message}\n`)
      process.exitCode = 1
    })
}

module.exports = { driveLoad }
