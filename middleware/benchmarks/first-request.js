'use strict'

// What nodebench adds to an app's first request: test suites that create an app per test (supertest),
// serverless cold starts and new instances all pay it. Each measured process creates N apps (the overhead
// benchmark's app: ten middleware and a JSON route), each with a nodebenchTrace() of its own in the traced
// variants, and sends every app one request, then a second one; it reports each request's latency as the
// client saw it. Bare and traced processes alternate, in a rotated order, for --rounds rounds; the table
// gives medians over the rounds and the traced variants' difference from bare in the same rounds.
//
//   node benchmarks/first-request.js [--apps 1,10,100] [--rounds 7] [--node 20,24] [--variants ...] [--json]
//
// --node takes Node.js versions or lines: each runs on the binary the npm registry ships (cached per user,
// @nodebench/services nodeBinary); without it, the Node.js running this script. Not a timed test: a report.

const http = require('node:http')
const { parseArgs } = require('node:util')
const { execFile } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { median, nodeUnderTest } = require('./harness')

const VARIANTS = Object.freeze({
  bare: null,
  // Breakdown only: what an app that exports no spans pays.
  'nodebench-breakdown': { exporter: 'none' },
  // The defaults (exporter 'otlp', every request sampled), exporting to a closed port: the first requests'
  // spans wait for the export schedule, which this short-lived process never reaches.
  nodebench: {}
})
const TARGET_MS = 5
const CLOSED_ENDPOINT = 'http://127.0.0.1:9'

function list (name, value, parse) {
  const items = value.split(',').map((item) => item.trim()).filter(Boolean)
  if (items.length === 0) throw new TypeError(`--${name} must be a comma-separated list; received ${JSON.stringify(value)}`)
  return items.map((item) => parse(item))
}

function positiveInteger (name) {
  return (text) => {
    const value = Number(text)
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`--${name} must hold positive integers; received ${JSON.stringify(text)}`)
    return value
  }
}

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      apps: { type: 'string', default: '1,10,100' },
      rounds: { type: 'string', default: '7' },
      node: { type: 'string' },
      variants: { type: 'string', default: Object.keys(VARIANTS).join(',') },
      json: { type: 'boolean', default: false },
      child: { type: 'string' }
    },
    strict: true
  })
  const variants = list('variants', values.variants, (name) => {
    if (!Object.hasOwn(VARIANTS, name)) throw new TypeError(`--variants: unknown variant ${JSON.stringify(name)}; expected ${Object.keys(VARIANTS).join(', ')}`)
    return name
  })
  if (!variants.includes('bare')) variants.unshift('bare')
  return {
    apps: list('apps', values.apps, positiveInteger('apps')),
    rounds: positiveInteger('rounds')(values.rounds),
    nodes: values.node === undefined
      ? [null]
      : list('node', values.node, (spec) => {
        if (!/^\d+(\.\d+){0,2}$/.test(spec)) throw new TypeError(`--node must hold Node.js versions such as 20, 24 or 24.21.0; received ${JSON.stringify(spec)}`)
        return spec
      }),
    variants,
    json: values.json,
    child: values.child
  }
}

