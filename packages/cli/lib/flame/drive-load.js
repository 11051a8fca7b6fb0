'use strict'

const { loadWorkload } = require('../kernel/workload')
const { baseAt } = require('../kernel/app-target')
const { loadWindow } = require('./load-window')

// clinic flame's `--on-port` command: the load a flamegraph is taken under (load-window.js), run as a script
// of its own against the app clinic started, which prints the window's outcome as one JSON line on stderr
// for nodebench to read back:
//   node drive-load.js <port> <url|-> <workload file> <scenario> <format> <warm-up s> <duration s> <connections>
//     <values>
// (`url`: the app's --url, whose port is the app's; `values`: the workload's setup values, as JSON)

if (require.main === module) {
  const [port, url, workloadFile, scenario, format, warmupSec, duration, connections, valuesJson] =
    process.argv.slice(2)
  Promise.resolve()
    .then(() => loadWindow({
      base: baseAt({ url: url === '-' ? null : url }, port),
      workload: loadWorkload(workloadFile),
      scenario,
      format,
      values: JSON.parse(valuesJson),
      warmupSec: Number(warmupSec),
      duration: Number(duration),
      connections: Number(connections)
    }))
    .then((outcome) => {
      process.stderr.write(`nodebench flame: ${JSON.stringify(outcome)}\n`)
    }, (err) => {
      process.stderr.write(`nodebench flame: the load failed: ${err.message}\n`)
      process.exitCode = 1
    })
}
