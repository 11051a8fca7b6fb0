'use strict'

// main() in this process with string streams for what needs no database; the real command in a child
// process, against a real FerretDB, for the rest. Every run points NODEBENCH_STATE_DIR and NODEBENCH_DATA_DIR
// at a temporary dir, so the developer's own `nodebench services start db` is never seen nor touched.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { Writable } = require('node:stream')
const { spawn } = require('node:child_process')
const { MongoClient } = require('mongodb')
const { main } = require('..')
const { runCli, servicesEnv } = require('../../../test/support')

function stringStream () {
  const stream = new Writable({ write (chunk, encoding, done) { stream.text += chunk; done() } })
  stream.text = ''
  return stream
}

async function runMain (argv, env = process.env) {
  const stdout = stringStream()
  const stderr = stringStream()
  const code = await main(argv, { stdout, stderr, env })
  return { code, stdout: stdout.text, stderr: stderr.text }
}

/** An environment whose state and data dirs are temporary; the database left running is stopped after `t`. */
function isolatedServicesEnv (t) {
  return servicesEnv(t, 'nodebench-cli-').env
}

/** Resolves once a TCP connection to the host and port of `uri` opens, rejects when it cannot. */
function connect (uri) {
  const { hostname, port } = new URL(uri)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => { socket.destroy(); resolve() })
    socket.once('error', reject)
  })
}

async function ping (uri) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 })
  try {
    return (await client.db('admin').command({ ping: 1 })).ok
  } finally {
    await client.close()
  }
}

test('help: the usage on stdout, exit 0', async () => {
  for (const argv of [[], ['help'], ['--help']]) {
    const { code, stdout, stderr } = await runMain(argv)
    assert.equal(code, 0)
    assert.match(stdout, /^Usage: nodebench <command>\n/)
    assert.match(stdout, /services start \[db\|jaeger\|prometheus\]/)
    assert.equal(stderr, '')
  }
})

test('a command line not understood: the reason in one line on stderr, exit 2', async () => {
  for (const [argv, reason] of [
    [['frobnicate'], /^nodebench: unknown command 'frobnicate'/],
    [['services', 'start', 'foo'], /^nodebench: unknown service 'foo'; expected one of db, jaeger, prometheus /],
    [['services', 'stop', 'db', 'now'], /^nodebench: services stop: unexpected 'now'/]
  ]) {
    const { code, stdout, stderr } = await runMain(argv)
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, reason)
    assert.match(stderr, / \(usage: nodebench --help\)\n$/)
    assert.equal(stderr.split('\n').length, 2, 'one line')
  }
})

test('a failure with a coded error: `nodebench: <message>`, no stack trace, exit 1', async (t) => {
  const env = isolatedServicesEnv(t)
  // A registered process that does not answer on the registered address.
  const silent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  t.after(() => silent.kill('SIGKILL'))
  fs.mkdirSync(env.NODEBENCH_STATE_DIR, { recursive: true })
  fs.writeFileSync(path.join(env.NODEBENCH_STATE_DIR, 'db.json'), JSON.stringify({
    name: 'db', pid: silent.pid, uri: 'mongodb://127.0.0.1:1/', startedAt: new Date().toISOString(), owner: null
  }))
  const { code, stdout, stderr } = await runMain(['services', 'start', 'db'], env)
  assert.equal(code, 1)
  assert.equal(stdout, '')
  assert.match(stderr, /^nodebench: service "db" is registered as running .* but does not answer; .*\n$/)
  assert.doesNotMatch(stderr, /\n\s+at /)
})

test('services start db: MONGODB_URI last on stdout, running after the CLI exits; status; stop', async (t) => {
  const env = isolatedServicesEnv(t)
  // Run in an app's directory: the URI names its package.json name (without the scope) as the database.
  const appDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-app-'))
  t.after(() => fs.rmSync(appDir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name: '@acme/shop-app' }))
  const started = await runCli(['services', 'start', 'db'], { env, timeout: 60_000, cwd: appDir })
  assert.equal(started.code, 0, started.stderr)
  const lines = started.stdout.trimEnd().split('\n')
  // With a database name: an app pastes it as is.
  const [, uri] = /^MONGODB_URI=(mongodb:\/\/127\.0\.0\.1:\d+\/)shop-app$/.exec(lines.at(-1)) ?? []
  assert.ok(uri, `last stdout line: ${lines.at(-1)}`)
  assert.match(started.stderr, new RegExp(`^nodebench: an app that reads MONGODB_URL or DATABASE_URL takes the same URI: MONGODB_URL=${uri}shop-app `, 'm'))
  assert.equal(started.stderr.split('\n').filter((line) => line.includes('DATABASE_URL')).length, 1, 'said once')
  const [, pid] = /^nodebench: db started \(pid (\d+), log .*ferretdb\.log\); stop it with `nodebench services stop db`$/m
    .exec(started.stderr) ?? []
  assert.ok(pid, started.stderr)
  assert.equal(await ping(uri), 1)

  const again = await runCli(['services', 'start', 'db', '--database', 'shop'], { env, timeout: 60_000 })
  assert.equal(again.stdout, `MONGODB_URI=${uri}shop\n`)
  assert.match(again.stderr, new RegExp(`^nodebench: db already running \\(pid ${pid}, since \\S+\\)$`, 'm'))

  const status = await runCli(['services', 'status', 'db'], { env, timeout: 60_000 })
  assert.equal(status.code, 0)
  assert.match(status.stdout, new RegExp(`^db: running, pid ${pid}, ${uri}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`))

  const stopped = await runCli(['services', 'stop', 'db'], { env, timeout: 60_000 })
  assert.equal(stopped.stdout, `db: stopped (pid ${pid})\n`)
  await assert.rejects(connect(uri), { code: 'ECONNREFUSED' }, 'nothing listens on its port any more')

  assert.equal((await runCli(['services', 'status'], { env, timeout: 60_000 })).stdout, 'db: not running\njaeger: not running\nprometheus: not running\n')
  assert.equal((await runCli(['services', 'stop', 'db'], { env, timeout: 60_000 })).stdout, 'db: not running\n')
})
