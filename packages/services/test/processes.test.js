'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const { once } = require('node:events')
const { spawn } = require('node:child_process')
const { isAlive, commandOf, terminate, freeLoopbackPort } = require('../lib/processes')
const { deadPid } = require('./helpers')

function spawnNode (script) {
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
}

test('isAlive: this process yes; an exited one, 0 and non-integers no', () => {
  assert.equal(isAlive(process.pid), true)
  assert.equal(isAlive(deadPid()), false)
  assert.equal(isAlive(0), false)
  assert.equal(isAlive('1'), false)
})

test('isAlive: an exited child not yet reaped (a zombie) is gone', { skip: process.platform !== 'linux' }, async (t) => {
  // The shell starts a short sleep in the background and becomes a long `sleep`, which never reaps it. The
  // short one ends after the exec, so the shell cannot have reaped it first.
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] })
  t.after(() => parent.kill('SIGKILL'))
  const [line] = await once(parent.stdout, 'data')
  const zombie = Number(String(line).trim())
  await new Promise((resolve) => setTimeout(resolve, 400))
  assert.match(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8'), /\) Z /, 'the fixture made a zombie')
  assert.equal(isAlive(zombie), false)
})

test('commandOf: argv[0] of a running process; null for a gone one', { skip: process.platform !== 'linux' }, async (t) => {
  const child = spawnNode('setInterval(() => {}, 1000)')
  t.after(() => child.kill('SIGKILL'))
  await once(child, 'spawn')
  assert.equal(commandOf(child.pid), process.execPath)
  assert.equal(commandOf(deadPid()), null)
})

test('terminate: SIGTERM, and SIGKILL for a process that ignores it', async (t) => {
  const polite = spawnNode('setInterval(() => {}, 1000)')
  // The stubborn one says when its handler is in place: on a busy machine, a fixed wait may be too short.
  const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
    { stdio: ['ignore', 'pipe', 'ignore'] })
  t.after(() => { polite.kill('SIGKILL'); stubborn.kill('SIGKILL') })
  await new Promise((resolve) => stubborn.stdout.once('data', resolve))
  await terminate(polite.pid)
  assert.equal(isAlive(polite.pid), false)
  const started = Date.now()
  await terminate(stubborn.pid, { graceMs: 300 })
  assert.equal(isAlive(stubborn.pid), false)
  assert.ok(Date.now() - started >= 300, 'waited the grace period before SIGKILL')
  await terminate(stubborn.pid) // gone already: no error
})

test('freeLoopbackPort: a port that can be listened on', async () => {
  const port = await freeLoopbackPort()
  const server = net.createServer()
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
  await new Promise((resolve) => server.close(resolve))
})
