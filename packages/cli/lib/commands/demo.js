'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const autocannon = require('autocannon')
const { resolveDatabase } = require('@nodebench/services')
const { renderTable, renderMarkdown, renderHtml } = require('@nodebench/breakdown')

// `nodebench demo` (`npm run demo`): the study in one command, on the embedded defaults. It starts the
// database (FerretDB unless MONGODB_URI is set), seeds the example app's 1000 documents, runs the app
// traced by nodebench, drives each of the study's operations in HTML and in JSON with autocannon, and
// prints and writes where each operation's time went, next to the study's figures.

const ROOT = path.resolve(__dirname, '../../../..')
const EXAMPLE = path.join(ROOT, 'examples', 'mongo-admin')

// studyShare: the study's Table 1, 1 process: the share of response time of the function that dominates
// each operation.
// Reads first and writes last: writes grow the collection the collection reads page through (seeding
// again at the end removes what they added). Connections are the study's (100 for reads, 25 for writes),
// except for collection reads: a 1000-document page takes tens of milliseconds to build, so 100 of them
// queued would not complete within a few seconds' run. `nodebench bench` runs the study's exact matrix.
const SCENARIOS = [
  { operation: 'document read', format: 'html', method: 'GET', route: '/db/:database/:collection/:document', path: (id) => `/db/nodebench/users/${id}`, dominant: 'document', studyShare: 0.9883, connections: 100 },
  { operation: 'document read', format: 'json', method: 'GET', route: '/api/db/:database/:collection/:document', path: (id) => `/api/db/nodebench/users/${id}`, dominant: 'document', studyShare: 0.9665, connections: 100 },
  { operation: 'collection read', format: 'html', method: 'GET', route: '/db/:database/:collection', path: () => '/db/nodebench/users', dominant: 'viewCollection', studyShare: 0.9993, connections: 10 },
  { operation: 'collection read', format: 'json', method: 'GET', route: '/api/db/:database/:collection', path: () => '/api/db/nodebench/users', dominant: 'viewCollection', studyShare: 0.9995, connections: 10 },
  { operation: 'document write', format: 'html', method: 'POST', route: '/db/:database/:collection', path: () => '/db/nodebench/users', dominant: 'addDocument', studyShare: 0.9530, connections: 25, form: true },
  { operation: 'document write', format: 'json', method: 'POST', route: '/api/db/:database/:collection', path: () => '/api/db/nodebench/users', dominant: 'addDocument', studyShare: 0.9732, connections: 25 }
]

/**
 * @param {object} options
 * @param {number} options.seconds measured seconds per scenario
 * @param {string} options.outDir where the breakdown files are written
 * @param {NodeJS.WritableStream} options.stdout, options.stderr
 */
async function runDemo ({ seconds, outDir, stdout, stderr }) {
  const progress = (message) => stderr.write(`nodebench demo: ${message}\n`)
  const database = await resolveDatabase({ onProgress: progress })
  const env = { ...process.env, MONGODB_URI: database.uri }
  let server = null
  try {
    progress(`database ${database.source === 'MONGODB_URI' ? 'from MONGODB_URI' : `embedded at ${database.uri}`}; seeding 1000 documents`)
    const documentId = lastLine(await runToEnd([path.join(EXAMPLE, 'seed.js')], env))
    server = await startExampleServer(env)
    progress(`example app at ${server.base}; ${SCENARIOS.length} runs of ${seconds} s`)

    await request(`${server.base}/__nodebench`, 'DELETE')
    for (const [i, scenario] of SCENARIOS.entries()) {
      progress(`[${i + 1}/${SCENARIOS.length}] ${scenario.operation} (${scenario.format}), ${scenario.connections} connections`)
      const result = await load(server.base, scenario, documentId, seconds)
      if (result.non2xx > 0 && scenario.method === 'GET') {
        throw new Error(`${scenario.operation} (${scenario.format}): ${result.non2xx} responses were not 2xx`)
      }
      if (result.requests.total === 0) {
        throw new Error(`${scenario.operation} (${scenario.format}): no response completed in ${seconds} s; try a longer run (--seconds)`)
      }
    }
    const snapshot = JSON.parse(await request(`${server.base}/__nodebench`, 'GET'))
    const studied = {
      ...snapshot,
      // Only the studied operations, in their format (a request cut off when a run ends has no
      // Content-Type: format "other").
      operations: snapshot.operations.filter((o) => SCENARIOS.some((s) => s.method === o.method && s.route === o.route && s.format === o.format))
    }
    stdout.write(renderTable(studied) + '\n')
    stdout.write(renderComparison(studied) + '\n')

    fs.mkdirSync(outDir, { recursive: true })
    fs.writeFileSync(path.join(outDir, 'breakdown.json'), JSON.stringify(snapshot, null, 2) + '\n')
    fs.writeFileSync(path.join(outDir, 'breakdown.md'), renderMarkdown(studied))
    fs.writeFileSync(path.join(outDir, 'breakdown.html'), renderHtml(studied))
    progress(`written: ${path.relative(process.cwd(), outDir) || '.'}/breakdown.{json,md,html}`)
  } finally {
    if (server !== null) await server.stop()
    // Write runs added documents: seeding again removes them.
    await runToEnd([path.join(EXAMPLE, 'seed.js')], env).catch(() => {})
    await database.stop()
  }
  return 0
}

