'use strict'

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { MongoClient } = require('mongodb')
const { startServer } = require('../lib/serve')
const { seed, seedReviews } = require('../seed')
const { startTestDatabase } = require('./helpers')

// The app in this process, on a real embedded database seeded as the study's workload.
// `before` cannot take `t.after`, so the fixture is shared through these variables.
let base
let documentId
let client
const cleanups = []

before(async () => {
  const fakeT = { after: (fn) => cleanups.push(fn), diagnostic: () => {} }
  const database = await startTestDatabase(fakeT)
  client = new MongoClient(database.uri)
  cleanups.push(() => client.close())
  ;({ documentId } = await seed(client, { count: 1000 }))
  const server = await startServer({
    uri: database.uri, port: 0, host: '127.0.0.1', trace: true, exporter: 'none', requestLog: false, log: () => {}
  })
  cleanups.push(server.stop)
  base = `http://127.0.0.1:${server.port}`
})

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

async function get (path, headers = {}) {
  const response = await fetch(base + path, { headers, redirect: 'manual' })
  const body = await response.text()
  return { status: response.status, type: response.headers.get('content-type') || '', body, bytes: Buffer.byteLength(body), headers: response.headers }
}

async function send (method, path, { json, form } = {}) {
  const init = { method, redirect: 'manual', headers: {} }
  if (json !== undefined) {
    init.headers['content-type'] = 'application/json'
    init.body = typeof json === 'string' ? json : JSON.stringify(json)
  }
  if (form !== undefined) {
    init.headers['content-type'] = 'application/x-www-form-urlencoded'
    init.body = new URLSearchParams(form).toString()
  }
  const response = await fetch(base + path, init)
  const body = await response.text()
  return { status: response.status, type: response.headers.get('content-type') || '', body, bytes: Buffer.byteLength(body), headers: response.headers }
}

const users = () => client.db('nodebench').collection('users')

test('reads: every page in both formats returns the seeded data; sizes compared with the study', async (t) => {
  const index = await get('/')
  assert.equal(index.status, 200)
  assert.match(index.body, /href="\/db\/nodebench\/users">users<\/a>/)
  const apiIndex = JSON.parse((await get('/api')).body)
  assert.deepEqual(apiIndex.databases.find((d) => d.name === 'nodebench'), { name: 'nodebench', collections: ['users'] })

  const database = await get('/db/nodebench')
  assert.equal(database.status, 200)
  assert.match(database.body, /<td>1000<\/td>/)
  const apiDatabase = JSON.parse((await get('/api/db/nodebench')).body)
  assert.deepEqual(apiDatabase.collections, [{ name: 'users', count: 1000 }])
  assert.equal(apiDatabase.database, 'nodebench')

  const documentHtml = await get(`/db/nodebench/users/${documentId}`)
  assert.equal(documentHtml.status, 200)
  assert.match(documentHtml.type, /^text\/html/)
  assert.match(documentHtml.body, new RegExp(`&quot;\\$oid&quot;: &quot;${documentId}&quot;`))
  assert.match(documentHtml.body, /&quot;username&quot;: &quot;user-0&quot;/)
  const documentJson = await get(`/api/db/nodebench/users/${documentId}`)
  assert.equal(documentJson.status, 200)
  assert.match(documentJson.type, /^application\/json/)
  assert.deepEqual(JSON.parse(documentJson.body), {
    database: 'nodebench', collection: 'users', document: { _id: documentId, username: 'user-0' }
  })

  const collectionHtml = await get('/db/nodebench/users')
  assert.equal(collectionHtml.status, 200)
  assert.equal(collectionHtml.body.match(/<tr>\s*<td><a href="\/db\/nodebench\/users\/[0-9a-f]{24}">/g).length, 1000)
  assert.match(collectionHtml.body, /Documents 1-1000 of 1000/)
  const collectionJson = await get('/api/db/nodebench/users')
  const page = JSON.parse(collectionJson.body)
  assert.equal(page.documents.length, 1000)
  assert.equal(page.count, 1000)
  assert.deepEqual(new Set(page.documents.map((d) => d.username)).size, 1000)

  const paged = JSON.parse((await get('/api/db/nodebench/users?skip=990&limit=20')).body)
  assert.deepEqual([paged.skip, paged.limit, paged.documents.length], [990, 20, 10])

  t.diagnostic('response sizes (bytes), this app vs the study (Mongo-Express HTML / AngularJS API JSON):')
  t.diagnostic(`  document read    HTML ${documentHtml.bytes} (study 7,312)   JSON ${documentJson.bytes} (study 452)`)
  t.diagnostic(`  collection read  HTML ${collectionHtml.bytes} (study 783,799)   JSON ${collectionJson.bytes} (study 157,434)`)
  // HTML carries the page around the data: always the larger, as in the study.
  assert.ok(documentHtml.bytes > documentJson.bytes)
  assert.ok(collectionHtml.bytes > collectionJson.bytes)
})

