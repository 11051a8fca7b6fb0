'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { ensureChromium } = require('@nodebench/services')
const { runHook } = require('../kernel/workload')
const { startApp } = require('../kernel/app-process')
const { describeMachine } = require('../kernel/machine')
const { openDatabase } = require('../kernel/database')
const { displayPath } = require('../kernel/paths')
const { round, median } = require('../kernel/statistics')
const { measureLoad } = require('./page-load')
const { NETWORK_PRESETS } = require('./network')

// `runBrowser`, the browser feature's API: the study's client-side half. The app (and its database) started
// as bench starts them (the kernel's), its front ends' pages loaded in Debian's Chromium through playwright-core,
// `runs` times each, cold and warm cache, a fresh context per load; front ends alternate within a run, so a
// drift of the machine touches both alike. One load per page and front end (the first cold one) carries a
// function profile. browser.json is written after every load, so whatever finished is on disk if the run stops.

const RESULTS_SCHEMA = 1
const LAUNCH_ARGS = Object.freeze([
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'
])
const PLACEHOLDER = /\{([A-Za-z_$][\w$]*)\}/g

/** The path of `page` (a name of the workload's pages, or a path) with the setup's values filled in. */
function pagePath (page, browser, values) {
  const template = browser.pages[page] ?? page
  return template.replace(PLACEHOLDER, (whole, name) => {
    if (!Object.hasOwn(values, name)) throw new Error(`page '${page}' uses {${name}}, which no setup returned`)
    return encodeURIComponent(String(values[name]))
  })
}

function loadText (load) {
  if (load.status !== 'ok') return `failed: ${load.failure}`
  const ready = load.readyMs === null ? '' : `, ready ${Math.round(load.readyMs)} ms`
  return `load ${Math.round(load.loadMs)} ms${ready}, heap ${(load.heapUsedAfterGcBytes / 1e6).toFixed(1)} MB after GC`
}

/** Per page, front end and cache: the median of each figure over the runs that loaded, and the heap's spread. */
function summarizeLoads (loads) {
  const groups = new Map()
  for (const load of loads) {
    const key = `${load.page}\u0000${load.frontEnd}\u0000${load.cache}`
    if (!groups.has(key)) groups.set(key, { page: load.page, frontEnd: load.frontEnd, cache: load.cache, loads: [] })
    groups.get(key).loads.push(load)
  }
  return [...groups.values()].map(({ page, frontEnd, cache, loads: all }) => {
    const ok = all.filter((load) => load.status === 'ok')
    const of = (pick) => median(ok.map(pick))
    const heaps = ok.map((load) => load.heapUsedAfterGcBytes)
    const heapMedian = median(heaps)
    const angular = ok.map((load) => load.angular).filter(Boolean)
    return {
      page,
      frontEnd,
      cache,
      runs: all.length,
      failed: all.length - ok.length,
      failures: all.filter((load) => load.status !== 'ok').map((load) => load.failure),
      domContentLoadedMs: of((l) => l.domContentLoadedMs),
      loadMs: of((l) => l.loadMs),
      readyMs: of((l) => l.readyMs),
      heapUsedBytes: of((l) => l.heapUsedBytes),
      heapUsedAfterGcBytes: heapMedian,
      // (max - min) / median of the heap after a forced collection: how stable the figure is across runs.
      heapAfterGcSpread: heaps.length > 1 && heapMedian ? (Math.max(...heaps) - Math.min(...heaps)) / heapMedian : null,
      scriptMs: of((l) => l.scriptMs),
      layoutMs: of((l) => l.layoutMs),
      styleMs: of((l) => l.styleMs),
      requests: of((l) => l.requests),
      bytes: of((l) => l.bytes),
      split: ok.length === 0
        ? null
        : {
            serverMs: of((l) => l.split.serverMs),
            networkMs: of((l) => l.split.networkMs),
            clientMs: of((l) => l.split.clientMs)
          },
      angular: angular.length === 0
        ? null
        : {
            version: angular[0].version,
            scopes: median(angular.map((a) => a.scopes)),
            watchers: median(angular.map((a) => a.watchers)),
            digestMeanMs: median(angular.map((a) => a.digestMeanMs))
          }
    }
  })
}

