'use strict'

// nodebench-test: once. How nodebench stops the apps it starts: process groups, signals and /proc are Linux's, and the apps are fixtures whose middleware runs on every line in middleware/test (flame's agent in flame.test.js): the Node.js version does not change what this tests.
// How nodebench stops the apps it starts (kernel/process-group.js): whatever form starts one (a shell line with
// variables, `npm start`), it runs as a process group of its own and is stopped as a whole: SIGTERM, the grace
// (--stop-grace), SIGKILL with one line saying so. bench and flame exit once done, and no process of the app
// survives them: not when the app lingers after SIGTERM (a timer keeps it alive, as an open database pool does)
// or ignores it, not when nodebench is interrupted (SIGINT) mid-run, not when nodebench itself throws.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { startProcessGroup, processTable } = require('../lib/kernel/process-group')
const { parseBenchArguments } = require('../lib/commands/bench')
const { parseFlameArguments } = require('../lib/commands/flame')
const { parseBrowserArguments } = require('../lib/commands/browser')
const { parseCompareArguments } = require('../lib/commands/compare')
const { temporaryDir, runCli, NODEBENCH_BIN } = require('../../../test/support')

const LINGERING = path.join(__dirname, 'fixtures', 'lingering')
const WORKLOAD = path.join(LINGERING, 'nodebench.workload.js')
const linux = { skip: process.platform !== 'linux' && 'reads /proc' }
const STOP_LINE = /^nodebench: the app \(--cmd "[^"\n]+"\) did not stop by itself within (\d+(\.\d+)?) s of SIGTERM; its process group was killed \(SIGKILL\)$/m

/** The `{ pid, group }` of every app process the fixture started (it writes them to `file`). */
function appProcesses (file) {
  if (!fs.existsSync(file)) return []
  return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => {
    const [pid, group] = line.split(' ').map(Number)
    return { pid, group }
  })
}

/** The processes still running (zombies are gone) that are the app's or in its process groups. */
function leftOf (apps) {
  const pids = new Set(apps.map((app) => app.pid))
  const groups = new Set(apps.map((app) => app.group))
  return processTable().filter((entry) => !entry.zombie && (pids.has(entry.pid) || groups.has(entry.pgid)))
}

/** SIGKILLs what a failed test left, so that it does not outlive the test either. */
function cleanUp (t, file) {
  t.after(() => {
    for (const entry of leftOf(appProcesses(file))) {
      try { process.kill(entry.pid, 'SIGKILL') } catch {}
    }
  })
}

/** `nodebench <argv>` in the fixture's folder, resolving to `{ code, signal, stderr }` (runCli's, with the signal). */
function startCli (argv, env) {
  const child = spawn(process.execPath, [NODEBENCH_BIN, ...argv], { cwd: LINGERING, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk })
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 180_000)
  const done = once(child, 'exit').then(([code, signal]) => {
    clearTimeout(watchdog)
    return { code, signal, stderr }
  })
  return { child, done, stderr: () => stderr }
}

