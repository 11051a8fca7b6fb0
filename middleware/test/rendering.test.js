'use strict'

// Rendering inside a segment (lib/dependencies/rendering.js): res.render with real engines (pug, ejs, hbs,
// express-handlebars, nunjucks) and res.json / res.jsonp / res.send of an object are reported under the segment
// that called them (`render pug home`, `serialize json`), renders as INTERNAL spans under its span, on Express 4 and 5;
// the responses are the same bytes as without nodebench, render errors included.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { setTimeout: sleep } = require('node:timers/promises')
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace')
const nunjucks = require('nunjucks')
const hbs = require('hbs')
const { engine: handlebarsEngine } = require('express-handlebars')
const { nodebenchTrace } = require('..')
const { engineOf, viewTarget } = require('../lib/dependencies/rendering')
const { listen } = require('./helpers')
const { recorded, operation, segment, dependency, assertConsistent } = require('./breakdown-assertions')

const EXPRESS_VERSIONS = [['express 4', require('express4')], ['express 5', require('express5')]]
const WAIT_MS = 15
const SLOW_ENGINE_MS = 40

const TEMPLATES = {
  'home.pug': 'h1 Hello #{name}\np= items.join(", ")\n',
  'broken.pug': 'h1(class=\n',
  'admin/users.ejs': '<ul><% users.forEach(function (u) { %><li><%= u %></li><% }) %></ul>\n',
  'card.hbs': '<div class="card">{{name}}</div>\n',
  'page.handlebars': '<p>{{name}} has {{count}}</p>\n',
  'list.njk': '<ol>{% for u in users %}<li>{{ u }}</li>{% endfor %}</ol>\n',
  'wait.slow': 'unused'
}

let viewsDir
let upstream

before(async () => {
  viewsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-rendering-'))
  for (const [name, text] of Object.entries(TEMPLATES)) {
    fs.mkdirSync(path.dirname(path.join(viewsDir, name)), { recursive: true })
    fs.writeFileSync(path.join(viewsDir, name), text)
  }
  // A service the app calls while it renders: answers after 30 ms.
  upstream = await listen(http.createServer((req, res) => setTimeout(() => res.end('{"ok":true}'), 30)))
})

after(async () => {
  await upstream?.close()
  if (viewsDir) fs.rmSync(viewsDir, { recursive: true, force: true })
})

const ROUTES = ['/pug', '/ejs', '/hbs', '/handlebars', '/nj/list', '/slow', '/callback', '/overlap', '/json',
  '/send-object', '/jsonp?cb=show', '/missing', '/broken', '/no-engine']