/**
 * Loads the pages of `config` (browserConfig's) and writes browser.json in its `outDir`. The app's database is
 * kernel/database.js's (MONGODB_URI in `env`, else the `db` service, else one started here). Resolves to
 * `{ results, resultsFile }`.
 */
async function runBrowser (config, { env = process.env, onProgress = () => {} } = {}) {
  const started = Date.now()
  const workload = config.workload
  const browserPart = workload.browser
  fs.mkdirSync(config.outDir, { recursive: true })
  const resultsFile = path.join(config.outDir, 'browser.json')
  const results = {
    schema: RESULTS_SCHEMA,
    createdAt: new Date(started).toISOString(),
    durationSec: 0,
    machine: null,
    config: {
      app: config.target.app === null ? null : displayPath(config.target.app),
      cmd: config.target.cmd,
      url: config.target.url,
      workload: displayPath(workload.file),
      frontEnds: config.frontEnds,
      pages: config.pages,
      caches: config.caches,
      network: config.network,
      networkConditions: NETWORK_PRESETS[config.network],
      runs: config.runs,
      timeoutSec: config.timeoutSec
    },
    workload: {
      name: workload.name, reference: workload.reference?.browser ?? null, source: workload.reference?.source ?? null
    },
    loads: [],
    summary: []
  }
  const save = () => {
    results.durationSec = round((Date.now() - started) / 1000, 1)
    results.summary = summarizeLoads(results.loads)
    fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n')
  }
  let database = null
  let app = null
  let browser = null
  try {
    database = await openDatabase(config.target, workload, { env, onProgress })
    const appEnv = database.env
    results.machine = await describeMachine({ mongodbUri: database.uri, embedded: database.embedded })
    save()
    let values = {}
    // An app at --url runs already; otherwise nodebench starts it, as bench does.
    let base = config.target.url
    if (config.target.starts) {
      values = await runHook(workload.setup, 'setup', workload, { env: appEnv, log: onProgress })
      // The Server-Timing header splits a page's time into server, network and client.
      app = await startApp(config.target, { processes: 1, env: { ...appEnv, NODEBENCH: 'on' }, args: ['--server-timing'] })
      base = app.base
    }
    values = { ...values, ...await runHook(browserPart.setup, 'browser: setup', workload, { base, env: appEnv, log: onProgress, values }) }
    const { chromium } = require('playwright-core')
    const executablePath = await ensureChromium({ onProgress, usedFor: 'measuring page loads (nodebench browser)' })
    browser = await chromium.launch({ executablePath, args: [...LAUNCH_ARGS] })
    results.machine.chromium = browser.version()
    const total = config.pages.length * config.frontEnds.length * config.caches.length * config.runs
    for (const page of config.pages) {
      const pathOfPage = pagePath(page, browserPart, values)
      for (let run = 1; run <= config.runs; run++) {
        for (const cache of config.caches) {
          for (const frontEndName of config.frontEnds) {
            const frontEnd = browserPart.frontEnds[frontEndName]
            const url = frontEnd.url.replace('{path}', pathOfPage)
            const profile = run === 1 && cache === config.caches[0]
            const figures = await measureLoad(browser, {
              url: base + url,
              ready: frontEnd.ready,
              cache,
              network: NETWORK_PRESETS[config.network],
              profile,
              timeoutMs: config.timeoutSec * 1000
            })
            const load = { page, frontEnd: frontEndName, cache, run, url, status: figures.failure ? 'failed' : 'ok', ...figures }
            results.loads.push(load)
            save()
            const done = results.loads.length
            onProgress(`[${done}/${total}] ${page}, ${frontEndName}, ${cache} cache, run ${run}: ${loadText(load)}`)
          }
        }
      }
    }
  } finally {
    if (browser !== null) await browser.close().catch(() => {})
    if (app !== null) await app.stop()
    if (database !== null) await database.stop()
    save()
  }
  return { results, resultsFile }
}

module.exports = { runBrowser, summarizeLoads, pagePath, RESULTS_SCHEMA }
