'use strict'

// Who may read the breakdown and reset it, who gets Server-Timing, and what hostile input to the endpoint
// gets. Every scenario runs on Express 4 and Express 5, against real servers on loopback: a client from
// elsewhere is one whose address a trusted proxy forwards (X-Forwarded-For), as Express's req.ip reports it.

const { describe, test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { nodebenchTrace } = require('..')
const { refusal, isLoopbackAddress } = require('../lib/access')
const { EXPRESS_VERSIONS } = require('./express-harness')
const { listen } = require('./helpers')

const REMOTE = '203.0.113.7'

/** An app with nodebench exposing its breakdown; `configure(app)` sets Express settings first. */
async function start (t, express, options = {}, configure = () => {}) {
  const trace = nodebenchTrace({ exporter: 'none', expose: true, ...options })
  const app = express()
  configure(app)
  app.use(trace)
  app.get('/items/:id', function showItem (req, res) { res.json({ id: req.params.id }) })
  app.get('/unicode', function exp_café (req, res) { res.send('ok') }) // eslint-disable-line camelcase
  const server = await listen(app)
  t.after(async () => {
    await server.close()
    await trace.shutdown()
  })
  return { trace, base: server.base }
}

async function call (base, path, { method = 'GET', headers = {} } = {}) {
  const response = await fetch(base + path, { method, headers })
  const text = await response.text()
  let json = null
  try { json = JSON.parse(text) } catch {}
  return { status: response.status, headers: response.headers, text, json }
}

test('loopback addresses, IPv4, IPv6 and IPv4-mapped, and nothing else', () => {
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackAddress(address), true, address)
  for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '203.0.113.7', '::2', 'fe80::1', 'localhost', '', undefined]) {
    assert.equal(isLoopbackAddress(address), false, String(address))
  }
})

test("the 'local' rule, decided from the address Express reports and the forwarding headers it trusts", () => {
  const app = (trust) => ({ get: (name) => (name === 'trust proxy fn' ? trust : undefined) })
  const notTrusted = () => false
  const trustLoopback = (address) => isLoopbackAddress(address)
  const req = ({ socket = '127.0.0.1', ip = socket, headers = {}, trust = notTrusted }) =>
    ({ socket: { remoteAddress: socket }, ip, headers, app: app(trust) })
  assert.equal(refusal('local', req({}), 'access.read'), null)
  assert.equal(refusal('local', req({ socket: '::1' }), 'access.read'), null)
  assert.match(refusal('local', req({ socket: '10.1.2.3' }), 'access.read'), /^nodebench: access\.read is 'local' \(this machine only\) and the request came from 10\.1\.2\.3$/)
  for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
    assert.match(refusal('local', req({ headers: { [header]: '127.0.0.1' } }), 'access.reset'),
      new RegExp(`^nodebench: access\\.reset is 'local' .* came through a proxy \\(${header} header\\) and Express's 'trust proxy' setting does not trust it`))
  }
  assert.match(refusal('local', req({ ip: REMOTE, headers: { 'x-forwarded-for': REMOTE }, trust: trustLoopback }), 'access.read'), /came from 203\.0\.113\.7$/)
  assert.equal(refusal('local', req({ ip: '127.0.0.1', headers: { 'x-forwarded-for': '127.0.0.1' }, trust: trustLoopback }), 'access.read'), null)
  // A proxy that is not trusted cannot vouch for anyone, whatever it forwards.
  assert.match(refusal('local', req({ socket: '10.1.2.3', ip: '10.1.2.3', headers: { 'x-forwarded-for': '127.0.0.1' }, trust: trustLoopback }), 'access.read'), /came through a proxy/)
  // No address at all: a Unix socket, on this machine.
  assert.equal(refusal('local', { socket: {}, headers: {}, app: app(notTrusted) }, 'access.read'), null)
  assert.equal(refusal('anyone', req({ socket: REMOTE }), 'access.read'), null)
  assert.equal(refusal(() => true, req({ socket: REMOTE }), 'access.read'), null)
  assert.equal(refusal(() => 'yes', req({}), 'access.read'), 'nodebench: refused by the access.read rule', 'only true allows')
  assert.equal(refusal(() => { throw new Error('no db') }, req({}), 'access.read'), 'nodebench: the access.read rule threw; see NODE_DEBUG=nodebench')
})

