'use strict'

// What nodebench's always-on path (the breakdown, no spans) costs in CPU instructions per request,
// counted by valgrind's callgrind: repeatable to <1% on a shared machine, where requests/s moves by 10%.
//
//   node benchmarks/instructions.js [--low 400] [--high 2000]
//
// fixed-requests.js serves <low> and then <high> requests under callgrind, for the bare app and for the
// app with nodebenchTrace({ exporter: 'none' }); (I(high) - I(low)) / (high - low) removes start-up and
// leaves the instructions of one request, server and client together. Node runs with --single-threaded
// so compilation and GC happen on the counted thread at repeatable moments. Takes 3-5 minutes.
// Instructions are not time: cache misses and GC memory traffic weigh in overhead.js, not here.

const { parseArgs } = require('node:util')
const path = require('node:path')
const { execFile, execFileSync } = require('node:child_process')

function countInstructions (variant, requests) {
  return new Promise((resolve, reject) => {
    execFile('valgrind', [
      '--tool=callgrind', '--callgrind-out-file=/dev/null', '--cache-sim=no', '--branch-sim=no',
      '--smc-check=all-non-file', process.execPath, '--single-threaded',
      path.join(__dirname, 'fixed-requests.js'), variant, String(requests)
    ], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`valgrind ${variant} ${requests}: ${err.message}\n${stderr.slice(-2000)}`))
      const collected = /Collected : (\d+)/.exec(stderr)
      if (!collected) return reject(new Error(`valgrind printed no instruction count:\n${stderr.slice(-2000)}`))
      resolve(Number(collected[1]))
    })
  })
}

async function main () {
  const { values } = parseArgs({ options: { low: { type: 'string', default: '400' }, high: { type: 'string', default: '2000' } } })
  const low = Number(values.low)
  const high = Number(values.high)
  if (!Number.isInteger(low) || !Number.isInteger(high) || low < 4 || high <= low) {
    throw new TypeError(`--low and --high must be integers with 4 <= low < high; received ${values.low}, ${values.high}`)
  }
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install -y valgrind)')
  }
  const perRequest = {}
  for (const variant of ['bare', 'nodebench-breakdown']) {
    process.stderr.write(`instructions: ${variant}, ${low} and ${high} requests under callgrind...\n`)
    const [atLow, atHigh] = [await countInstructions(variant, low), await countInstructions(variant, high)]
    perRequest[variant] = (atHigh - atLow) / (high - low)
  }
  const bare = perRequest.bare
  const traced = perRequest['nodebench-breakdown']
  process.stdout.write(`bare                 ${Math.round(bare)} instructions per request\n` +
    `nodebench-breakdown  ${Math.round(traced)} instructions per request\n` +
    `nodebench costs      ${Math.round(traced - bare)} instructions per request, ${((traced - bare) / bare * 100).toFixed(1)}% of bare (ratio ${(bare / traced).toFixed(3)})\n`)
}

main().catch((err) => {
  process.stderr.write(`instructions: ${err.message}\n`)
  process.exitCode = 1
})
