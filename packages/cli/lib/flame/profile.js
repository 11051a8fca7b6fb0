'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { codes, NodebenchError } = require('@nodebench/errors')
const { baseAt } = require('../kernel/app-target')
const { startProcessGroup, adoptProcess } = require('../kernel/process-group')
const { startWithAgent, appArgv } = require('./agent-app')
const { loadWindow } = require('./load-window')
const { waitForProfile, contextsFileOf } = require('./read-profile')
const { finishFlamegraphPage } = require('./flamegraph-page')

// One flamegraph: the app started under a profiler, warmed up, its sampled window of load, stopped; the
// flamegraph written to `<outDir>/<scenario>-<format>.html`, the profile beside it. Three profilers:
// - `v8`: V8's sampling CPU profiler (v8-agent.js inside the app, through node:inspector), started after
//   the warm-up and stopped before the load ends; a .cpuprofile (Chrome DevTools, VS Code and speedscope
//   open it) and 0x's flamegraph page drawn from it. Its overhead is measured in the same process: the same
//   load's window unprofiled first, then profiled.
// - `0x`: `node --prof` from the start; the analysis keeps the window's samples (their times on V8's log
//   clock, against the process's start), and the flamegraph is drawn again from the window's start on.
// - `clinic`: clinic flame (0x's sampling underneath), whose samples have no times: the whole run counts.
// For 0x and clinic the unprofiled figure comes from the same app run apart, with the same load.
// The app runs as a process group stopped as every app is (SIGTERM, --stop-grace, SIGKILL; 0x's own child is
// adopted as such), and a watchdog kills a profiled process that outlives its run by far, so nothing is left
// behind. It runs with the environment runFlame is given (its database), never this process's own changed for it.

const GRACE_SECONDS = 120
// One sample a millisecond, as --prof takes them (its default interval).
const SAMPLING_INTERVAL_US = 1000

function flameError (message) {
  return new NodebenchError(codes.NB_ERR_FLAME, message)
}

/** The same load's window in the app run without a profiler: what the profiled one's throughput is set against. */
async function unprofiledWindow (config, format, { env, values, onProgress }) {
  onProgress(`${config.scenario} (${format}): the same load without a profiler, for its throughput`)
  const app = await startWithAgent(config, { env })
  try {
    return await loadWindow(windowOptions(config, format, app.base, { env, values, onProgress }))
  } finally {
    await app.stop()
  }
}

function windowOptions (config, format, base, { env, values, onProgress, warmupSec = config.warmup }) {
  return {
    base,
    env,
    workload: config.workload,
    scenario: config.scenario,
    format,
    values,
    warmupSec,
    duration: config.duration,
    connections: config.connections,
    log: onProgress
  }
}

/** `profiled` against `unprofiled` requests/s: the profiler's measured overhead; `how` they were had. */
function overheadOf (profiled, unprofiled, how) {
  const ratio = profiled !== null && unprofiled !== null && unprofiled > 0 ? profiled / unprofiled : null
  return { profiledRequestsPerSec: profiled, unprofiledRequestsPerSec: unprofiled, ratio, how }
}

const APART = 'the same load on the app run apart without a profiler, in the same run'

/**
 * @returns {Promise<{ html, profilePath, load, window, windowUs, breakdown, breakdownFailure, operation,
 *   overhead }>} `profilePath`: the .cpuprofile (v8) or the profiler's folder; `windowUs`: the window on the
 *   profile's clock, null when it has none (clinic); `operation`: the breakdown's measured operation
 */
function profile (config, format, { env = process.env, values = {}, onProgress = () => {} } = {}) {
  const name = `${config.scenario}-${format}`
  const html = path.join(config.outDir, `${name}.html`)
  fs.mkdirSync(config.outDir, { recursive: true })
  const run = { clinic: profileWithClinic, '0x': profileWith0x, v8: profileWithV8 }[config.profiler]
  return run(config, format, { name, html, env, values, onProgress })
}

