'use strict'

const { main, parseArguments } = require('./lib/main')
const { benchConfig, runBench, flameConfig, runFlame, browserConfig, runBrowser, runReport, runTrace, compareConfig, runCompare } = require('./lib/api')

// nodebench from JavaScript: the command line itself (main, parseArguments), and the API it is a shell over:
// each feature's configuration and run (lib/api.js).

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
  runCompare
}
