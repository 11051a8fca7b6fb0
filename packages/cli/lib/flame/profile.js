'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { codes, NodebenchError } = require('@nodebench/errors')
const { driveLoad } = require('./drive-load')
const { waitForProfile } = require('./read-profile')

// One flamegraph: the app started under a profiler, driven with one scenario in one format, stopped,
// and the profiler's HTML written to `<outDir>/<scenario>-<format>.html`, its raw data next to it.
// A watchdog kills the profiled process if a run outlives its duration by far, so nothing is left behind.

const GRACE_SECONDS = 120

function flameError (message) {
  return new NodebenchError(codes.NB_ERR_FLAME, message)
}

/**
 * @returns {Promise<{ html, dataDir, load }>} `dataDir`: the profiler's folder (for 0x, with the V8 log)
 */
function profile (config, format, { values = {}, onProgress = () => {} } = {}) {
  const name = `${config.scenario}-${format}`
  const html = path.join(config.outDir, `${name}.html`)
  fs.mkdirSync(config.outDir, { recursive: true })
  return config.profiler === 'clinic'
    ? profileWithClinic(config, format, { name, html, values, onProgress })
    : profileWith0x(config, format, { name, html, values, onProgress })
}

async function profileWith0x (config, format, { name, html, values, onProgress }) {
  const zeroEks = require('0x')
  const dataDir = path.join(config.outDir, `${name}.0x`)
  fs.rmSync(dataDir, { recursive: true, force: true })
  let load = null
  const options = {
    argv: config.argv,
    pathToNodeBinary: process.execPath,
    workingDir: config.outDir,
    outputDir: dataDir,
    outputHtml: html,
    name,
    title: `${config.scenario} (${format}) under load: nodebench flame`,
    status: (message) => { if (message.trim()) onProgress(`0x: ${message.trim()}`) },
    onPort (port, done) {
      const base = `http://127.0.0.1:${String(port).trim()}`
      onProgress(`${config.scenario} (${format}): ${config.duration} s of load at ${base}`)
      const size = { duration: config.duration, connections: config.connections }
      driveLoad({ base, workload: config.workload, scenario: config.scenario, format, values, ...size })
        .then((outcome) => { load = outcome; done() }, done)
    }
  }
  // 0x puts the profiled process's pid on the options object.
  const watchdog = setTimeout(() => {
    onProgress(`0x: the run outlived ${config.duration + GRACE_SECONDS} s; stopping pid ${options.pid}`)
    try { process.kill(options.pid, 'SIGKILL') } catch {}
  }, (config.duration + GRACE_SECONDS) * 1000)
  try {
    await zeroEks(options)
  } catch (err) {
    throw flameError(`0x could not profile ${config.scenario} (${format}): ${err.message}`)
  } finally {
    clearTimeout(watchdog)
  }
  if (!fs.existsSync(html)) throw flameError(`0x wrote no flamegraph at ${html}`)
  await waitForProfile(dataDir)
  return { html, dataDir, load }
}

/**
 * clinic flame, run as its users run it: `clinic flame --on-port <load> -- node <app>`. Clinic asks
 * for permission to send usage statistics and, without a terminal to ask on, exits silently: NO_INSIGHT
 * opts out.
 */
async function profileWithClinic (config, format, { name, html, values, onProgress }) {
  const clinicBin = require.resolve('clinic/bin.js')
  const dest = path.join(config.outDir, `${name}.clinic`)
  fs.rmSync(dest, { recursive: true, force: true })
  const onPort = [process.execPath, path.join(__dirname, 'drive-load.js'), '$PORT', config.workload.file, config.scenario, format,
    config.duration, config.connections, JSON.stringify(values)]
    .map((word) => (word === '$PORT' ? word : `'${String(word).replace(/'/g, "'\\''")}'`)).join(' ')
  const args = [clinicBin, 'flame', '--dest', dest, '--open=false', '--on-port', onPort, '--', process.execPath, ...config.argv]
  onProgress(`clinic flame: ${config.scenario} (${format}), ${config.duration} s of load`)
  const output = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, NO_INSIGHT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (chunk) => { text += chunk })
    child.stderr.on('data', (chunk) => { text += chunk })
    const watchdog = setTimeout(() => child.kill('SIGKILL'), (config.duration + GRACE_SECONDS) * 1000)
    child.on('error', (err) => { clearTimeout(watchdog); reject(err) })
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog)
      if (code === 0) resolve(text)
      else reject(flameError(`clinic flame failed on Node.js ${process.version} (${signal || `exit code ${code}`}); use --profiler 0x. Its output:\n${text.trim().split('\n').slice(-8).join('\n')}`))
    })
  })
  const generated = fs.existsSync(dest) ? fs.readdirSync(dest).find((file) => file.endsWith('.clinic-flame.html')) : undefined
  if (generated === undefined) {
    throw flameError(`clinic flame wrote no flamegraph on Node.js ${process.version}; use --profiler 0x. Its output:\n${output.trim().split('\n').slice(-8).join('\n')}`)
  }
  fs.renameSync(path.join(dest, generated), html)
  const dataDir = path.join(dest, generated.replace(/\.html$/, ''))
  const loadLine = /nodebench flame: (\d+) requests, (\d+) unexpected statuses, (\d+) errors/.exec(output)
  const load = loadLine === null
    ? null
    : { requests: Number(loadLine[1]), unexpectedStatus: Number(loadLine[2]), errors: Number(loadLine[3]) }
  return { html, dataDir, load }
}

module.exports = { profile }
