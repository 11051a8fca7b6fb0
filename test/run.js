'use strict'

// `npm test`: every *.test.js / *.test.mjs of the workspaces, one file at a time (the tests start real
// servers and the OpenTelemetry SDK, which is process-global). Node 20's `--test` does not expand globs
// and, given a directory, would also run helpers and fixtures; so the files are listed here. First, what
// the tests run besides npm packages is built or installed (prepare.js), outside any test's time limit. A run
// that leaves a process it started behind fails, naming each one (which is then stopped): leftover-processes.js.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { prepareTestDependencies } = require('./prepare')
const { MARK, runningProcesses, leftoverProcesses, stopProcesses } = require('./leftover-processes')

const root = path.join(__dirname, '..')
const TEST_DIRS = ['test', 'middleware/test', 'collector/test', 'packages', 'examples']
const TEST_FILE = /\.test\.[cm]?js$/

function testFiles () {
  const files = []
  for (const dir of TEST_DIRS) {
    const absolute = path.join(root, dir)
    if (!fs.existsSync(absolute)) continue
    for (const entry of fs.readdirSync(absolute, { recursive: true })) {
      const relative = path.join(dir, entry)
      if (relative.split(path.sep).includes('node_modules')) continue
      if (TEST_FILE.test(entry)) files.push(relative)
    }
  }
  return files.sort()
}

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
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], {
    cwd: root, stdio: 'inherit', env: { ...process.env, [MARK]: runId }
  })
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
