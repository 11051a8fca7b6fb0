'use strict'

// The first run of most apps: the default exporter (OTLP to localhost:4318) and no collector there. The app
// says so once, in one line naming where nothing answered and the two ways out, and goes on; the spans it
// could not send are counted, never buffered.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { closedPort } = require('./helpers')

const FIXTURE = path.join(__dirname, 'fixtures', 'no-collector-app.js')

function runApp (env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FIXTURE], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr }))
      else resolve({ stdout, stderr })
    })
  })
}

test('no collector: one line at the first failed export, with where nothing answered and the two ways out', { timeout: 90_000 }, async () => {
  const port = await closedPort()
  const { stdout, stderr } = await runApp({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' })
  const lines = stderr.split('\n').filter((line) => line.startsWith('nodebench:'))
  assert.deepEqual(lines, [`nodebench: no OTLP collector answered at http://127.0.0.1:${port}/v1/traces (ECONNREFUSED), so spans are dropped ` +
    "(counted in the breakdown's dropped.spans) and not built until one answers (tried again every 5 s). Start one: npx nodebench services start jaeger; or keep the breakdown alone: " +
    "nodebenchTrace({ exporter: 'none' })"], stderr)
  const dropped = JSON.parse(stdout)
  assert.ok(dropped.spans >= 40, `every request's spans dropped and counted: ${dropped.spans}`)
})
