'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { readServiceState, writeServiceState } = require('@nodebench/services/components')
const { startPrometheus, reconfigure, answers, writeTargets, parseTarget } = require('./prometheus')
const { codes, NodebenchError } = require('./errors')

// `nodebench services start|stop|status prometheus`: the spec @nodebench/services runs Prometheus by. Its
// configuration, targets, log and time-series data are in `<state dir>/prometheus/`. The targets given with
// --target are the `command-line` group; bench writes a group of its own (`bench-<pid>`) while it runs, and
// a group whose bench has gone is removed at the next start.

const COMMAND_LINE_GROUP = 'command-line'
const DEFAULT_SCRAPE_INTERVAL_MS = 5000

/** `5s`, `500ms`, `1m` -> milliseconds, from 100 ms to 5 minutes; else NB_ERR_USAGE. */
function parseInterval (text) {
  const match = /^(\d+)(ms|s|m)$/.exec(String(text).trim())
  const ms = match === null ? NaN : Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2]]
  if (!(ms >= 100 && ms <= 300_000)) {
    throw new NodebenchError(codes.NB_ERR_USAGE,
      `--scrape-interval "${text}" is not a duration from 100ms to 5m; expected e.g. 1s, 5s or 500ms`)
  }
  return ms
}

/** Removes the targets of bench runs that have ended without removing theirs (killed, say). */
function removeOrphanGroups (targetsDir) {
  let files = []
  try {
    files = fs.readdirSync(targetsDir)
  } catch {}
  for (const file of files) {
    const match = /^bench-(\d+)\.json$/.exec(file)
    if (match === null) continue
    try {
      process.kill(Number(match[1]), 0)
    } catch (err) {
      if (err.code === 'ESRCH') fs.rmSync(path.join(targetsDir, file), { force: true })
    }
  }
}

const prometheusService = Object.freeze({
  description: 'Prometheus (scrapes the instances given with --target or in --targets-file, and bench\'s)',
  options: Object.freeze({
    target: { type: 'string', multiple: true },
    'targets-file': { type: 'string', multiple: true },
    'scrape-interval': { type: 'string' }
  }),
  /** The command line's options -> `{ targets?, targetsFiles?, scrapeIntervalMs? }` (only what was given). */
  parseOptions (values) {
    const settings = {}
    if (values.target !== undefined) settings.targets = values.target.map(parseTarget)
    if (values['targets-file'] !== undefined) {
      settings.targetsFiles = values['targets-file'].map((file) => {
        const absolute = path.resolve(file)
        if (!fs.existsSync(absolute)) {
          throw new NodebenchError(codes.NB_ERR_USAGE,
            `--targets-file ${file} does not exist; expected a file of Prometheus's file_sd format (JSON or YAML)`)
        }
        return absolute
      })
    }
    if (values['scrape-interval'] !== undefined) settings.scrapeIntervalMs = parseInterval(values['scrape-interval'])
    return settings
  },
  async start ({ stateDir, onProgress, env, readyTimeoutMs, settings = {} }) {
    const running = readServiceState('prometheus', { stateDir })
    if (running !== null && await answers(running.uri)) {
      if (settings.targets !== undefined) writeTargets(running.targetsDir, COMMAND_LINE_GROUP, settings.targets)
      const wanted = {
        scrapeIntervalMs: settings.scrapeIntervalMs ?? running.scrapeIntervalMs,
        targetsFiles: settings.targetsFiles ?? running.targetsFiles
      }
      const changed = wanted.scrapeIntervalMs !== running.scrapeIntervalMs ||
        wanted.targetsFiles.join() !== running.targetsFiles.join()
      if (changed) {
        const { uri: url, configFile, targetsDir } = running
        await reconfigure({ url, configFile, targetsDir, ...wanted })
        Object.assign(running, wanted)
        writeServiceState(running, { stateDir })
      }
      return { state: running, alreadyRunning: true }
    }
    const dir = path.join(stateDir, 'prometheus')
    removeOrphanGroups(path.join(dir, 'targets'))
    if (settings.targets !== undefined) writeTargets(path.join(dir, 'targets'), COMMAND_LINE_GROUP, settings.targets)
    const prometheus = await startPrometheus({
      detached: true,
      dir,
      scrapeIntervalMs: settings.scrapeIntervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS,
      targetsFiles: settings.targetsFiles ?? [],
      onProgress,
      env,
      readyTimeoutMs
    })
    const state = {
      name: 'prometheus',
      pid: prometheus.pid,
      command: prometheus.command,
      uri: prometheus.url,
      port: prometheus.port,
      configFile: prometheus.configFile,
      targetsDir: prometheus.targetsDir,
      targetsFiles: prometheus.targetsFiles,
      scrapeIntervalMs: prometheus.scrapeIntervalMs,
      dataDir: prometheus.dataDir,
      logFile: prometheus.logFile,
      startedAt: new Date().toISOString(),
      owner: null
    }
    writeServiceState(state, { stateDir })
    return { state, alreadyRunning: false }
  },
  answers: (state) => answers(state.uri),
  // The last line `services start prometheus` prints: where `report --source prometheus` reads.
  env: (state) => ({ PROMETHEUS_URL: state.uri })
})

module.exports = { prometheusService, parseInterval, COMMAND_LINE_GROUP }