async function profileWithV8 (config, format, { name, html, env, values, onProgress }) {
  const cpuprofile = path.join(config.outDir, `${name}.cpuprofile`)
  // Each sample's async context, where the app runs @nodebench/trace (read-profile.js reads it beside the profile).
  const contexts = contextsFileOf(cpuprofile)
  fs.rmSync(cpuprofile, { force: true })
  fs.rmSync(contexts, { force: true })
  const app = await startWithAgent(config, { env })
  let before
  let profiled
  let after
  try {
    onProgress(`${config.scenario} (${format}) at ${app.base}: ${config.warmup} s of warm-up, then ${config.duration} s each ` +
      'unprofiled, under V8\'s sampling profiler, unprofiled again')
    before = await loadWindow(windowOptions(config, format, app.base, { env, values, onProgress }))
    profiled = await loadWindow({
      ...windowOptions(config, format, app.base, { env, values, onProgress, warmupSec: 0 }),
      onOpen: () => app.command({ nodebenchProfiler: 'start', intervalUs: SAMPLING_INTERVAL_US }),
      onClose: () => app.command({ nodebenchProfiler: 'stop', file: cpuprofile, contexts })
    })
    after = await loadWindow(windowOptions(config, format, app.base, { env, values, onProgress, warmupSec: 0 }))
  } finally {
    await app.stop()
  }
  // Unprofiled before and after: a drift of the process (or of the machine) hits both sides alike.
  const both = before.requestsPerSec !== null && after.requestsPerSec !== null
  const unprofiled = both ? (before.requestsPerSec + after.requestsPerSec) / 2 : null
  const zeroEks = require('0x')
  await zeroEks({
    visualizeCpuProfile: cpuprofile,
    workingDir: config.outDir,
    outputHtml: html,
    name,
    title: `${config.scenario} (${format}) under load, V8's sampling profiler: nodebench flame`
  })
  if (!fs.existsSync(html)) throw flameError(`0x drew no flamegraph from ${cpuprofile}`)
  finishPage(html, onProgress)
  return {
    html,
    profilePath: cpuprofile,
    ...windowResult(profiled),
    // The .cpuprofile holds the window only: its clock starts when the profiler did.
    windowUs: null,
    overhead: overheadOf(profiled.requestsPerSec, unprofiled, 'the same process, the same load unprofiled before and after the window')
  }
}

/** nodebench's edits to 0x's page (flamegraph-page.js); one that no longer applies to 0x's page is said. */
function finishPage (html, onProgress) {
  for (const edit of finishFlamegraphPage(html)) onProgress(`the flamegraph page is 0x's own: ${edit} could not be applied (a newer 0x?)`)
}

function windowResult ({ load, window, breakdown, breakdownFailure, operation }) {
  return { load, window, breakdown, breakdownFailure, operation }
}

/** When process `pid` started, in ms since the epoch (Linux's /proc), or null. */
function processStartMs (pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
    const bootSec = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))[1])
    // Clock ticks of 1/100 s (USER_HZ) on Linux.
    return (bootSec + startTicks / 100) * 1000
  } catch {
    return null
  }
}

/**
 * 0x starts the app with this process's environment, and takes no other: the node options that give the app
 * `env` instead, a module it preloads that sets what differs (the database's MONGODB_URI). Written in `dir`.
 */
function environmentPreload (env, dir) {
  const set = Object.fromEntries(Object.entries(env).filter(([name, value]) => process.env[name] !== value))
  const unset = Object.keys(process.env).filter((name) => !Object.hasOwn(env, name))
  if (Object.keys(set).length === 0 && unset.length === 0) return []
  const file = path.join(dir, 'environment.js')
  fs.writeFileSync(file, "'use strict'\n// nodebench flame: the environment the app is profiled with.\n" +
    `Object.assign(process.env, ${JSON.stringify(set)})\nfor (const name of ${JSON.stringify(unset)}) delete process.env[name]\n`)
  return ['--require', file]
}

async function profileWith0x (config, format, { name, html, env, values, onProgress }) {
  const zeroEks = require('0x')
  const unprofiled = await unprofiledWindow(config, format, { env, values, onProgress })
  const dataDir = path.join(config.outDir, `${name}.0x`)
  fs.rmSync(dataDir, { recursive: true, force: true })
  const preloadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-flame-'))
  let profiled = null
  let startedMs = null
  let loadFailure = null
  let adopted = null
  const options = {
    argv: [...environmentPreload(env, preloadDir), ...await appArgv(config)],
    pathToNodeBinary: process.execPath,
    workingDir: config.outDir,
    outputDir: dataDir,
    outputHtml: html,
    name,
    title: `${config.scenario} (${format}) under load, 0x: nodebench flame`,
    status: (message) => { if (message.trim()) onProgress(`0x: ${message.trim()}`) },
    onPort (port, done) {
      // 0x's child, not a group of nodebench's: stopped with its descendants should nodebench stop first.
      adopted = adoptProcess(options.pid, { graceMs: config.target.stopGraceMs, name: `the app under 0x (pid ${options.pid})` })
      startedMs = processStartMs(options.pid)
      const base = baseAt(config.target, String(port).trim())
      onProgress(`${config.scenario} (${format}) at ${base}: ${config.warmup} s of warm-up, then ${config.duration} s sampled`)
      loadWindow(windowOptions(config, format, base, { env, values, onProgress }))
        .then((outcome) => { profiled = outcome }, (err) => { loadFailure = err })
        .then(() => done())
    }
  }
  // 0x puts the profiled process's pid on the options object.
  const watchdog = setTimeout(() => {
    onProgress(`0x: the run outlived ${config.warmup + config.duration + GRACE_SECONDS} s; stopping pid ${options.pid}`)
    try { process.kill(options.pid, 'SIGKILL') } catch {}
  }, (config.warmup + config.duration + GRACE_SECONDS) * 1000)
  try {
    await zeroEks(options)
  } catch (err) {
    throw flameError(`0x could not profile ${config.scenario} (${format}): ${err.message}`)
  } finally {
    clearTimeout(watchdog)
    await adopted?.stop()
    fs.rmSync(preloadDir, { recursive: true, force: true })
  }
  if (loadFailure !== null) throw loadFailure
  if (!fs.existsSync(html)) throw flameError(`0x wrote no flamegraph at ${html}`)
  await waitForProfile(dataDir)
  // V8's log clock starts with the process: the window on it, and the flamegraph drawn again from the window
  // on (0x's collectDelay drops what came before; what follows the window is the load's last second).
  const windowUs = startedMs === null
    ? null
    : { startUs: (profiled.window.startMs - startedMs) * 1000, endUs: (profiled.window.endMs - startedMs) * 1000 }
  if (windowUs !== null) {
    // 0x makes the folder relative to workingDir, then reads it relative to the current directory.
    const collectDelay = windowUs.startUs / 1000
    const { title } = options
    await zeroEks({ visualizeOnly: dataDir, workingDir: process.cwd(), outputHtml: html, name, title, collectDelay })
  }
  finishPage(html, onProgress)
  const overhead = overheadOf(profiled.requestsPerSec, unprofiled.requestsPerSec, APART)
  return { html, profilePath: dataDir, ...windowResult(profiled), windowUs, overhead }
}

