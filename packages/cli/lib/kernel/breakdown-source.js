'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')

// Where a bench cell's breakdown comes from (`--breakdown-source`):
// - `app` (default): the app's expose path, /__nodebench, which a node:cluster primary answers for all its
//   workers. Reset before the measured load, read after it.
// - `prometheus`: the metrics every process nodebench starts exports (OTEL_METRICS_EXPORTER=prometheus on a
//   port of its own; a cluster's primary serves its workers'), scraped by Prometheus: the `prometheus`
//   service when it runs, else one the run starts. The window goes from a scrape after the warm-up to a
//   scrape after the load, so it holds exactly the measured requests, and the breakdown covers every instance
//   that served them, named. This is what independent instances need: no process holds all their figures.
//
// Per cell: `const cell = source.forCell(id)`; `cell.instanceEnv()` for each process nodebench starts (the
// variables that make it export its breakdown); `cell.attached()` once they run (again when one is added);
// `cell.gone(env)` when the one given `env` was killed; `cell.begin(base)` after the warm-up; `cell.read(base)`
// after the load; `cell.end()` after the app stopped.

/** Reads (or resets) an app's breakdown at its expose path. */
async function fetchBreakdown (base, method) {
  const response = await fetch(`${base}/__nodebench`, { method, headers: { accept: 'application/json' } })
  const text = await response.text()
  if (response.status === 403) {
    // nodebench's access rule refused: its answer says why (e.g. a proxy in front of the app).
    let reason = text.slice(0, 300)
    try { reason = JSON.parse(text).error } catch {}
    throw new NodebenchError(codes.NB_ERR_BREAKDOWN_READ, `${method} /__nodebench was refused (403): ${reason}. bench reads it from this machine; allow it with nodebenchTrace({ access })`)
  }
  if (!response.ok) throw new NodebenchError(codes.NB_ERR_BREAKDOWN_READ, `${method} /__nodebench answered ${response.status}: is the app traced with nodebenchTrace({ expose: '/__nodebench' })?`)
  return JSON.parse(text)
}

/**
 * `read` with its dropped spans counted over the window since `reset` only: an app counts the spans it could not
 * export since it started (its exporter's count is the process's), while everything else in a snapshot counts
 * from the last reset. A cell's figure is what was dropped while it ran, never the run's total so far.
 */
function droppedInWindow (reset, read) {
  const before = reset?.dropped?.spans
  const after = read?.dropped?.spans
  if (typeof before !== 'number' || typeof after !== 'number') return read
  return { ...read, dropped: { ...read.dropped, spans: Math.max(0, after - before) } }
}

const appSource = Object.freeze({
  kind: 'app',
  forCell () {
    let reset = null
    return {
      instanceEnv: async () => ({}),
      attached () {},
      gone () {},
      begin: async (base) => { reset = await fetchBreakdown(base, 'DELETE') },
      read: async (base) => droppedInWindow(reset, await fetchBreakdown(base, 'GET')),
      end () {}
    }
  },
  async close () {}
})

/**
 * The Prometheus source: `prometheus` is what prometheusForRun gives. Each cell's targets carry the label
 * `nodebench_cell`, which selects its series.
 */
function prometheusSource (prometheus, { freeLoopbackPort, collector }) {
  const group = `bench-${process.pid}`
  return {
    kind: 'prometheus',
    url: prometheus.url,
    owned: prometheus.owned,
    forCell (id) {
      const labels = { nodebench_cell: id }
      const targets = []
      let since = null
      const scraped = (after) => collector.waitForScrapes({
        url: prometheus.url, labels, count: targets.length, after, timeoutMs: 15_000 + 3 * prometheus.scrapeIntervalMs
      })
      return {
        async instanceEnv () {
          const port = await freeLoopbackPort()
          targets.push({ address: `127.0.0.1:${port}`, path: '/metrics' })
          return {
            OTEL_METRICS_EXPORTER: 'prometheus',
            OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
            OTEL_EXPORTER_PROMETHEUS_PORT: String(port)
          }
        },
        attached () {
          collector.writeTargets(prometheus.targetsDir, group, targets, labels)
        },
        /** A killed instance: no more scrapes to wait for (what Prometheus took from it stays in the window). */
        gone (env) {
          const address = `127.0.0.1:${env.OTEL_EXPORTER_PROMETHEUS_PORT}`
          const index = targets.findIndex((target) => target.address === address)
          if (index !== -1) targets.splice(index, 1)
          collector.writeTargets(prometheus.targetsDir, group, targets, labels)
        },
        async begin () {
          // Every target scraped after the warm-up: the baseline of the measured window.
          await scraped(new Date())
          since = new Date()
        },
        async read () {
          await scraped(new Date())
          return collector.breakdownFromPrometheus({ url: prometheus.url, labels, since, until: new Date() })
        },
        end () {
          collector.writeTargets(prometheus.targetsDir, group, [])
        }
      }
    },
    async close () {
      collector.writeTargets(prometheus.targetsDir, group, [])
      await prometheus.stop()
    }
  }
}

/**
 * The operation a cell measured: the breakdown was reset before its load, so it is the operation that
 * served most of the cell's requests with the method they were sent with.
 */
function measuredOperation (breakdown, method) {
  const operations = (breakdown.operations || []).filter((o) => o.method === method)
  if (operations.length === 0) return null
  const busiest = operations.reduce((best, o) => (o.count > best.count ? o : best))
  return { method: busiest.method, route: busiest.route, format: busiest.format }
}

/** The source `config.breakdownSource` names, started (a Prometheus of the run's own when none runs). */
async function openBreakdownSource (config, { env, log }) {
  if (config.breakdownSource === 'app') return appSource
  const collector = require('@nodebench/collector')
  const services = require('./service-table').commandServices()
  const state = services.serviceState('prometheus', { env })
  const prometheus = await collector.prometheusForRun({ state, env, onProgress: log })
  log(prometheus.owned
    ? `breakdowns from a Prometheus of this run's own at ${prometheus.url} (scraping every ${prometheus.scrapeIntervalMs / 1000} s)`
    : `breakdowns from the prometheus service at ${prometheus.url} (scraping every ${prometheus.scrapeIntervalMs / 1000} s)`)
  return prometheusSource(prometheus, { freeLoopbackPort: services.freeLoopbackPort, collector })
}

module.exports = { openBreakdownSource, fetchBreakdown, measuredOperation, droppedInWindow }
