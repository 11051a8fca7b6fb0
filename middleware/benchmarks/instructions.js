'use strict'

// What nodebench's always-on path (the breakdown, no spans) costs in CPU instructions per request,
// counted by valgrind's callgrind: repeatable to <1% on a shared machine, where requests/s moves by 10%.
//
//   node benchmarks/instructions.js [--low 400] [--high 4400] [--variants bare,nodebench-breakdown,...]
//
// fixed-requests.js serves <low> and then <high> requests under callgrind, for each variant (default: the
// bare app and the app with nodebenchTrace({ exporter: 'none' }); also nodebench-0, nodebench-0.1 and
// nodebench-1, exporting OTLP at that sampleRatio); (I(high) - I(low)) / (high - low) removes start-up and
// leaves the instructions of one request, server and client together. Node runs with --single-threaded
// so compilation and GC happen on the counted thread at repeatable moments. The default <high> of 4400
// leaves most of start-up behind: with 2400, the bare app counted 1,677,000 instructions a request
// against 1,374,000 with 4400, and nodebench's share moved by ±8,000 from run to run; with 4400, three
// runs of the breakdown agreed within 600. V8 still compiles at 4400 (TurboFan is ~24% of the bare app's
// count: it tiers functions up over the first ~20,000 requests, which valgrind runs ~50 times slower), so
// compare variants with each other, not with a wall-clock share.
// Takes ~4 minutes per variant.
// Instructions are not time: cache misses and GC memory traffic weigh in overhead.js, not here.

const { parseArgs } = require('node:util')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { ensureValgrind } = require('@nodebench/services')

// Under valgrind a request takes ~20 ms here, and starting the app ~30 s: a run is given 10 minutes, or
// 60 ms a request when that is longer (16,400 requests took ~5 minutes).
function runTimeoutMs (requests) {
  return Math.max(600_000, requests * 60)
}

function countInstructions (valgrind, variant, requests) {
  return new Promise((resolve, reject) => {
    execFile(valgrind, [
      '--tool=callgrind', '--callgrind-out-file=/dev/null', '--cache-sim=no', '--branch-sim=no',
      '--smc-check=all-non-file', process.execPath, '--single-threaded',
      path.join(__dirname, 'fixed-requests.js'), variant, String(requests)
    ], { timeout: runTimeoutMs(requests), maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`valgrind ${variant} ${requests}: ${err.message}\n${stderr.slice(-2000)}`))
      const collected = /Collected : (\d+)/.exec(stderr)
      if (!collected) return reject(new Error(`valgrind printed no instruction count:\n${stderr.slice(-2000)}`))
      resolve(Number(collected[1]))
    })
  })
}

const VARIANTS = Object.freeze(['bare', 'nodebench-breakdown', 'nodebench-0', 'nodebench-0.1', 'nodebench-1'])

async function main () {
  const { values } = parseArgs({
    options: {
      low: { type: 'string', default: '400' },
      high: { type: 'string', default: '4400' },
      variants: { type: 'string', default: 'bare,nodebench-breakdown' }
    }
  })
  const low = Number(values.low)
  const high = Number(values.high)
  if (!Number.isInteger(low) || !Number.isInteger(high) || low < 4 || high <= low) {
    throw new TypeError(`--low and --high must be integers with 4 <= low < high; received ${values.low}, ${values.high}`)
  }
  const variants = values.variants.split(',').filter(Boolean)
  const unknown = variants.filter((variant) => !VARIANTS.includes(variant))
  if (unknown.length > 0 || !variants.includes('bare')) {
    throw new TypeError(`--variants must list bare and any of ${VARIANTS.slice(1).join(', ')}; received ${values.variants}`)
  }
  // VALGRIND_PATH, /usr/bin/valgrind, or Debian's package installed once with apt-get (as root).
  const valgrind = await ensureValgrind()
  const perRequest = {}
  for (const variant of variants) {
    process.stderr.write(`instructions: ${variant}, ${low} and ${high} requests under callgrind...\n`)
    const [atLow, atHigh] = [await countInstructions(valgrind, variant, low), await countInstructions(valgrind, variant, high)]
    perRequest[variant] = (atHigh - atLow) / (high - low)
  }
  const bare = perRequest.bare
  const width = Math.max(...variants.map((variant) => variant.length)) + 2
  for (const variant of variants) {
    const count = perRequest[variant]
    const line = `${variant.padEnd(width)}${String(Math.round(count)).padStart(9)} instructions per request`
    const extra = variant === 'bare'
      ? ''
      : `, +${Math.round(count - bare)} over bare: ${((count - bare) / bare * 100).toFixed(1)}% (ratio ${(bare / count).toFixed(3)})`
    process.stdout.write(line + extra + '\n')
  }
}

main().catch((err) => {
  process.stderr.write(`instructions: ${err.code ? `[${err.code}] ` : ''}${err.message}\n`)
  process.exitCode = 1
})