/**
 * clinic flame, run as its users run it: `clinic flame --on-port <load> -- node <app>`. Clinic asks
 * for permission to send usage statistics and, without a terminal to ask on, exits silently: NO_INSIGHT
 * opts out.
 */
async function profileWithClinic (config, format, { name, html, env, values, onProgress }) {
  const unprofiled = await unprofiledWindow(config, format, { env, values, onProgress })
  const clinicBin = require.resolve('clinic/bin.js')
  const dest = path.join(config.outDir, `${name}.clinic`)
  fs.rmSync(dest, { recursive: true, force: true })
  const onPort = [process.execPath, path.join(__dirname, 'drive-load.js'), '$PORT', config.target.url ?? '-', config.workload.file,
    config.scenario, format, config.warmup, config.duration, config.connections, JSON.stringify(values)]
    .map((word) => (word === '$PORT' ? word : `'${String(word).replace(/'/g, "'\\''")}'`)).join(' ')
  const args = [clinicBin, 'flame', '--dest', dest, '--open=false', '--on-port', onPort, '--', process.execPath, ...await appArgv(config)]
  onProgress(`clinic flame: ${config.scenario} (${format}), ${config.warmup} s of warm-up, ${config.duration} s of load`)
  const output = await new Promise((resolve, reject) => {
    const group = startProcessGroup(process.execPath, args, {
      env: { ...env, NO_INSIGHT: '1' }, stdio: ['ignore', 'pipe', 'pipe'], graceMs: config.target.stopGraceMs, name: 'clinic flame and the app'
    })
    const { child } = group
    let text = ''
    child.stdout.on('data', (chunk) => { text += chunk })
    child.stderr.on('data', (chunk) => { text += chunk })
    const watchdog = setTimeout(() => group.kill(), (config.warmup + config.duration + GRACE_SECONDS) * 1000)
    child.on('error', (err) => { clearTimeout(watchdog); reject(err) })
    child.on('exit', async (code, signal) => {
      clearTimeout(watchdog)
      // What clinic left of the app's processes, if anything.
      await group.stop()
      if (code === 0) resolve(text)
      else reject(flameError(`clinic flame failed on Node.js ${process.version} (${signal || `exit code ${code}`}); use --profiler v8 or 0x. Its output:\n${text.trim().split('\n').slice(-8).join('\n')}`))
    })
  })
  const generated = fs.existsSync(dest) ? fs.readdirSync(dest).find((file) => file.endsWith('.clinic-flame.html')) : undefined
  if (generated === undefined) {
    throw flameError(`clinic flame wrote no flamegraph on Node.js ${process.version}; use --profiler v8 or 0x. Its output:\n${output.trim().split('\n').slice(-8).join('\n')}`)
  }
  fs.renameSync(path.join(dest, generated), html)
  const dataDir = path.join(dest, generated.replace(/\.html$/, ''))
  const line = /^nodebench flame: (\{.*\})$/m.exec(output)
  if (line === null) throw flameError(`clinic flame's load said nothing of its window; its output:\n${output.trim().split('\n').slice(-8).join('\n')}`)
  const profiled = JSON.parse(line[1])
  const overhead = overheadOf(profiled.requestsPerSec, unprofiled.requestsPerSec, APART)
  return { html, profilePath: dataDir, ...windowResult(profiled), windowUs: null, overhead }
}

module.exports = { profile, processStartMs, PROFILERS: Object.freeze(['v8', '0x', 'clinic']) }
