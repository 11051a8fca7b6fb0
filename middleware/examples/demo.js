'use strict'

// `npm run demo` (until `nodebench bench` lands): a small app shaped like Mongo-Express (param
// middleware database -> collection -> document, then a controller rendering HTML or JSON), traced with
// one line, driven by autocannon for a few seconds per operation; prints where the time went.
// Its data lives in an in-process Map, so its "database" segments are cheap: the real workload on a
// MongoDB-compatible database is examples/mongo-admin.

const express = require('express')
const autocannon = require('autocannon')
const { nodebenchTrace } = require('@nodebench/trace')
const { renderTable } = require('@nodebench/breakdown')

const SECONDS_PER_RUN = Number(process.env.DEMO_SECONDS) || 3

const store = new Map([['nodebench', new Map([['users', new Map()]])]])
for (let n = 0; n < 1000; n++) store.get('nodebench').get('users').set(String(n), { _id: String(n), username: `user-${n}` })

const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c])
const page = (title, body) => `<!doctype html><html><head><title>${escapeHtml(title)}</title></head><body><nav>nodebench demo</nav><h1>${escapeHtml(title)}</h1>${body}</body></html>`

const exp = {}
exp.viewCollection = function (req, res) {
  const documents = Array.from(req.collection.values())
  if (req.wantsJson) return res.json({ documents })
  res.send(page(req.params.collection, `<table>${documents.map((d) => `<tr><td>${escapeHtml(d._id)}</td><td>${escapeHtml(JSON.stringify(d))}</td></tr>`).join('')}</table>`))
}
exp.viewDocument = function (req, res) {
  if (req.wantsJson) return res.json(req.document)
  res.send(page(req.document._id, `<pre>${escapeHtml(JSON.stringify(req.document, null, 2))}</pre>`))
}

function buildApp (trace) {
  const app = express()
  app.use(trace)
  app.use(express.json())
  app.use(function locals (req, res, next) {
    req.wantsJson = req.path.startsWith('/api/')
    next()
  })
  const router = express.Router()
  router.param('database', function (req, res, next, name) {
    req.db = store.get(name)
    if (!req.db) return res.status(404).json({ error: `database ${name} not found` })
    next()
  })
  router.param('collection', function (req, res, next, name) {
    req.collection = req.db.get(name)
    if (!req.collection) return res.status(404).json({ error: `collection ${name} not found` })
    next()
  })
  router.param('document', function (req, res, next, id) {
    // Asynchronous, as a database lookup is.
    setImmediate(() => {
      req.document = req.collection.get(id)
      if (!req.document) return res.status(404).json({ error: `document ${id} not found` })
      next()
    })
  })
  router.get('/db/:database/:collection', exp.viewCollection)
  router.get('/db/:database/:collection/:document', exp.viewDocument)
  app.use(router)
  app.use('/api', router)
  return app
}

function run (url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, duration: SECONDS_PER_RUN }, (err, result) => err ? reject(err) : resolve(result))
  })
}

async function main () {
  const trace = nodebenchTrace({ exporter: 'none', serviceName: 'nodebench-demo', expose: true })
  const server = buildApp(trace).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  try {
    await (await fetch(`${base}/db/nodebench/users/1`)).text()
    trace.reset()
    const paths = ['/db/nodebench/users/1', '/api/db/nodebench/users/1', '/db/nodebench/users', '/api/db/nodebench/users']
    for (const [i, path] of paths.entries()) {
      process.stderr.write(`nodebench demo: [${i + 1}/${paths.length}] GET ${path} for ${SECONDS_PER_RUN} s...\n`)
      const result = await run(base + path)
      if (result.non2xx || result.errors) throw new Error(`GET ${path}: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
      process.stderr.write(`  ${Math.round(result.requests.average)} requests/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms\n`)
    }
    process.stdout.write('\n' + renderTable(trace.breakdown(), { color: process.stdout.isTTY === true }))
    process.stdout.write('Next: add `app.use(nodebenchTrace())` to your own app (see README.md).\n')
  } finally {
    server.close()
    await trace.shutdown()
  }
}

main().catch((err) => {
  process.stderr.write(`nodebench demo: ${err.message}\n`)
  process.exitCode = 1
})