/** "Which function owns the time", here and in the study (1 process). */
function renderComparison (snapshot) {
  const lines = ['', 'The function that owns each operation\'s time (share of response time), here and in the study (1 process):']
  for (const scenario of SCENARIOS) {
    const operation = snapshot.operations.find((o) => o.method === scenario.method && o.route === scenario.route && o.format === scenario.format)
    if (operation === undefined) continue
    const top = operation.segments.reduce((best, segment) => (segment.share > best.share ? segment : best))
    const dominant = operation.segments.find((s) => s.name === scenario.dominant)
    const here = dominant ? `${(dominant.share * 100).toFixed(2)}%` : 'not seen'
    const verdict = top.name === scenario.dominant ? 'same function' : `here ${top.name} leads (${(top.share * 100).toFixed(2)}%)`
    lines.push(`  ${`${scenario.operation} (${scenario.format})`.padEnd(24)} ${scenario.dominant.padEnd(15)} ${here.padStart(8)}   study ${(scenario.studyShare * 100).toFixed(2)}%   ${verdict}`)
  }
  return lines.join('\n')
}

function load (base, scenario, documentId, seconds) {
  const options = {
    url: base + scenario.path(documentId),
    method: scenario.method,
    connections: scenario.connections,
    duration: seconds,
    // As a browser asks for pages (the form's redirect then answers in HTML), and the single-page client for JSON.
    headers: { accept: scenario.format === 'html' ? 'text/html' : 'application/json' }
  }
  if (scenario.method === 'POST') {
    options.headers['content-type'] = scenario.form ? 'application/x-www-form-urlencoded' : 'application/json'
    options.body = scenario.form
      ? new URLSearchParams({ document: '{"username":"testing"}' }).toString()
      : JSON.stringify({ username: 'testing' })
  }
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

function startExampleServer (env) {
  const child = spawn(process.execPath, [path.join(EXAMPLE, 'server.js'), '--port', '0'], {
    env: { ...env, NODEBENCH: 'on' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
  return new Promise((resolve, reject) => {
    let stdout = ''
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`the example app did not start within 60 s:\n${stderr}`))
    }, 60_000)
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const match = /^listening on (http:\/\/\S+)$/m.exec(stdout)
      if (match) {
        clearTimeout(timer)
        resolve({ base: match[1], stop })
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the example app exited with ${code}:\n${stderr}`))
    })
  })
}

function runToEnd (args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${path.basename(args[0])} failed (${code}):\n${stderr}`))))
  })
}

async function request (url, method) {
  const response = await fetch(url, { method })
  const body = await response.text()
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${body}`)
  return body
}

function lastLine (text) {
  return text.trim().split('\n').pop()
}

module.exports = { runDemo, renderComparison, SCENARIOS }
