'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { ensureValgrind, freeLoopbackPort } = require('@nodebench/services')
const { codes, NodebenchError } = require('@nodebench/errors')
const { startProcessGroup } = require('./process-group')

// A Node.js app under valgrind's callgrind, whose instructions are counted window by window: `dump()` writes
// callgrind's counters since the last dump to a file of their own and zeroes them (callgrind_control --dump,
// which reaches a process idle in epoll through vgdb), and @nodebench/services' callgrindCounts reads a dump's
// counts (the total, and what garbage collection and compiling ran of it). The
// count is the app's process, every thread of it: Node.js runs with --single-threaded, so compiling and
// garbage collection fall on the counted thread too, in whichever window they happen. What the client does
// (autocannon, in nodebench's own process) is not counted. An instruction count does not move with what else
// the machine runs: a CI runner shared with other jobs gives the same count, where requests/s moves by 10%
// (middleware/benchmarks/instructions.js measures nodebench's own cost the same way).

// Under valgrind Node.js starts in 10-40 s (a request takes 3-20 ms), and stops as slowly: its grace after
// SIGTERM is at least this long, whatever --stop-grace says.
const START_TIMEOUT_MS = 180_000
const STOP_GRACE_MS = 30_000

function callgrindError (message) {
  return new NodebenchError(codes.NB_ERR_CALLGRIND, message)
}

function run (command, args, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 1 << 28 }, (err, stdout, stderr) => {
      if (err) reject(callgrindError(`${command} ${args.join(' ')} failed: ${(stderr || err.message).trim()}`))
      else resolve(stdout)
    })
  })
}

/**
 * Starts `argv` (a Node.js script and its arguments, {port} filled with a free port here) with `nodePath`
 * under callgrind, and resolves once it answers HTTP at `http://127.0.0.1:<port>`: `{ base, pid, dump(),
 * stop() }`. `dump()` resolves to the file holding the counts since the previous dump (or the start). `graceMs`:
 * --stop-grace's, taken when longer than callgrind's own.
 */
async function startUnderCallgrind (argv, options) {
  const { env, cwd, nodePath = process.execPath, graceMs = 0, onProgress = () => {} } = options
  const valgrind = await ensureValgrind({ onProgress })
  const port = await freeLoopbackPort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-callgrind-'))
  const outFile = path.join(dir, 'callgrind.out')
  const args = argv.map((word) => word.replaceAll('{port}', String(port)))
  const group = startProcessGroup(valgrind, [
    '--tool=callgrind', `--callgrind-out-file=${outFile}`, '--cache-sim=no', '--branch-sim=no', '--dump-instr=no',
    '--smc-check=all-non-file', nodePath, '--single-threaded', ...args
  ], {
    cwd,
    env: { ...env, NODEBENCH: 'on' },
    stdio: ['ignore', 'pipe', 'pipe'],
    graceMs: Math.max(graceMs, STOP_GRACE_MS),
    name: `the app under callgrind (${args.join(' ')})`
  })
  const { child } = group
  let output = ''
  const keep = (chunk) => { output = (output + chunk).slice(-4000) }
  child.stdout.setEncoding('utf8').on('data', keep)
  child.stderr.setEncoding('utf8').on('data', keep)
  const exited = group.exited
  const base = `http://127.0.0.1:${port}`
  let dumps = 0
  const stop = async () => {
    await group.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (exited() !== null) {
      await stop()
      throw callgrindError(`the app exited (${exited()}) under callgrind before ${base} answered; its last output:\n  ${output.trim().split('\n').slice(-5).join('\n  ')}`)
    }
    try {
      await (await fetch(base, { signal: AbortSignal.timeout(5000) })).arrayBuffer()
      break
    } catch {
      if (Date.now() > deadline) {
        await stop()
        throw callgrindError(`the app under callgrind did not answer at ${base} within ${START_TIMEOUT_MS / 1000} s`)
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  return {
    base,
    pid: child.pid,
    async dump () {
      await run('callgrind_control', ['--dump', String(child.pid)])
      dumps += 1
      // callgrind writes <out>.<n> for the n-th dump, once the command has run in the process.
      const file = `${outFile}.${dumps}`
      for (let waited = 0; !fs.existsSync(file); waited += 50) {
        if (waited > 30_000) throw callgrindError(`callgrind wrote no ${path.basename(file)} after --dump`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return file
    },
    stop
  }
}

module.exports = { startUnderCallgrind }
