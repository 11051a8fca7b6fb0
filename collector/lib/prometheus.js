'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { ensurePrometheus, freeLoopbackPort, PROJECT_CACHE_DIR } = require('@nodebench/services')
const { startLoggedChild } = require('@nodebench/services/components')
const { codes, NodebenchError } = require('./errors')

// Prometheus as nodebench runs it: Debian's binary (or PROMETHEUS_PATH) with a configuration nodebench
// writes, bound to loopback. One scrape job, `nodebench`, whose targets come from files (file-based service
// discovery): `<dir>/targets/*.json`, which `services start prometheus --target` and bench write, and any
// file a user names. Prometheus watches those files, so targets change without a restart.

const DEFAULT_PORT = 9090
const JOB = 'nodebench'
const DEFAULT_METRICS_PATH = '/metrics'

/** `5000` -> `'5s'`, `1500` -> `'1500ms'`: Prometheus's duration syntax. */
function promDuration (ms) {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

/**
 * The configuration, as JSON (a subset of YAML, which Prometheus reads). `targetsFiles`: more file_sd files
 * (a user's) besides `<targetsDir>/*.json`.
 */
function prometheusConfig ({ targetsDir, scrapeIntervalMs, targetsFiles = [] }) {
  return {
    global: {
      scrape_interval: promDuration(scrapeIntervalMs),
      scrape_timeout: promDuration(Math.min(scrapeIntervalMs, 10_000)),
      evaluation_interval: promDuration(scrapeIntervalMs)
    },
    scrape_configs: [{
      job_name: JOB,
      file_sd_configs: [{ files: [path.join(targetsDir, '*.json'), ...targetsFiles], refresh_interval: '5s' }]
    }]
  }
}

/**
 * A scrape target: `host:port`, `host:port/path` or `http://host:port/path` -> `{ address, path }` (path
 * default /metrics). Throws NB_ERR_PROMETHEUS_TARGET otherwise.
 */
function parseTarget (text) {
  const given = String(text).trim()
  let url
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`)
  } catch {
    url = null
  }
  if (url === null || url.protocol !== 'http:' || url.port === '' || url.username || url.search || url.hash) {
    throw new NodebenchError(codes.NB_ERR_PROMETHEUS_TARGET,
      `scrape target "${text}" is not host:port[/path]; expected e.g. 127.0.0.1:9464 or 127.0.0.1:3000/metrics (an http URL with a port)`)
  }
  return { address: url.host, path: url.pathname === '/' ? DEFAULT_METRICS_PATH : url.pathname }
}

/** Writes `file` whole or not at all (temporary file + rename): Prometheus may read it at any moment. */
function writeAtomically (file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, text)
  fs.renameSync(temporary, file)
}

/**
 * Sets the targets of group `name` (`<targetsDir>/<name>.json`, file_sd's format): `targets` as parseTarget
 * gives them, `labels` added to every series scraped from them. An empty list removes the group.
 */
function writeTargets (targetsDir, name, targets, labels = {}) {
  const file = path.join(targetsDir, `${name}.json`)
  if (targets.length === 0) {
    fs.rmSync(file, { force: true })
    return file
  }
  const byPath = new Map()
  for (const { address, path: metricsPath } of targets) {
    if (!byPath.has(metricsPath)) byPath.set(metricsPath, [])
    byPath.get(metricsPath).push(address)
  }
  const groups = Array.from(byPath, ([metricsPath, addresses]) => ({
    targets: addresses, labels: { __metrics_path__: metricsPath, ...labels }
  }))
  writeAtomically(file, JSON.stringify(groups, null, 2) + '\n')
  return file
}

/** Whether a Prometheus answers ready at `url`. */
async function answers (url) {
  try {
    const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) })
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

/**
 * Starts Prometheus; resolves once it is ready, to `{ pid, url, port, configFile, targetsDir, dataDir,
 * logFile, scrapeIntervalMs, stop() }`.
 * @param {object} [options]
 * @param {string} [options.dir] configuration, targets and log (default <project cache>/prometheus)
 * @param {string} [options.dataDir] its time-series database (default <dir>/data)
 * @param {number} [options.port] default 9090 where free (detached), else a free port
 * @param {number} [options.scrapeIntervalMs] default 5000
 * @param {string[]} [options.targetsFiles] more file_sd files to read targets from
 * @param {boolean} [options.detached] outlives this process (`nodebench services start prometheus`); else it
 *   is stopped when this process exits
 */
async function startPrometheus ({
  dir = path.join(PROJECT_CACHE_DIR, 'prometheus'), dataDir = path.join(dir, 'data'), port, detached = false,
  scrapeIntervalMs = 5000, targetsFiles = [], onProgress, env = process.env, readyTimeoutMs = 60_000
} = {}) {
  const binary = await ensurePrometheus({ onProgress, env })
  const chosenPort = port ?? (detached && !(await answers(`http://127.0.0.1:${DEFAULT_PORT}`)) && await portFree(DEFAULT_PORT)
    ? DEFAULT_PORT
    : await freeLoopbackPort())
  const targetsDir = path.join(dir, 'targets')
  const configFile = path.join(dir, 'prometheus.yml')
  fs.mkdirSync(targetsDir, { recursive: true })
  fs.mkdirSync(dataDir, { recursive: true })
  writeAtomically(configFile, JSON.stringify(prometheusConfig({ targetsDir, scrapeIntervalMs, targetsFiles }), null, 2) + '\n')
  const logFile = path.join(dir, 'prometheus.log')
  const { child, exited, stop } = startLoggedChild(binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${dataDir}`,
    `--web.listen-address=127.0.0.1:${chosenPort}`,
    '--web.enable-lifecycle'
  ], { env, detached, logFile })

  const url = `http://127.0.0.1:${chosenPort}`
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    if (exited() !== null) {
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_START, `Prometheus exited (${exited()}) before it was ready; see ${logFile}`)
    }
    if (await answers(url)) break
    if (Date.now() > deadline) {
      await stop()
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_START, `Prometheus was not ready on ${url} within ${readyTimeoutMs} ms; see ${logFile}`)
    }
    await sleep(100)
  }
  const where = { url, port: chosenPort, configFile, targetsDir, dataDir, logFile }
  return { pid: child.pid, command: binary, ...where, scrapeIntervalMs, targetsFiles, stop }
}