/** One GET, timed from the call to the end of the body; a fresh connection each time. */
function timedRequest (url) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const request = http.get(url, { agent: false }, (response) => {
      response.resume()
      response.once('end', () => {
        if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}`))
        else resolve(performance.now() - started)
      })
    })
    request.once('error', reject)
  })
}

/** The measured process: `appCount` apps of `variant`, a first and a second request to each. */
async function child (variant, appCount) {
  const express = require('express')
  const { createApp } = require('./app')
  const { nodebenchTrace } = require('@nodebench/trace')
  const servers = []
  for (let i = 0; i < appCount; i++) {
    const tracing = VARIANTS[variant] === null ? null : nodebenchTrace({ serviceName: 'first-request-bench', ...VARIANTS[variant] })
    const server = http.createServer(createApp(express, tracing))
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers.push(server)
  }
  const firstMs = []
  const secondMs = []
  for (const server of servers) {
    const url = `http://127.0.0.1:${server.address().port}/api/items/1`
    firstMs.push(await timedRequest(url))
    secondMs.push(await timedRequest(url))
  }
  for (const server of servers) server.close()
  process.stdout.write(JSON.stringify({ firstMs, secondMs }) + '\n')
}

function runChild (nodePath, variant, appCount) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: CLOSED_ENDPOINT }
    execFile(nodePath, [__filename, '--child', variant, '--apps', String(appCount)], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the ${variant} process with ${appCount} apps failed: ${stderr || error.message}`))
      else resolve(JSON.parse(stdout.trim().split('\n').pop()))
    })
  })
}

function mean (values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** Per round and variant: the first app's first request, the mean first request over the apps, the mean second. */
function roundFigures (result) {
  return { firstApp: result.firstMs[0], meanFirst: mean(result.firstMs), meanSecond: mean(result.secondMs) }
}

/**
 * Medians over the rounds, and for each traced variant the median of its round-by-round difference from
 * bare (both measured in the same round, one after the other).
 */
function summarize (rounds, variants) {
  const rows = []
  for (const variant of variants) {
    const figures = rounds.map((round) => roundFigures(round[variant]))
    const row = { variant }
    for (const key of ['firstApp', 'meanFirst', 'meanSecond']) {
      row[key] = median(figures.map((f) => f[key]))
      if (variant !== 'bare') row[`${key}OverBare`] = median(rounds.map((round) => roundFigures(round[variant])[key] - roundFigures(round.bare)[key]))
    }
    rows.push(row)
  }
  return rows
}

function renderTable (node, appCount, rows) {
  const Table = require('cli-table3')
  const table = new Table({ style: { head: [], border: [] }, head: ['variant', 'first app: 1st request ms', 'over bare', `mean 1st request of ${appCount} ms`, 'over bare', 'mean 2nd request ms'] })
  const over = (value) => (value === undefined ? '' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}`)
  for (const row of rows) {
    table.push([
      row.variant, row.firstApp.toFixed(2), over(row.firstAppOverBare),
      row.meanFirst.toFixed(2), over(row.meanFirstOverBare), row.meanSecond.toFixed(2)
    ])
  }
  const verdicts = rows.filter((row) => row.variant !== 'bare').map((row) => {
    const worst = Math.max(row.firstAppOverBare, row.meanFirstOverBare)
    return `${row.variant}: first request +${worst.toFixed(2)} ms over bare (target <= ${TARGET_MS} ms) ${worst <= TARGET_MS ? 'PASS' : 'FAIL'}`
  })
  return `Node.js ${node}, ${appCount} app(s) per process:\n${table.toString()}\n${verdicts.join('\n')}`
}

async function start (options, log = (line) => process.stderr.write(line + '\n')) {
  const results = []
  for (const spec of options.nodes) {
    const node = await nodeUnderTest(spec, log)
    for (const appCount of options.apps) {
      const rounds = []
      for (let round = 0; round < options.rounds; round++) {
        // Rotated, so no variant always runs first (or right after another) in a round.
        const order = options.variants.map((_, i) => options.variants[(i + round) % options.variants.length])
        const measured = {}
        for (const variant of order) measured[variant] = await runChild(node.path, variant, appCount)
        rounds.push(measured)
        log(`first-request: Node.js ${node.version}, ${appCount} app(s): round ${round + 1} of ${options.rounds}`)
      }
      const summary = summarize(rounds, options.variants)
      results.push({ node: node.version, apps: appCount, rounds: options.rounds, summary })
    }
  }
  return results
}

async function main () {
  const options = parseArguments(process.argv.slice(2))
  if (options.child !== undefined) {
    const appCount = options.apps[0]
    if (!Object.hasOwn(VARIANTS, options.child)) throw new TypeError(`--child must name a variant; received ${options.child}`)
    return child(options.child, appCount)
  }
  const results = await start(options)
  if (options.json) {
    process.stdout.write(JSON.stringify({ schema: 1, targetMs: TARGET_MS, results }, null, 2) + '\n')
    return
  }
  for (const result of results) process.stdout.write(renderTable(result.node, result.apps, result.summary) + '\n\n')
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`first-request: ${err.message}\n`)
    process.exitCode = err instanceof TypeError ? 2 : 1
  })
}

module.exports = { parseArguments, summarize, renderTable, start, VARIANTS, TARGET_MS }
