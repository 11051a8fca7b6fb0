'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const express = require('express5')
const { nodebenchTrace } = require('..')
const { serverTimingHeader, metricName } = require('../lib/server-timing')
const { RequestRecord } = require('../lib/request-record')
const { listen } = require('./helpers')

function appWith (trace) {
  const app = express()
  app.use(trace)
  app.param('id', function (req, res, next) { setTimeout(next, 5) })
  app.get('/items/:id', function showItem (req, res) { res.json({ id: req.params.id }) })
  app.get('/late', function sendsLate (req, res) { res.write('x'); setTimeout(() => res.end(), 5) })
  return app
}

test('expose: JSON snapshot for programs, HTML table for browsers, DELETE resets', async () => {
  const trace = nodebenchTrace({ exporter: 'none', expose: '/__nodebench', serviceName: 'exposed' })
  const { base, close } = await listen(appWith(trace))
  try {
    // No dependency observed yet (this file's first test): no requests' context, none said.
    assert.equal(trace.breakdown().requestContext, undefined)
    for (let i = 0; i < 3; i++) await (await fetch(`${base}/items/${i}`)).text()

    const json = await fetch(`${base}/__nodebench`)
    assert.equal(json.status, 200)
    assert.match(json.headers.get('content-type'), /application\/json/)
    const snapshot = await json.json()
    assert.equal(snapshot.schema, 1)
    assert.equal(snapshot.service, 'exposed')
    assert.equal(snapshot.pid, process.pid)
    assert.deepEqual(snapshot.operations.map((o) => `${o.method} ${o.route} ${o.format} ${o.count}`), ['GET /items/:id json 3'])

    const html = await fetch(`${base}/__nodebench`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
    assert.match(html.headers.get('content-type'), /text\/html/)
    const page = await html.text()
    assert.match(page, /<h2>GET \/items\/:id \[json\]<\/h2>/)
    assert.match(page, /<td class="c1">showItem<\/td>/)
    assert.match(page, /<td class="c1">id<\/td><td class="c2">param<\/td>/)

    const deleted = await fetch(`${base}/__nodebench`, { method: 'DELETE' })
    assert.equal((await deleted.json()).operations[0].count, 3, 'DELETE answers with the snapshot it reset')
    assert.deepEqual(trace.breakdown().operations, [], 'the breakdown requests themselves are not counted')

    const post = await fetch(`${base}/__nodebench`, { method: 'POST' })
    assert.equal(post.status, 405)
    assert.match((await post.json()).error, /use GET for the breakdown or DELETE to reset it/)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('expose is off by default: the path is the app\'s', async () => {
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(appWith(trace))
  try {
    assert.equal((await fetch(`${base}/__nodebench`)).status, 404)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('serverTiming: each segment\'s duration in a Server-Timing header', async () => {
  const trace = nodebenchTrace({ exporter: 'none', serverTiming: true })
  const { base, close } = await listen(appWith(trace))
  try {
    await (await fetch(`${base}/items/0`)).text()
    const response = await fetch(`${base}/items/1`)
    const header = response.headers.get('server-timing')
    const metrics = header.split(', ').map((entry) => {
      const [name, dur, desc] = entry.split(';')
      return { name, ms: Number(dur.slice(4)), desc }
    })
    assert.deepEqual(metrics.map((m) => m.name), ['id', 'showItem', 'total'])
    assert.ok(metrics[0].ms >= 4, `param id waited 5 ms, header says ${metrics[0].ms}`)
    assert.ok(metrics[2].ms >= metrics[0].ms + metrics[1].ms)
    assert.equal(metrics[1].desc, 'desc="showItem"')
    // Headers sent before the response ends: the header is still set, once.
    const late = await fetch(`${base}/late`)
    assert.match(late.headers.get('server-timing'), /sendsLate;dur=/)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('serverTiming is off by default', async () => {
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(appWith(trace))
  try {
    await (await fetch(`${base}/items/0`)).text()
    assert.equal((await fetch(`${base}/items/1`)).headers.get('server-timing'), null)
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('Server-Timing metric names are tokens; the readable name is the description', () => {
  assert.equal(metricName('<anonymous> routes/db.js:12'), 'anonymous_routes_db.js_12')
  const record = new RequestRecord('GET', 0)
  record.closeEntry(record.openEntry({ name: 'say "hi"', kind: 'middleware' }), null)
  record.openEntry({ name: 'router', kind: 'router' })
  // Fixed times (after the request's own start and end, request-record.js): the first took 2.5 ms, the router is open.
  record.times.splice(2, 6, 1, 3.5, -1, 1, -1, -1)
  assert.equal(serverTimingHeader(record, 4), 'say_hi;dur=2.500;desc="say \\"hi\\"", total;dur=4.000;desc="nodebench: until headers"')
})