/** Rewrites the configuration of a running Prometheus and has it reload (its lifecycle API). */
async function reconfigure ({ url, configFile, targetsDir, scrapeIntervalMs, targetsFiles }) {
  writeAtomically(configFile, JSON.stringify(prometheusConfig({ targetsDir, scrapeIntervalMs, targetsFiles }), null, 2) + '\n')
  const response = await fetch(`${url}/-/reload`, { method: 'POST', signal: AbortSignal.timeout(10_000) })
  const text = await response.text()
  if (!response.ok) {
    throw new NodebenchError(codes.NB_ERR_PROMETHEUS_START, `Prometheus at ${url} refused the new configuration (${response.status}): ${text.trim()}`)
  }
}

/**
 * Resolves, with the time of the latest of them, once Prometheus at `url` has scraped each of the `count`
 * targets whose series carry `labels` successfully at or after `after` (a Date): what it holds then covers
 * everything those targets had served by `after`. Throws NB_ERR_PROMETHEUS_SCRAPE, with what Prometheus
 * says of each target, when that takes longer than `timeoutMs`.
 */
async function waitForScrapes ({ url, labels, count, after, timeoutMs = 30_000 }) {
  const { PrometheusClient } = require('./prometheus-client')
  const client = new PrometheusClient({ url })
  const selector = Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(String(value))}`).join(',')
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const data = await client.query(`up{${selector}}[1m]`, new Date())
    const latest = data.result.map(({ values }) => values[values.length - 1])
      .filter(([time, value]) => value === '1' && time * 1000 >= after.getTime())
    if (latest.length >= count) return new Date(Math.max(...latest.map(([time]) => time * 1000)))
    if (Date.now() > deadline) {
      throw new NodebenchError(codes.NB_ERR_PROMETHEUS_SCRAPE,
        `Prometheus at ${url} scraped ${latest.length} of ${count} targets {${selector}} within ${timeoutMs / 1000} s ` +
        `after ${after.toISOString()}${await targetHealth(url, labels)}`)
    }
    await sleep(100)
  }
}

/** What Prometheus says of the targets carrying `labels` (their health and last error), for a message. */
async function targetHealth (url, labels) {
  try {
    const response = await fetch(`${url}/api/v1/targets?state=active`, { signal: AbortSignal.timeout(5000) })
    const { data } = await response.json()
    const carries = (target) => Object.entries(labels).every(([name, value]) => target.labels[name] === String(value))
    const targets = data.activeTargets.filter(carries)
    if (targets.length === 0) return '; it has no such target yet (targets files are read within about 5 s)'
    return '; ' + targets.map((target) => `${target.scrapeUrl}: ${target.health}${target.lastError ? ` (${target.lastError})` : ''}`).join(', ')
  } catch {
    return ''
  }
}

/**
 * The Prometheus a bench run scrapes its instances with: the `prometheus` service when it runs (its
 * `state`), else one of the run's own (a temporary directory, scraping every second), stopped by `stop()`.
 * Resolves to `{ url, targetsDir, scrapeIntervalMs, owned, stop() }`.
 */
async function prometheusForRun ({ state = null, onProgress, env = process.env } = {}) {
  if (state !== null && await answers(state.uri)) {
    const { uri: url, targetsDir, scrapeIntervalMs } = state
    return { url, targetsDir, scrapeIntervalMs, owned: false, stop: async () => {} }
  }
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'nodebench-prometheus-'))
  let prometheus
  try {
    prometheus = await startPrometheus({ dir, scrapeIntervalMs: 1000, onProgress, env })
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    url: prometheus.url,
    targetsDir: prometheus.targetsDir,
    scrapeIntervalMs: prometheus.scrapeIntervalMs,
    owned: true,
    async stop () {
      await prometheus.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

function portFree (port) {
  return new Promise((resolve) => {
    const server = require('node:net').createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

module.exports = {
  startPrometheus,
  prometheusForRun,
  reconfigure,
  answers,
  writeTargets,
  parseTarget,
  waitForScrapes,
  prometheusConfig,
  promDuration,
  JOB,
  DEFAULT_PORT
}
