#!/usr/bin/env node
'use strict'

const os = require('node:os')
const { main } = require('../lib/main')
const { stopProcessGroups } = require('../lib/kernel/process-group')

// The apps nodebench started never outlive it (kernel/process-group.js): on Ctrl-C, SIGTERM or SIGHUP (its
// terminal closed) it stops them (SIGTERM, their grace, SIGKILL) and exits as the signal would have had it; a
// second signal exits at once (the groups still running then get SIGKILL from the exit, which a death by an
// unhandled signal would not run). Once the command is done, what it left running is
// stopped and nothing else may hold the process: it exits within a bounded time.

const EXIT_WAIT_MS = 2000

let interrupted = false
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(name, () => {
    const code = 128 + os.constants.signals[name]
    if (interrupted) process.exit(code)
    interrupted = true
    process.stderr.write(`\nnodebench: ${name}: stopping the apps it started\n`)
    stopProcessGroups().finally(() => process.exit(code))
  })
}

main(process.argv.slice(2)).then(async (code) => {
  await stopProcessGroups()
  process.exitCode = code
  setTimeout(() => process.exit(code), EXIT_WAIT_MS).unref()
})
