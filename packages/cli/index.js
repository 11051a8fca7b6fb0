'use strict'

const { main, parseArguments } = require('./lib/main')
const { benchConfig, runBench, flameConfig, runFlame, browserConfig, runBrowser, runReport, runTrace, compareConfig, runCompare } = require('./lib/api')
const { startProcessSampler } = require('./lib/kernel/process-sampler')

// nodebench from JavaScript: the command line itself (main, parseArguments), and the API it is a shell over:
// each feature's configuration and run (lib/api.js); and the kernel's process sampler, which every bench cell
// runs, for a harness of one's own (the CPU and memory of each process of a run).

module.exports = {
  main,
  parseArguments,
  benchConfig,
  runBench,
  flameConfig,
  runFlame,
  browserConfig,
  runBrowser,
  runReport,
  runTrace,
  compareConfig,
  runCompare,
  startProcessSampler
}