test('writes: a form POST adds and redirects, a JSON POST answers 201 with the id; both delete', async (t) => {
  const html = await send('POST', '/db/nodebench/users', { form: { document: '{"username":"form-user"}' } })
  assert.equal(html.status, 302)
  assert.equal(html.headers.get('location'), '/db/nodebench/users')
  const added = await users().findOne({ username: 'form-user' })
  assert.ok(added)

  const json = await send('POST', '/api/db/nodebench/users', { json: { username: 'api-user', age: 3 } })
  assert.equal(json.status, 201)
  const { _id } = JSON.parse(json.body)
  assert.match(_id, /^[0-9a-f]{24}$/)
  assert.equal(json.headers.get('location'), `/api/db/nodebench/users/${_id}`)
  assert.deepEqual(JSON.parse((await get(`/api/db/nodebench/users/${_id}`)).body).document, { _id, username: 'api-user', age: 3 })
  t.diagnostic(`document write  HTML ${html.bytes} (study 35)   JSON ${json.bytes} (study 29)`)

  const deletedHtml = await send('POST', `/db/nodebench/users/${added._id}?_method=DELETE`)
  assert.equal(deletedHtml.status, 302)
  assert.equal(await users().findOne({ _id: added._id }), null)
  const deletedJson = await send('DELETE', `/api/db/nodebench/users/${_id}`)
  assert.equal(deletedJson.status, 200)
  assert.deepEqual(JSON.parse(deletedJson.body), { deleted: 1, _id })
  assert.equal(await users().countDocuments(), 1000)
})

test('bad requests get a 4xx with a message, in the format asked for', async () => {
  const cases = [
    ['GET', '/api/db/nope', 404, /Database "nope" not found/],
    ['GET', '/api/db/nodebench/nope', 404, /Collection "nope" not found in database "nodebench"/],
    ['GET', '/api/db/nodebench/users/aaaaaaaaaaaaaaaaaaaaaaaa', 404, /Document "aaaaaaaaaaaaaaaaaaaaaaaa" not found/],
    ['GET', '/api/db/nodebench/users/not-an-id', 400, /Malformed document id "not-an-id": expected an ObjectId/],
    ['GET', '/api/db/nodebench/users?limit=0', 400, /"limit" must be a whole number from 1 to 10000; received "0"/],
    ['GET', '/api/db/nodebench/users?skip=-1', 400, /"skip" must be a whole number/],
    ['GET', '/api/nothing/here', 404, /No API route for GET \/api\/nothing\/here/],
    ['DELETE', '/api/db/nodebench/users/zzz', 400, /Malformed document id/]
  ]
  for (const [method, path, status, message] of cases) {
    const response = await send(method, path)
    assert.equal(response.status, status, `${method} ${path}: ${response.body}`)
    assert.match(response.type, /^application\/json/)
    assert.match(JSON.parse(response.body).error, message)
  }
  for (const [path, status, message] of [
    ['/db/nope', 404, /Database &quot;nope&quot; not found/],
    ['/db/nodebench/users/aaaaaaaaaaaaaaaaaaaaaaaa', 404, /not found in nodebench.users/],
    ['/db/nodebench/users/123', 400, /Malformed document id/],
    ['/no/such/page', 404, /No page at \/no\/such\/page/]
  ]) {
    const response = await get(path)
    assert.equal(response.status, status, path)
    assert.match(response.type, /^text\/html/)
    assert.match(response.body, message)
  }
})