for (const [label, express] of EXPRESS_VERSIONS) {
  describe(label, () => {
    test('by default only this machine reads and resets: a forwarded client is refused with the reason, and not counted', async (t) => {
      const { trace, base } = await start(t, express)
      await call(base, '/items/1')
      const local = await call(base, '/__nodebench')
      assert.equal(local.status, 200)
      assert.equal(local.json.operations[0].count, 1)

      const proxied = await call(base, '/__nodebench', { headers: { 'x-forwarded-for': REMOTE } })
      assert.equal(proxied.status, 403)
      assert.match(proxied.json.error, /access\.read is 'local' .*came through a proxy \(x-forwarded-for header\).*set 'trust proxy'/)
      const forwarded = await call(base, '/__nodebench', { method: 'DELETE', headers: { forwarded: `for=${REMOTE}` } })
      assert.equal(forwarded.status, 403)
      assert.match(forwarded.json.error, /^nodebench: access\.reset is 'local'/)
      assert.equal(trace.breakdown().operations[0].count, 1, 'the refused DELETE reset nothing')
      assert.deepEqual(trace.breakdown().operations.map((o) => o.route), ['/items/:id'], 'refused requests are not app operations')
    })

    test("behind a proxy the app trusts ('trust proxy'), the client it forwards decides", async (t) => {
      const { base } = await start(t, express, {}, (app) => app.set('trust proxy', 'loopback'))
      const remote = await call(base, '/__nodebench', { headers: { 'x-forwarded-for': REMOTE } })
      assert.equal(remote.status, 403)
      assert.match(remote.json.error, /came from 203\.0\.113\.7$/)
      assert.equal((await call(base, '/__nodebench', { headers: { 'x-forwarded-for': '127.0.0.1' } })).status, 200)
      assert.equal((await call(base, '/__nodebench', { method: 'DELETE', headers: { 'x-forwarded-for': '::1' } })).status, 200)
    })

    test('reading and resetting have rules of their own; a predicate decides for its rule', async (t) => {
      const token = 'a-long-random-token'
      const { trace, base } = await start(t, express, {
        access: { read: 'anyone', reset: (req) => req.get('x-nodebench-token') === token }
      }, (app) => app.set('trust proxy', 'loopback'))
      await call(base, '/items/1')
      const elsewhere = { 'x-forwarded-for': REMOTE }
      assert.equal((await call(base, '/__nodebench', { headers: elsewhere })).status, 200, "read: 'anyone'")
      const refused = await call(base, '/__nodebench', { method: 'DELETE' })
      assert.equal(refused.status, 403)
      assert.equal(refused.json.error, 'nodebench: refused by the access.reset rule')
      assert.equal((await call(base, '/__nodebench', { method: 'DELETE', headers: { 'x-nodebench-token': 'guess' } })).status, 403)
      const reset = await call(base, '/__nodebench', { method: 'DELETE', headers: { ...elsewhere, 'x-nodebench-token': token } })
      assert.equal(reset.status, 200)
      assert.equal(reset.json.operations[0].count, 1)
      assert.deepEqual(trace.breakdown().operations, [])
    })

    test('a predicate that throws refuses; the app carries on', async (t) => {
      const { base } = await start(t, express, { access: { read: () => { throw new Error('token store down') } } })
      const refused = await call(base, '/__nodebench')
      assert.equal(refused.status, 403)
      assert.match(refused.json.error, /the access\.read rule threw/)
      assert.equal((await call(base, '/items/2')).status, 200)
    })

    test('hostile input: any method, a huge query string, any Accept header get a correct answer', async (t) => {
      const { base } = await start(t, express)
      await call(base, '/items/1')
      for (const method of ['PUT', 'PATCH', 'POST', 'OPTIONS']) {
        const answer = await call(base, '/__nodebench', { method })
        assert.equal(answer.status, 405, method)
        assert.equal(answer.headers.get('allow'), 'GET, HEAD, DELETE')
      }
      const propfind = await rawStatus(base, 'PROPFIND', '/__nodebench')
      assert.equal(propfind, 405)
      const head = await fetch(`${base}/__nodebench`, { method: 'HEAD' })
      assert.equal(head.status, 200)
      assert.equal(await head.text(), '')
      const huge = await call(base, `/__nodebench?${'x='.padEnd(12_000, 'y')}`)
      assert.equal(huge.status, 200)
      for (const accept of [';;;,,,', 'text/html;q=abc, */*;q=', 'application/*;q=0.1, image/png', 'x'.repeat(4000), '*/*']) {
        const answer = await call(base, '/__nodebench', { headers: { accept } })
        assert.equal(answer.status, 200, accept.slice(0, 30))
        assert.equal(answer.json.operations[0].count, 1, accept.slice(0, 30))
      }
      const html = await call(base, '/__nodebench', { headers: { accept: 'text/html' } })
      assert.match(html.headers.get('content-type'), /text\/html/)
    })

    test('serverTiming: a predicate chooses the responses that carry it; a throwing one means none; names in the header grammar', async (t) => {
      const { base } = await start(t, express, { serverTiming: (req) => req.get('x-debug-timing') === 'on' })
      assert.equal((await call(base, '/items/1')).headers.get('server-timing'), null)
      const debug = await call(base, '/items/2', { headers: { 'x-debug-timing': 'on' } })
      assert.match(debug.headers.get('server-timing'), /(^|, )showItem;dur=[\d.]+;desc="showItem", total;dur=/)
      // A name with a character the header cannot carry: its token is cut there, its description shows '?'.
      const unicode = await call(base, '/unicode', { headers: { 'x-debug-timing': 'on' } })
      assert.equal(unicode.status, 200)
      assert.match(unicode.headers.get('server-timing'), /(^|, )exp_caf;dur=[\d.]+;desc="exp_caf\?", total/)

      const throwing = await start(t, express, { serverTiming: () => { throw new Error('bad rule') } })
      const answer = await call(throwing.base, '/items/3')
      assert.equal(answer.status, 200)
      assert.equal(answer.headers.get('server-timing'), null)
    })
  })
}

/** A request with a method fetch() refuses to send. */
function rawStatus (base, method, path) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', reject)
    req.end()
  })
}
