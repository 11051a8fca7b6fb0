'use strict'

// nodebench-test: once. nginx is Debian's: the Node.js version does not change what this tests.
// nginx as bench runs it in front of independent instances: Debian's binary, a configuration of nodebench's
// own on loopback, a reload that takes new upstreams, its own 5xx pages marked, and an access log that says
// which instance served each request and what nginx retried.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { startNginx, parseAccessLog, freeLoopbackPort, PROXY_ERROR_MARK } = require('..')
const { nginxConfig } = require('../lib/nginx')
const { temporaryDir } = require('./helpers')

async function instance (t, name) {
  const server = http.createServer((req, res) => res.end(name))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () => new Promise((resolve) => {
    server.closeAllConnections()
    server.close(resolve)
  })
  t.after(close)
  return { address: `127.0.0.1:${server.address().port}`, close }
}

test('the configuration: the study\'s upstream directives, the balancer, loopback, and keepalive_min_timeout where nginx has it', () => {
  const config = nginxConfig({ dir: '/tmp/x', port: 8080, upstreams: ['127.0.0.1:1', '127.0.0.1:2'], balancer: 'least_conn', version: [1, 22, 1] })
  assert.match(config, /upstream nodebench_instances \{\n {4}least_conn;\n {4}server 127\.0\.0\.1:1 max_fails=3 fail_timeout=30s;\n {4}server 127\.0\.0\.1:2 max_fails=3 fail_timeout=30s;/)
  assert.match(config, /listen 127\.0\.0\.1:8080 /)
  assert.doesNotMatch(config, /^\s*keepalive_min_timeout/m)
  const roundRobin = nginxConfig({ dir: '/tmp/x', port: 8080, upstreams: ['127.0.0.1:1'], balancer: 'round_robin', version: [1, 27, 4] })
  assert.doesNotMatch(roundRobin, /least_conn/)
  assert.match(roundRobin, /^\s*keepalive_min_timeout 2s;/m)
})

test('nginx balances over the instances, takes a new one on reload, retries a dead one elsewhere, and marks its own 502', { timeout: 60_000 }, async (t) => {
  const [a, b, c] = [await instance(t, 'a'), await instance(t, 'b'), await instance(t, 'c')]
  const dir = temporaryDir(t)
  const nginx = await startNginx({ dir: path.join(dir, 'nginx'), port: await freeLoopbackPort(), upstreams: [a.address, b.address], balancer: 'round_robin' })
  t.after(() => nginx.stop())
  const get = async () => {
    const response = await fetch(`${nginx.url}/x`)
    return [response.status, await response.text()]
  }
  const seen = new Set()
  for (let i = 0; i < 6; i++) seen.add((await get())[1])
  assert.deepEqual([...seen].sort(), ['a', 'b'])
  await nginx.setUpstreams([a.address, b.address, c.address])
  // An old worker serves a kept-alive connection as long as requests keep coming on it; a pause lets it go.
  let reached = false
  for (let i = 0; i < 100 && !reached; i++) {
    reached = (await get())[1] === 'c'
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.ok(reached, 'the reloaded nginx sends to the new instance')

  await a.close()
  for (let i = 0; i < 6; i++) assert.deepEqual((await get())[0], 200, 'requests to the dead instance are retried on another')
  await b.close()
  await c.close()
  const [status, body] = await get()
  assert.equal(status, 502)
  assert.ok(body.includes(PROXY_ERROR_MARK), body)

  await assert.rejects(nginx.setUpstreams(['not an address']), (err) => err.code === 'NB_ERR_NGINX_START' && /nginx -t/.test(err.message))
  await nginx.stop()
  const log = parseAccessLog(fs.readFileSync(nginx.accessLog, 'utf8'))
  assert.ok(log.some((entry) => entry.attempts.length > 1 && entry.attempts[0].address === a.address && entry.status === 200),
    'the log shows a request nginx retried after the dead instance')
  assert.ok(log.some((entry) => entry.status === 502 && entry.attempts.every((attempt) => attempt.status === 502)))
})

test('the access log\'s lines: time, status, and every attempt with its instance and answer', () => {
  const lines = [
    '1795610166.723|200|127.0.0.1:1, 127.0.0.1:2|502, 200',
    '1795610166.731|200|127.0.0.1:3|200',
    '1795610166.739|502|127.0.0.1:2, 127.0.0.1:3 : -|502, 502 : -',
    'garbage'
  ]
  assert.deepEqual(parseAccessLog(lines.join('\n')), [
    { time: 1795610166723, status: 200, attempts: [{ address: '127.0.0.1:1', status: 502 }, { address: '127.0.0.1:2', status: 200 }] },
    { time: 1795610166731, status: 200, attempts: [{ address: '127.0.0.1:3', status: 200 }] },
    { time: 1795610166739, status: 502, attempts: [{ address: '127.0.0.1:2', status: 502 }, { address: '127.0.0.1:3', status: 502 }] }
  ])
})
