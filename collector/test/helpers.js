'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startJaeger, startPrometheus } = require('..')
const { setEnv } = require('../../test/support')

/** A real Jaeger on free loopback ports, logging to a temporary file; stopped when test `t` ends. */
async function startTestJaeger (t, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-jaeger-'))
  const jaeger = await startJaeger({ logFile: path.join(dir, 'jaeger.log'), onProgress: (m) => t.diagnostic(m), ...options })
  t.after(async () => {
    await jaeger.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return jaeger
}

/** A real Prometheus on a free loopback port, scraping every second, in a temporary folder; stopped when `t` ends. */
async function startTestPrometheus (t, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-prometheus-'))
  const prometheus = await startPrometheus({ dir, scrapeIntervalMs: 1000, onProgress: (m) => t.diagnostic(m), ...options })
  t.after(async () => {
    await prometheus.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return prometheus
}

/** Polls `check` (async, returns a value or undefined) until it gives a value or `timeoutMs` passes. */
async function eventually (check, { timeoutMs = 20_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs
  let last
  for (;;) {
    last = await check()
    if (last !== undefined) return last
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

module.exports = { startTestJaeger, startTestPrometheus, setEnv, eventually }
