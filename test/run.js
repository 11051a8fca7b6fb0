'use strict'

// `npm test`: every *.test.js / *.test.mjs of the workspaces (test-files.js), one file at a time (the tests
// start real servers and the OpenTelemetry SDK, which is process-global). Node 20's `--test` does not expand
// globs and, given a directory, would also run helpers and fixtures; so the files are listed. The slowest
// files and their times are printed last, on stderr (file-timings.js). First, what the tests run besides npm
// packages is built or installed (prepare.js), outside any test's time limit. A run that leaves a process it
// started behind fails, naming each one (which is then stopped): leftover-processes.js.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { prepareTestDependencies } = require('./prepare')
const { testFiles } = require('./test-files')
const { reporterArguments } = require('./file-timings')
const { MARK, runningProcesses, leftoverProcesses, stopProcesses } = require('./leftover-processes')

const root = path.join(__dirname, '..')

const only = process.argv.slice(2)
const files = only.length ? only : testFiles()
if (files.length === 0) {
  console.error('nodebench tests: no test files found')
  process.exit(1)
}

async function main () {
  try {
    await prepareTestDependencies()
  } catch (err) {
    console.error(`nodebench tests: ${err.step} is not available, so no test was run:\n${err.message}`)
    process.exit(1)
  }
  const runId = `${process.pid}-${Date.now()}`
  const before = runningProcesses()
  // What the tests make once per run and share (test/packed.js), removed when the run ends.
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-test-run-'))
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...reporterArguments(), ...files], {
    cwd: root, stdio: 'inherit', env: { ...process.env, [MARK]: runId, NODEBENCH_TEST_RUN_DIR: runDir }
  })
  fs.rmSync(runDir, { recursive: true, force: true })
  const left = await leftoverProcesses({ runId, root, before })
  if (left.length > 0) {
    console.error(`nodebench tests: the run left ${left.length} process${left.length === 1 ? '' : 'es'} it started running ` +
      `(stopped now):\n${left.map(({ pid, command }) => `  pid ${pid}: ${command}`).join('\n')}`)
    await stopProcesses(left)
    process.exit(1)
  }
  process.exit(result.status === null ? 1 : result.status)
}

main()