test('an invalid body on add is a 400 saying what was wrong, and nothing is inserted', async () => {
  const before = await users().countDocuments()
  const jsonCases = [
    ['{"username": ', /request body is not valid JSON/],
    [[1, 2], /must be a JSON object.*received an array/],
    [{}, /The new document is empty/],
    [{ $where: 'x' }, /Field name "\$where" is not allowed/],
    [{ a: { $gt: 1 } }, /Field name "a.\$gt" is not allowed/],
    [{ _id: 'mine', username: 'x' }, /must not set "_id"/]
  ]
  for (const [body, message] of jsonCases) {
    const response = await send('POST', '/api/db/nodebench/users', { json: body })
    assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.body}`)
    assert.match(JSON.parse(response.body).error, message)
  }
  const formCases = [
    [{}, /Missing field &quot;document&quot;/],
    [{ document: 'username=ada' }, /Field &quot;document&quot; is not valid JSON/],
    [{ document: '"text"' }, /must be a JSON object.*received a string/]
  ]
  for (const [form, message] of formCases) {
    const response = await send('POST', '/db/nodebench/users', { form })
    assert.equal(response.status, 400, response.body)
    assert.match(response.body, message)
  }
  assert.equal(await users().countDocuments(), before)
})

test('the breakdown names the study\'s segments: database, collection, document, viewDocument; addDocument; viewCollection', async () => {
  await send('DELETE', '/__nodebench')
  for (let i = 0; i < 3; i++) {
    await get(`/db/nodebench/users/${documentId}`)
    await get(`/api/db/nodebench/users/${documentId}`)
    await get('/api/db/nodebench/users?limit=10')
    await get('/db/nodebench/users?limit=10')
  }
  const created = JSON.parse((await send('POST', '/api/db/nodebench/users', { json: { username: 'breakdown' } })).body)
  await send('POST', '/db/nodebench/users', { form: { document: '{"username":"breakdown-form"}' } })
  const snapshot = JSON.parse((await get('/__nodebench')).body)
  const operation = (method, route, format) => {
    const found = snapshot.operations.find((o) => o.method === method && o.route === route && o.format === format)
    assert.ok(found, `${method} ${route} ${format} in ${snapshot.operations.map((o) => `${o.method} ${o.route} ${o.format}`)}`)
    return found
  }
  const appSegments = (o) => o.segments.filter((s) => s.kind === 'param' || s.kind === 'handler').map((s) => s.name)

  for (const [route, format] of [['/db/:database/:collection/:document', 'html'], ['/api/db/:database/:collection/:document', 'json']]) {
    const read = operation('GET', route, format)
    assert.equal(read.count, 3)
    assert.deepEqual(appSegments(read), ['setLocals', 'database', 'collection', 'document', 'viewDocument'])
    // The static file middleware is mounted at /public and /spa: it does not run for these paths.
    assert.deepEqual(read.segments.filter((s) => s.kind === 'middleware').map((s) => s.name),
      ['urlencodedParser', 'jsonParser', 'cookieParser', 'methodOverride'])
  }
  assert.deepEqual(appSegments(operation('GET', '/api/db/:database/:collection', 'json')), ['setLocals', 'database', 'collection', 'viewCollection'])
  assert.deepEqual(appSegments(operation('GET', '/db/:database/:collection', 'html')), ['setLocals', 'database', 'collection', 'viewCollection'])
  assert.deepEqual(appSegments(operation('POST', '/api/db/:database/:collection', 'json')), ['setLocals', 'database', 'collection', 'addDocument'])
  // The form POST answers with a redirect (text/plain): format "other".
  assert.deepEqual(appSegments(operation('POST', '/db/:database/:collection', 'other')), ['setLocals', 'database', 'collection', 'addDocument'])
  // What the handlers spend making the body, under them: the page's render (nunjucks, the view), the API's JSON.
  const bodyWork = (o, name) => o.segments.find((s) => s.name === name).dependencies
    ?.filter((d) => d.system === 'render' || d.system === 'serialize').map((d) => `${d.system} ${d.operation} ${d.target}`.trim())
  assert.deepEqual(bodyWork(operation('GET', '/db/:database/:collection/:document', 'html'), 'viewDocument'), ['render nunjucks document'])
  assert.deepEqual(bodyWork(operation('GET', '/api/db/:database/:collection/:document', 'json'), 'viewDocument'), ['serialize json'])
  assert.deepEqual(bodyWork(operation('GET', '/db/:database/:collection', 'html'), 'viewCollection'), ['render nunjucks collection'])
  await send('DELETE', `/api/db/nodebench/users/${created._id}`)
  await users().deleteMany({ username: 'breakdown-form' })
})

test('the single-page port is served: its page, its scripts (each parses) and AngularJS from node_modules', async () => {
  const vm = require('node:vm')
  const page = await get('/spa/')
  assert.equal(page.status, 200)
  assert.match(page.body, /<html lang="en" ng-app="mongoAdmin"/)
  const scripts = Array.from(page.body.matchAll(/<script src="([^"]+)"><\/script>/g), (match) => match[1])
  assert.deepEqual(scripts, ['vendor/angular.min.js', 'app.js', 'api.js', 'database-list.js', 'filters.js', 'layout.js', 'router.js', 'view.js', 'controllers.js'])
  for (const src of scripts) {
    const script = await get(`/spa/${src}`)
    assert.equal(script.status, 200, src)
    assert.match(script.type, /javascript/, src)
    // Compiles as a classic script, as the browser loads it. (Rendering is checked in a browser: spa.test.js.)
    assert.doesNotThrow(() => new vm.Script(script.body, { filename: src }))
  }
  assert.match((await get('/spa/vendor/angular.min.js')).body, /AngularJS v1\.8\.3/)
  assert.equal((await get('/public/css/style.css')).status, 200)
})

test('the TU Berlin study\'s REST service: GET lists 10 reviews, POST creates one, a bad review is a 400', async () => {
  await seedReviews(client, { count: 1000 })
  const list = await get('/api/reviews', { accept: 'application/json' })
  assert.equal(list.status, 200)
  const { reviews } = JSON.parse(list.body)
  assert.equal(reviews.length, 10)
  for (const review of reviews) assert.match(review.reviewer, /^reviewer-\d+$/)

  const review = { reviewer: 'tester', product: 'product-3', rating: 5, text: 'Good.' }
  const created = await send('POST', '/api/reviews', { json: review })
  assert.equal(created.status, 201)
  const { _id: id } = JSON.parse(created.body)
  assert.equal(created.headers.get('location'), `/api/reviews/${id}`)
  const stored = await client.db('nodebench').collection('reviews').findOne({ reviewer: 'tester' })
  assert.deepEqual({ ...stored, _id: String(stored._id) }, { _id: id, ...review })
  await client.db('nodebench').collection('reviews').deleteOne({ _id: stored._id })

  for (const [body, message] of [
    [{ ...review, rating: 6 }, /rating must be a whole number from 1 to 5/],
    [{ ...review, stars: 1 }, /Unknown field stars/],
    [{ reviewer: 'x', product: 'y', rating: 2 }, /text must be a non-empty string/],
    ['[1]', /A review is a JSON object/]
  ]) {
    const refused = await send('POST', '/api/reviews', { json: body })
    assert.equal(refused.status, 400, refused.body)
    assert.match(JSON.parse(refused.body).error, message)
  }

  const snapshot = JSON.parse((await get('/__nodebench', { accept: 'application/json' })).body)
  const names = (route, method) => snapshot.operations.find((o) => o.route === route && o.method === method)?.segments.map((s) => s.name)
  // The router's own '/' under its mount path, as nodebench joins route templates.
  assert.ok(names('/api/reviews/', 'GET').includes('listReviews'))
  assert.ok(names('/api/reviews/', 'POST').includes('createReview'))
})