function buildApp (express, trace) {
  const app = express()
  if (trace !== null) app.use(trace)
  app.set('views', viewsDir)
  app.set('view engine', 'pug')
  app.engine('hbs', hbs.__express)
  app.engine('handlebars', handlebarsEngine({ defaultLayout: false }))
  // An engine of the app's own that answers later: the render lasts until its callback.
  app.engine('slow', (file, options, callback) => setTimeout(() => callback(null, `slow ${options.name}`), SLOW_ENGINE_MS))
  app.get('/pug', async function showHome (req, res) {
    await sleep(WAIT_MS)
    res.render('home', { name: 'ada', items: ['a', 'b'] })
  })
  app.get('/ejs', async function listUsers (req, res) {
    await sleep(WAIT_MS)
    res.render('admin/users.ejs', { users: ['ada', 'alan'] })
  })
  app.get('/hbs', function showCard (req, res) {
    res.render('card.hbs', { name: 'grace' })
  })
  app.get('/handlebars', async function showPage (req, res) {
    await sleep(WAIT_MS)
    res.render(path.join(viewsDir, 'page.handlebars'), { name: 'ada', count: 3 })
  })
  app.get('/slow', function waitForEngine (req, res) {
    res.render('wait.slow', { name: 'x' })
  })
  app.get('/callback', function renderOwnWay (req, res, next) {
    res.render('home', { name: 'cb', items: [] }, (err, html) => {
      if (err) return next(err)
      res.type('html').send(html.toUpperCase())
    })
  })
  // A render while an outgoing call is pending, and the call awaited after: counted once (their union).
  app.get('/overlap', async function renderWhileCalling (req, res, next) {
    const pending = fetch(`${upstream.base}/`).then((r) => r.text())
    res.render('home', { name: 'both', items: [] }, async (err, html) => {
      if (err) return next(err)
      await pending
      res.send(html)
    })
  })
  app.get('/json', async function sendJson (req, res) {
    await sleep(WAIT_MS)
    res.json({ users: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}` })) })
  })
  app.get('/send-object', function sendObject (req, res) {
    res.send({ ok: true, list: [1, 2, 3] })
  })
  app.get('/jsonp', function sendJsonp (req, res) {
    res.jsonp({ ok: true })
  })
  app.get('/missing', function renderMissing (req, res) {
    res.render('nowhere')
  })
  app.get('/broken', function renderBroken (req, res) {
    res.render('broken')
  })
  app.get('/no-engine', function renderUnknown (req, res) {
    res.render('home.unknownengine')
  })
  // nunjucks brings its own view class: in a mounted app of its own.
  const nj = express()
  nunjucks.configure(viewsDir, { express: nj, noCache: true })
  nj.get('/list', async function showList (req, res) {
    await sleep(WAIT_MS)
    res.render('list.njk', { users: ['ada', 'alan'] })
  })
  app.use('/nj', nj)
  // The stack would name the wrappers' frames: the message and status are what the app answers.
  app.use(function onError (err, req, res, next) {
    res.status(500).type('text').send(`error: ${err.message.split('\n')[0]}`)
  })
  return app
}

async function responses (base) {
  const answers = {}
  for (const route of ROUTES) {
    const response = await fetch(base + route)
    answers[route] = { status: response.status, type: response.headers.get('content-type'), etag: response.headers.get('etag'), body: await response.text() }
  }
  return answers
}

for (const [label, express] of EXPRESS_VERSIONS) {
  test(`${label}: renders and serialisations are reported under their segment, the responses unchanged`, { timeout: 120000 }, async (t) => {
    // Without nodebench first: this Express's methods are not wrapped yet.
    const plain = await listen(buildApp(express, null))
    t.after(() => plain.close())
    const expected = await responses(plain.base)
    assert.match(expected['/pug'].body, /<h1>Hello ada<\/h1>/)
    assert.equal(expected['/missing'].status, 500)
    assert.equal(expected['/broken'].status, 500)

    const exporter = new InMemorySpanExporter()
    const trace = nodebenchTrace({ serviceName: 'rendering', exporter, metrics: { prometheus: '/metrics' } })
    t.after(() => trace.shutdown())
    const traced = await listen(buildApp(express, trace))
    t.after(() => traced.close())
    await responses(traced.base) // the first request finds the app, and each engine loads
    await recorded(trace, ROUTES.length)
    trace.reset()
    exporter.reset()

    assert.deepEqual(await responses(traced.base), expected, 'the same status, headers and bytes as without nodebench')
    const snapshot = await recorded(trace, ROUTES.length)
    for (const op of snapshot.operations) assertConsistent(op)

    const home = dependency(segment(operation(snapshot, '/pug'), 'showHome'), 'render', 'pug', 'home')
    assert.equal(home.count, 1)
    assert.ok(home.meanMs > 0 && home.share > 0 && home.share < 1, JSON.stringify(home))
    assert.equal(dependency(segment(operation(snapshot, '/ejs'), 'listUsers'), 'render', 'ejs', 'admin/users').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/hbs'), 'showCard'), 'render', 'handlebars', 'card').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/handlebars'), 'showPage'), 'render', 'handlebars', 'page').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/nj/list'), 'showList'), 'render', 'nunjucks', 'list').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/callback'), 'renderOwnWay'), 'render', 'pug', 'home').count, 1)

    // An async engine: the render lasts until its callback.
    const slow = segment(operation(snapshot, '/slow'), 'waitForEngine')
    const slowRender = dependency(slow, 'render', 'slow', 'wait')
    assert.ok(slowRender.meanMs >= SLOW_ENGINE_MS * 0.9, `${slowRender.meanMs} ms`)

    // A render while a call is pending: both reported, never more than the segment (assertWithinSegment).
    const overlap = segment(operation(snapshot, '/overlap'), 'renderWhileCalling')
    dependency(overlap, 'render', 'pug', 'home')
    assert.ok(overlap.dependencies.find((d) => d.system === 'http'), JSON.stringify(overlap.dependencies))

    const json = dependency(segment(operation(snapshot, '/json'), 'sendJson'), 'serialize', 'json', '')
    assert.equal(json.count, 1)
    assert.ok(json.meanMs > 0)
    assert.equal(dependency(segment(operation(snapshot, '/send-object'), 'sendObject'), 'serialize', 'json', '').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/jsonp'), 'sendJsonp'), 'serialize', 'jsonp', '').count, 1)

    // Render errors: timed, then handed to next() as before; an engine nobody has: the throw reaches the app.
    assert.equal(dependency(segment(operation(snapshot, '/missing'), 'renderMissing'), 'render', 'pug', 'nowhere').count, 1)
    assert.equal(dependency(segment(operation(snapshot, '/broken'), 'renderBroken'), 'render', 'pug', 'broken').count, 1)

    // Spans: each render an INTERNAL span under its segment's span, without the template's data.
    await trace.flush()
    const spans = exporter.getFinishedSpans()
    const showHome = spans.find((span) => span.name === 'request handler - showHome' || span.name === 'handler - showHome')
    assert.ok(showHome, spans.map((span) => span.name).join(', '))
    const render = spans.find((span) => span.name === 'render home' && span.parentSpanContext?.spanId === showHome.spanContext().spanId)
    assert.ok(render, 'render home under showHome')
    assert.equal(render.kind, 0, 'INTERNAL')
    assert.deepEqual(render.attributes, {
      'nodebench.dependency.system': 'render', 'nodebench.dependency.operation': 'pug', 'nodebench.dependency.target': 'home'
    })
    assert.ok(!JSON.stringify(spans.map((span) => span.attributes)).includes('ada'), 'no template data')
    const broken = spans.find((span) => span.name === 'render broken')
    assert.equal(broken.status.code, 2, 'a failed render is an error span')
    assert.equal(spans.find((span) => span.name.startsWith('serialize')), undefined, 'a serialisation has no span')

    // The metrics carry them as dependencies.
    const metrics = await (await fetch(`${traced.base}/metrics`)).text()
    assert.match(metrics, /nodebench_dependency_system="render",nodebench_dependency_operation="pug",nodebench_dependency_target="home"/)
  })
}

test('engine names: the package that exports the engine, the view class an engine installed, else the extension', () => {
  const express = require('express5')
  const app = express()
  app.engine('html', require('ejs').renderFile)
  app.engine('hbs', hbs.__express)
  assert.equal(engineOf(app, '.html'), 'ejs')
  assert.equal(engineOf(app, '.hbs'), 'handlebars')
  assert.equal(engineOf(app, '.pug'), 'pug')
  assert.equal(engineOf(app, '.njk'), 'nunjucks')
  assert.equal(engineOf(app, ''), 'unknown')
  const nj = express()
  nunjucks.configure(viewsDir, { express: nj })
  assert.equal(engineOf(nj, '.html'), 'nunjucks')
  app.set('views', ['/srv/app/views', '/srv/shared/views'])
  assert.equal(viewTarget(app, '/srv/shared/views/mail/welcome.html', '.html'), 'mail/welcome')
  assert.equal(viewTarget(app, 'home', '.pug'), 'home')
  assert.equal(viewTarget(app, './admin/../home.pug', '.pug'), 'home')
  assert.equal(viewTarget(app, '/elsewhere/x.pug', '.pug'), '/elsewhere/x')
})

test('a render\'s INTERNAL span and a serialisation\'s none: the encoder writes the serializer\'s bytes', () => {
  const resources = require('@opentelemetry/resources')
  const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer')
  const { RequestRecord } = require('../lib/request-record')
  const { DirectSpanWriter } = require('../lib/sdk-spans')
  const { RecordSpanEncoder } = require('../lib/otlp-encoder')
  const { ProtoWriter, frameExportRequest, encodeResource, encodeScope } = require('../lib/proto-writer')
  const { DependencyCall } = require('../lib/dependencies/calls')
  const { describeDependency } = require('../lib/dependencies/describe')
  const scope = { name: '@nodebench/trace', version: '0.1.0' }
  const render = describeDependency('render', 'pug', '.pug', 'home', () => ({
    system: 'render',
    operation: 'pug',
    target: 'home',
    spanName: 'render home',
    spanKind: 'internal',
    attributes: { 'nodebench.dependency.system': 'render', 'nodebench.dependency.operation': 'pug', 'nodebench.dependency.target': 'home' }
  }))
  const serialize = describeDependency('serialize', '', 'json', '', () => ({
    system: 'serialize', operation: 'json', target: '', spanName: 'serialize json', spanKind: 'none', attributes: {}
  }))
  const record = new RequestRecord('GET', 1000)
  record.sampled = true
  record.traceId = '0af7651916cd43dd8448eb211c80319c'
  record.spanId = 'b7ad6b7169203331'
  const handler = record.openEntry({ key: 'handler showHome /srv/app.js:1', name: 'showHome', kind: 'handler', file: '/srv/app.js', line: 1, spanTemplate: null })
  // An entry's start and end in the record's times, after the request's own (request-record.js).
  record.times[2 + handler * 2] = 1000
  record.dependencyCalls = [
    Object.assign(new DependencyCall(render, handler, 1002), { endMs: 1008, error: 'Error' }),
    Object.assign(new DependencyCall(serialize, handler, 1009), { endMs: 1010 })
  ]
  record.route = '/'
  record.finish({ statusCode: 200, getHeader: () => 'text/html' }, false)
  record.times[2 + handler * 2 + 1] = 1011
  record.endMs = 1012
  let next = 1
  const ids = () => ({
    generateSpanId: () => (next++).toString(16).padStart(16, '0'),
    write (target, offset) { target.write((next++).toString(16).padStart(16, '0'), offset, 8, 'hex') }
  })
  const resource = resources.resourceFromAttributes({ 'service.name': 'rendering' })
  const spans = []
  new DirectSpanWriter({ onEnd: (span) => spans.push(span) }, resource, ids(), scope).write(record, '/')
  next = 1
  const writer = new ProtoWriter(64)
  new RecordSpanEncoder(ids()).write(writer, record, '/')
  assert.equal(RecordSpanEncoder.spanCount(record), spans.length)
  assert.deepEqual(spans.map((span) => [span.name, span.kind]), [['handler - showHome', 0], ['render home', 0], ['GET /', 1]])
  assert.equal(spans[1].parentSpanContext.spanId, spans[0].spanContext().spanId)
  assert.equal(spans[1].status.code, 2)
  const official = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans))
  const ours = frameExportRequest(encodeResource(resource.attributes), encodeScope(scope), writer, 0, resource.schemaUrl)
  assert.ok(ours.equals(official), 'the encodings differ')
})
