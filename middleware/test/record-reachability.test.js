'use strict'

const test = require('node:test')
const assert = require('node:assert')
const path = require('node:path')
const { execFile } = require('node:child_process')

const FIXTURE = path.join(__dirname, 'fixtures', 'record-reachability-app.js')

function serve (mode, client) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', FIXTURE, mode, client], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${mode} ${client}: ${err.message}\n${stderr}`))
      resolve(JSON.parse(stdout))
    })
  })
}

// What survives a request on the real stack is the app's, not nodebench's (benchmarks/LOG.md, "What survives a
// scavenge, counted"): once its response has ended, a record and what it referenced are garbage, also while the
// connection stays open for its next request.
test('the real stack: every record, request and response is collectable after its response, connections open', { timeout: 120_000 }, async () => {
  const bare = await serve('bare', 'remote')
  const traced = await serve('traced', 'remote')
  assert.equal(bare.records, 0)
  assert.equal(traced.observing, false, 'nothing turned the request context on')
  assert.equal(traced.records, traced.requests, 'every request had a record')
  assert.equal(traced.collected.record, traced.records, 'every record collected')
  // The app's own objects: the traced app lets go of as many as the bare one.
  assert.equal(traced.collected.request, bare.collected.request)
  assert.equal(traced.collected.response, bare.collected.response)
  assert.equal(bare.collected.response, bare.requests)
})

// With the request context on (an outgoing call heard, here the client's own), a request's async context outlives
// it on its connection (the HTTP parser's async resource and the keep-alive timer hold it until the connection's
// next request or close: a heap snapshot on Node.js 20). The context holds the record through a holder emptied when
// the response ends (dependencies/calls.js), so every record is collectable then too; holding the record itself,
// 4-5 of 200 stayed reachable, one a kept-alive connection.
test('the real stack with the request context on: every record is collectable after its response too', { timeout: 120_000 }, async () => {
  const traced = await serve('traced', 'local')
  assert.equal(traced.observing, true)
  assert.equal(traced.records, traced.requests)
  assert.equal(traced.collected.record, traced.records, JSON.stringify(traced))
  assert.equal(traced.collected.response, traced.requests)
})