async function until (condition, what) {
  for (let waited = 0; !condition(); waited += 100) {
    if (waited > 120_000) throw new Error(`waited in vain for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const BENCH = ['bench', '--workload', WORKLOAD, '--reps', '1', '--warmup', '5']

test('--stop-grace: seconds from 0 to 600 on every command that starts apps, default 5; anything else is one line, exit 2', async () => {
  const cmd = ['--cmd', 'PORT={port} node server.js', '--workload', WORKLOAD]
  assert.equal(parseBenchArguments(cmd).config.target.stopGraceMs, 5000)
  assert.equal(parseBenchArguments([...cmd, '--stop-grace', '0.5']).config.target.stopGraceMs, 500)
  assert.equal(parseFlameArguments([...cmd, '--stop-grace', '0']).config.target.stopGraceMs, 0)
  const study = path.join(__dirname, '..', '..', '..', 'examples', 'mongo-admin', 'nodebench.workload.js')
  assert.equal(parseBrowserArguments([...cmd, '--workload', study, '--stop-grace', '600']).config.target.stopGraceMs, 600_000)
  const paired = parseCompareArguments(['--cmd-a', 'PORT={port} node a.js', '--cmd-b', 'PORT={port} node b.js', '--workload', WORKLOAD,
    '--stop-grace', '2']).config
  assert.deepEqual(paired.sides.map((side) => side.target.stopGraceMs), [2000, 2000])
  for (const bad of ['-1', 'abc', '', '601', '1e3', 'Infinity']) {
    assert.throws(() => parseBenchArguments([...cmd, `--stop-grace=${bad}`]), (err) => err.code === 'NB_ERR_USAGE' &&
      err.message === `bench: --stop-grace must be the seconds an app may take to stop after SIGTERM, from 0 to 600 (e.g. 5); received '${bad}'`)
  }
  const run = await runCli(['flame', ...cmd, '--stop-grace', 'soon'], { timeout: 60_000 })
  assert.equal(run.code, 2)
  assert.equal(run.stderr, "nodebench: flame: --stop-grace must be the seconds an app may take to stop after SIGTERM, from 0 to 600 (e.g. 5); received 'soon' (usage: nodebench --help)\n")
})

test('a process group: a shell line\'s app, its descendant that left the group, stopped by SIGTERM or by SIGKILL after the grace', linux, async (t) => {
  const dir = temporaryDir(t, 'nodebench-stop-')
  const pids = path.join(dir, 'pids.txt')
  cleanUp(t, pids)
  const lines = []
  // The app lingers after SIGTERM; it has started a helper in a session of its own (setsid), out of its group.
  const helper = `${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)"`
  const app = `require('child_process').spawn('setsid', ['sh', '-c', ${JSON.stringify(helper)}], { stdio: 'ignore' }); ` +
    `require('fs').appendFileSync(${JSON.stringify(pids)}, process.pid + ' ' + require('fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2] + '\\n'); ` +
    "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"
  const group = startProcessGroup(`FOO=1 ${JSON.stringify(process.execPath)} -e ${JSON.stringify(app)}`, [], {
    shell: true, stdio: 'ignore', graceMs: 300, name: 'the lingering app', onForced: (line) => lines.push(line)
  })
  await until(() => appProcesses(pids).length === 1, 'the app')
  const [started] = appProcesses(pids)
  assert.equal(started.group, group.pid, 'the app is in the group of the shell nodebench started')
  // Its helper, by parentage (a setsid helper is in no group of the app's).
  await until(() => processTable().some((entry) => entry.pid !== started.pid && isDescendant(entry.pid, group.pid)), 'the helper')
  const helperPid = processTable().find((entry) => entry.pid !== started.pid && entry.pgid !== group.pid && isDescendant(entry.pid, group.pid))?.pid
  assert.ok(helperPid !== undefined, 'the helper runs out of the app\'s group')
  assert.deepEqual(await group.stop(), { forced: true })
  assert.deepEqual(lines, ['the lingering app did not stop by itself within 0.3 s of SIGTERM; its process group was killed (SIGKILL)'])
  assert.deepEqual(leftOf([started]), [], 'nothing of the group runs')
  assert.ok(!processTable().some((entry) => entry.pid === helperPid && !entry.zombie), 'nor the helper that left it')
  assert.deepEqual(await group.stop(), { forced: true }, 'the same stop, however often called')

  // An app that stops on SIGTERM: no line.
  const quiet = startProcessGroup(`FOO=1 ${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)"`, [], {
    shell: true, stdio: 'ignore', onForced: (line) => lines.push(line)
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.deepEqual(await quiet.stop(), { forced: false })
  assert.equal(lines.length, 1)
})

function isDescendant (pid, ancestor) {
  const parents = new Map(processTable().map((entry) => [entry.pid, entry.ppid]))
  for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === ancestor) return true
  return false
}

test('bench with a shell line with variables: the app lingering after SIGTERM is killed after the grace, bench exits, nothing is left', linux, async (t) => {
  const dir = temporaryDir(t, 'nodebench-stop-')
  const pids = path.join(dir, 'pids.txt')
  cleanUp(t, pids)
  const run = await runCli([...BENCH, '--cmd', 'FOO=1 PORT={port} NODE_ENV=development node server.js', '--stop-grace', '1', '--out', path.join(dir, 'run')],
    { cwd: LINGERING, env: { ...process.env, NODEBENCH_TEST_PIDS: pids }, timeout: 180_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /1 of 1 cells measured/)
  assert.equal(run.stderr.match(new RegExp(STOP_LINE, 'gm')).length, 1, run.stderr)
  assert.equal(STOP_LINE.exec(run.stderr)[1], '1')
  const apps = appProcesses(pids)
  assert.equal(apps.length, 1)
  assert.deepEqual(leftOf(apps), [])
})

test('bench with npm start, the app ignoring SIGTERM: killed after the grace, bench exits, nothing is left', linux, async (t) => {
  const dir = temporaryDir(t, 'nodebench-stop-')
  const pids = path.join(dir, 'pids.txt')
  cleanUp(t, pids)
  const run = await runCli([...BENCH, '--cmd', 'PORT={port} npm start', '--stop-grace', '1', '--out', path.join(dir, 'run')],
    { cwd: LINGERING, env: { ...process.env, NODEBENCH_TEST_PIDS: pids, LINGER: 'ignore' }, timeout: 180_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, STOP_LINE)
  assert.deepEqual(leftOf(appProcesses(pids)), [])
})

test('bench interrupted mid-run (SIGINT): it stops the app and exits 130; an exception in nodebench: the app goes with it', linux, async (t) => {
  const dir = temporaryDir(t, 'nodebench-stop-')
  const pids = path.join(dir, 'pids.txt')
  cleanUp(t, pids)
  const env = { ...process.env, NODEBENCH_TEST_PIDS: pids, LINGER: 'ignore' }
  const cli = startCli([...BENCH, '--cmd', 'PORT={port} npm start', '--duration', '60', '--stop-grace', '1', '--out', path.join(dir, 'a')], env)
  t.after(() => cli.child.kill('SIGKILL'))
  // Mid-run: the cell's load has begun.
  await until(() => appProcesses(pids).length === 1 && /\[1\/1\] home/.test(cli.stderr()), 'the cell to run')
  cli.child.kill('SIGINT')
  const interrupted = await cli.done
  assert.equal(interrupted.code, 130, interrupted.stderr)
  assert.match(interrupted.stderr, /^nodebench: SIGINT: stopping the apps it started$/m)
  assert.match(interrupted.stderr, STOP_LINE)
  assert.deepEqual(leftOf(appProcesses(pids)), [])

  // An exception nodebench does not catch, thrown while the cell runs: nodebench dies of it, the app with it.
  const thrown = path.join(dir, 'thrown.txt')
  cleanUp(t, thrown)
  const crash = await runCli([...BENCH, '--cmd', 'FOO=1 PORT={port} node server.js', '--duration', '60', '--out', path.join(dir, 'b')],
    { cwd: LINGERING, env: { ...env, NODEBENCH_TEST_PIDS: thrown, NODEBENCH_TEST_THROW: '1' }, timeout: 180_000 })
  assert.equal(crash.code, 1)
  assert.match(crash.stderr, /Error: an exception in nodebench mid-run/)
  assert.equal(appProcesses(thrown).length, 1)
  assert.deepEqual(leftOf(appProcesses(thrown)), [])
})

test('flame profiles the app a shell line with variables starts, through npm start; stops it as bench does, also on SIGINT', linux, async (t) => {
  const dir = temporaryDir(t, 'nodebench-stop-')
  const pids = path.join(dir, 'pids.txt')
  cleanUp(t, pids)
  const flame = ['flame', '--workload', WORKLOAD, '--warmup', '0', '--duration', '1', '--connections', '2', '--stop-grace', '0.5']
  const run = await runCli([...flame, '--cmd', 'FOO=1 PORT={port} npm start', '--out', path.join(dir, 'a')],
    { cwd: LINGERING, env: { ...process.env, NODEBENCH_TEST_PIDS: pids }, timeout: 180_000 })
  assert.equal(run.code, 0, run.stderr)
  const profile = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'home-json.cpuprofile'), 'utf8'))
  assert.ok(profile.samples.length > 0)
  // The app's own function is in the profile: the process profiled is the app, not npm.
  assert.ok(profile.nodes.some((node) => node.callFrame.functionName === 'home' && node.callFrame.url.endsWith('server.js')), 'the app\'s handler was sampled')
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'home-comparison.json'), 'utf8'))
  assert.equal(json.flamegraphs[0].operation.route, '/')
  assert.match(run.stderr, STOP_LINE)
  const apps = appProcesses(pids)
  assert.equal(apps.length, 1, 'one app process: npm itself does not count as the app')
  assert.deepEqual(leftOf(apps), [])

  // 0x and clinic run a Node.js script themselves: a shell line is refused in one line that names what works.
  const refused = await runCli([...flame, '--profiler', '0x', '--cmd', 'PORT={port} node server.js'], { cwd: LINGERING, timeout: 60_000 })
  assert.equal(refused.code, 2)
  assert.match(refused.stderr, /^nodebench: flame: --cmd must be a Node\.js script and its arguments, .*; received 'PORT=\{port\} node server\.js'; or use --profiler v8 \(the default\), which profiles the Node\.js process any --cmd starts \(usage: nodebench --help\)\n$/)

  // A command whose app V8's profiler cannot reach (not Node.js, or NODE_OPTIONS taken away): said, not waited for.
  const unreached = await runCli([...flame, '--cmd', 'PORT={port} NODE_OPTIONS= node server.js', '--out', path.join(dir, 'c')],
    { cwd: LINGERING, env: { ...process.env, NODEBENCH_TEST_PIDS: pids }, timeout: 180_000 })
  assert.equal(unreached.code, 1)
  assert.match(unreached.stderr, /^nodebench: the app answers at http:\/\/127\.0\.0\.1:\d+, but no Node\.js process of --cmd loaded the profiler \(through NODE_OPTIONS\): flame profiles a Node\.js app; give its start command, e\.g\. .*$/m)
  assert.deepEqual(leftOf(appProcesses(pids)), [])

  const interrupted = path.join(dir, 'interrupted.txt')
  cleanUp(t, interrupted)
  const cli = startCli([...flame, '--duration', '60', '--cmd', 'FOO=1 PORT={port} node server.js', '--out', path.join(dir, 'b')],
    { ...process.env, NODEBENCH_TEST_PIDS: interrupted, LINGER: 'ignore' })
  t.after(() => cli.child.kill('SIGKILL'))
  await until(() => appProcesses(interrupted).length === 1 && /home \(json\) at http/.test(cli.stderr()), 'the load to run')
  cli.child.kill('SIGINT')
  const outcome = await cli.done
  assert.equal(outcome.code, 130, outcome.stderr)
  assert.match(outcome.stderr, STOP_LINE)
  assert.deepEqual(leftOf(appProcesses(interrupted)), [])
})
