'use strict'

// How a request's end is seen: the response's 'finish', or its 'close' when the client went away first,
// on a connection that carries pipelined requests and on a response no HTTP server made (a test harness's
// or a serverless adapter's).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const { Duplex } = require('node:stream')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]

function operationOf (trace, route) {
  return trace.breakdown().operations.find((operation) => operation.route === route)
}

/** Polls until `check()` is true (the breakdown is written when the response ends, after the client saw it). */
async function eventually (check, what) {
  for (let i = 0; i < 200; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.fail(`timed out waiting for ${what}`)
}

/** A raw connection to `base`, for requests written by hand (pipelined): `text()` is what came back so far. */
async function connectRaw (base) {
  const { port } = new URL(base)
  const socket = net.connect(Number(port), '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk) => { received += chunk })
  socket.on('error', () => {})
  await new Promise((resolve) => socket.once('connect', resolve))
  return { socket, text: () => received }
}

for (const [label, express] of EXPRESS_VERSIONS) {
  test(`${label}: pipelined requests on one connection: the answered one finishes, the abandoned one is aborted`, async () => {
    const trace = nodebenchTrace({ exporter: 'none' })
    const app = express()
    app.use(trace)
    app.get('/fast', function fast (req, res) { res.send('fast') })
    let slowStarted
    const slowReached = new Promise((resolve) => { slowStarted = resolve })
    app.get('/slow', function neverAnswers (req, res) { slowStarted() })
    const { base, close } = await listen(app)
    try {
      const { socket, text } = await connectRaw(base)
      socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n')
      await slowReached
      await eventually(() => text().includes('fast'), 'the first answer')
      socket.destroy()
      await eventually(() => operationOf(trace, '/slow')?.aborted === 1, 'the abandoned request to be counted as aborted')
      assert.equal(operationOf(trace, '/fast').count, 1)
      assert.equal(operationOf(trace, '/fast').aborted, 0)
      assert.equal(operationOf(trace, '/slow').count, 1)
    } finally {
      await close()
    }
  })

  test(`${label}: pipelined requests whose middleware goes on later: each timed whole, found without its connection`, async () => {
    // The connection holds the record of the response it answers (request-record.js). A response waiting
    // behind another has no socket yet, and its record is found on the response itself, also when the
    // connection answers nothing at the moment its request begins (the third: the first has finished, the second
    // not yet).
    const trace = nodebenchTrace({ exporter: 'none' })
    const app = express()
    app.use(trace)
    // The third goes on once a request on another connection has run (nodebench looked that one up last).
    let thirdWaits
    const thirdWaiting = new Promise((resolve) => { thirdWaits = resolve })
    let otherRan
    const otherHasRun = new Promise((resolve) => { otherRan = resolve })
    app.use(function later (req, res, next) {
      if (req.url === '/item/3') {
        thirdWaits()
        otherHasRun.then(next)
      } else {
        setTimeout(next, 5)
      }
    })
    app.use(function tag (req, res, next) { res.setHeader('x-tag', req.url); next() })
    app.get('/other', function other (req, res) { res.send('other'); otherRan() })
    app.get('/item/:n', function item (req, res) {
      setTimeout(() => res.send(`item ${req.params.n}`), req.params.n === '2' ? 100 : 5)
    })
    const { base, close } = await listen(app)
    try {
      const { socket, text } = await connectRaw(base)
      const request = (n) => `GET /item/${n} HTTP/1.1\r\nHost: x\r\n\r\n`
      socket.write(request(1) + request(2))
      await eventually(() => text().includes('item 1'), 'the first answer')
      socket.write(request(3))
      await thirdWaiting
      assert.equal(await (await fetch(`${base}/other`)).text(), 'other')
      await eventually(() => text().includes('item 3'), 'the three answers')
      assert.deepEqual(text().match(/item \d/g), ['item 1', 'item 2', 'item 3'])
      await eventually(() => operationOf(trace, '/item/:n')?.count === 3, 'three requests finished')
      const operation = operationOf(trace, '/item/:n')
      assert.equal(operation.aborted, 0)
      for (const name of ['later', 'tag', 'item']) {
        const segment = operation.segments.find((entry) => entry.name === name)
        assert.equal(segment?.count, 3, `${name} timed in each request`)
      }
      socket.destroy()
    } finally {
      await close()
    }
  })

  test(`${label}: a response the server made keeps the properties it has without nodebench, symbols too`, async () => {
    function listKeys (app) {
      app.get('/keys', function keys (req, res) {
        res.json(Reflect.ownKeys(res).map(String))
      })
    }
    const untracedApp = express()
    listKeys(untracedApp)
    const app = express()
    app.use(nodebenchTrace({ exporter: 'none' }))
    listKeys(app)
    const untraced = await listen(untracedApp)
    const traced = await listen(app)
    try {
      const expected = await (await fetch(`${untraced.base}/keys`)).json()
      // The first request finds the app; the later ones are begun before Express sets the response up.
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await (await fetch(`${traced.base}/keys`)).json(), expected)
      }
    } finally {
      await untraced.close()
      await traced.close()
    }
  })

  test(`${label}: a response the server made gets no listener of nodebench's; it ends from the server's channel, or aborted when its connection closes`, async () => {
    function answerListeners (app) {
      app.get('/listeners', function listeners (req, res) {
        res.json({ finish: res.listenerCount('finish'), close: res.listenerCount('close') })
      })
    }
    const untracedApp = express()
    answerListeners(untracedApp)
    const trace = nodebenchTrace({ exporter: 'none' })
    const app = express()
    app.use(trace)
    answerListeners(app)
    let hangReached
    const hangStarted = new Promise((resolve) => { hangReached = resolve })
    app.get('/hang', function neverAnswers (req, res) { hangReached() })
    const untraced = await listen(untracedApp)
    const traced = await listen(app)
    try {
      const expected = await (await fetch(`${untraced.base}/listeners`)).json()
      // Three requests on one kept-alive connection: each finished, none left open for the next.
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await (await fetch(`${traced.base}/listeners`)).json(), expected, 'the same listeners as untraced')
      }
      await eventually(() => operationOf(trace, '/listeners')?.count === 3, 'three requests finished')
      assert.equal(operationOf(trace, '/listeners').aborted, 0)

      const { socket } = await connectRaw(traced.base)
      socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n')
      await hangStarted
      socket.destroy()
      await eventually(() => operationOf(trace, '/hang')?.aborted === 1, 'the abandoned request counted as aborted')
      assert.equal(operationOf(trace, '/hang').count, 1)

      assert.deepEqual(await (await fetch(`${traced.base}/listeners`)).json(), expected)
      await eventually(() => operationOf(trace, '/listeners')?.count === 4, 'a request after the abort finished')
      assert.equal(operationOf(trace, '/listeners').aborted, 0)
    } finally {
      await untraced.close()
      await traced.close()
    }
  })

  test(`${label}: a response no HTTP server made (a harness's) is timed, and counted as aborted when destroyed`, async () => {
    const trace = nodebenchTrace({ exporter: 'none' })
    const app = express()
    app.use(trace)
    app.get('/harness', function answer (req, res) { res.json({ ok: true }) })
    app.get('/harness-abandoned', function abandon (req, res) { setImmediate(() => res.destroy()) })

    function inject (path) {
      const socket = new Duplex({ read () {}, write (chunk, encoding, callback) { callback() } })
      const req = new http.IncomingMessage(socket)
      Object.assign(req, { method: 'GET', url: path, headers: {} })
      const res = new http.ServerResponse(req)
      res.assignSocket(socket)
      app.handle(req, res, (err) => assert.fail(`fell through: ${err}`))
      return res
    }

    const answered = inject('/harness')
    await new Promise((resolve) => answered.once('finish', resolve))
    await eventually(() => operationOf(trace, '/harness')?.count === 1, 'the injected request in the breakdown')
    assert.equal(operationOf(trace, '/harness').aborted, 0)
    assert.equal(operationOf(trace, '/harness').format, 'json')

    const abandoned = inject('/harness-abandoned')
    await new Promise((resolve) => abandoned.once('close', resolve))
    await eventually(() => operationOf(trace, '/harness-abandoned')?.aborted === 1, 'the destroyed response counted as aborted')
  })
}
