'use strict'

// nodebench-test: once. The AngularJS port against the server's pages in Chromium: the Node.js version does not change what this tests.

/* global angular, location -- in the functions that run in the page (page.evaluate, waitForFunction) */

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { MongoClient } = require('mongodb')
const { ensureChromium } = require('@nodebench/services')
const { startServer } = require('../lib/serve')
const { seed } = require('../seed')
const { startTestDatabase } = require('./helpers')

// The AngularJS port (public/spa/) against the server-rendered pages, in a real headless Chromium (Debian's,
// driven by playwright-core as packages/cli/test/page-check.js does; no browser is downloaded), on the
// app in this process and a real embedded database seeded as the study's workload.

const LAUNCH_ARGS = Object.freeze(['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'])

// Beside the study's users (strings only), documents whose cells are not strings, so the port's `cell` filter
// is compared with the server's on numbers, booleans, null, arrays, nested objects and missing fields.
// (Not dates: the JSON API sends them as ISO strings, which the port cannot tell from strings; README.md.)
const KINDS = [
  { name: 'numbers', count: 3, ratio: 0.25, negative: -7, big: 2 ** 40 },
  { name: 'others', flag: true, nothing: null, tags: ['a', 1, false], nested: { depth: { level: 2 }, list: [] } },
  { name: 'text with "quotes" & <markup>', count: 0 }
]

/** In the page (either front end): what a reader sees, with links written as the route they lead to. */
function readView () {
  const text = (node) => node === null ? null : node.textContent.replace(/\s+/g, ' ').trim()
  const route = (link) => link.getAttribute('href').replace(/^#!/, '')
  const all = (root, selector) => [...root.querySelectorAll(selector)]
  const main = document.querySelector('main')
  const pre = main.querySelector('pre.document')
  return {
    heading: text(main.querySelector('h1')),
    breadcrumb: text(document.querySelector('.breadcrumb')),
    breadcrumbLinks: all(document, '.breadcrumb a').map(route),
    sidebar: all(document, '.sidebar li').map(text),
    sidebarLinks: all(document, '.sidebar li a').map(route),
    sidebarActive: all(document, '.sidebar li.active').map(text),
    stats: all(main, '.stats dt').map((term) => [text(term), text(term.nextElementSibling)]),
    summary: text(main.querySelector('.summary')),
    summaryLinks: all(main, '.summary a').map(route),
    tables: all(main, 'table').map((table) => ({
      header: all(table, 'thead th').map(text),
      rows: all(table, 'tbody tr').map((row) => [...row.children].map(text)),
      links: all(table, 'tbody a').map(route)
    })),
    documentText: pre === null ? null : pre.textContent,
    errors: all(main, '.error').map(text),
    otherLinks: all(main, 'p:not(.summary) > a').map(route)
  }
}

test('the AngularJS port shows what the server-rendered pages show', { timeout: 120_000 }, async (t) => {
  // Stopped in the reverse order of their start, whatever the outcome: browser, app, client, database.
  const cleanups = []
  t.after(async () => {
    const failures = []
    for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch((error) => failures.push(error))
    if (failures.length > 0) throw failures[0]
  })
  const database = await startTestDatabase({ after: (fn) => cleanups.push(fn), diagnostic: (m) => t.diagnostic(m) })
  const client = new MongoClient(database.uri)
  cleanups.push(() => client.close())
  const { documentId } = await seed(client, { count: 1000 })
  const kinds = client.db('nodebench').collection('kinds')
  const { insertedIds } = await kinds.insertMany(KINDS.map((kind) => ({ ...kind })))
  const kindId = String(insertedIds[1])
  // Started after the writes: the app lists databases and collections at start.
  const server = await startServer({
    uri: database.uri, port: 0, host: '127.0.0.1', trace: false, exporter: 'none', requestLog: false, log: () => {}
  })
  cleanups.push(server.stop)
  const base = `http://127.0.0.1:${server.port}`

  // playwright-core is a development dependency of the CLI, hoisted to the repository's node_modules.
  const { chromium } = require('playwright-core')
  const browser = await chromium.launch({ executablePath: await ensureChromium(), args: [...LAUNCH_ARGS] })
  cleanups.push(() => browser.close())

  // Every console error and uncaught exception of the port's pages, with the URL of the page. A refusal a test
  // asks for is logged by Chromium itself ("Failed to load resource: ... 404"): `refusals` lists those statuses.
  const spaProblems = []
  // `route` as the port writes it after `#!`; `{ address }` for any other address of the port.
  async function openSpa (route, { address = `/spa/#!${route}`, refusals = [] } = {}) {
    const page = await browser.newPage()
    const refused = refusals.map((status) => `Failed to load resource: the server responded with a status of ${status} `)
    page.on('console', (message) => {
      if (message.type() !== 'error' || refused.some((text) => message.text().startsWith(text))) return
      spaProblems.push(`${page.url()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => spaProblems.push(`${page.url()}: ${error.stack || error}`))
    await page.goto(base + address)
    await waitReady(page)
    return page
  }
  // `data-ready` is forgotten first, so the last page's 'true' cannot be mistaken for this one's.
  async function followInSpa (page, action) {
    await page.evaluate(() => { delete document.body.dataset.ready })
    await action()
    await waitReady(page)
  }
  const waitReady = (page) => page.waitForFunction(() => document.body.dataset.ready === 'true')

  const serverPage = await browser.newPage()
  async function readServer (path) {
    const response = await serverPage.goto(base + path)
    assert.equal(response.status(), 200, path)
    return serverPage.evaluate(readView)
  }

  const spa = await openSpa('/')

  await t.test('AngularJS 1.8.3 runs the page, with debug info: scopes are reachable from elements', async () => {
    const angularState = await spa.evaluate(() => {
      const injector = angular.element(document.documentElement).injector()
      const $rootScope = injector.get('$rootScope')
      // Without debug info (`$compileProvider.debugInfoEnabled(false)`), `.scope()` answers undefined.
      const bodyScope = angular.element(document.body).scope()
      return {
        version: angular.version.full,
        bodyScopeIsRootsChild: bodyScope !== undefined && bodyScope.$parent === $rootScope,
        rootHasChildren: $rootScope.$$childHead !== null
      }
    })
    assert.deepEqual(angularState, { version: '1.8.3', bodyScopeIsRootsChild: true, rootHasChildren: true })
  })

  await t.test('home: the databases and their collections', async () => {
    const expected = await readServer('/')
    const nodebench = expected.tables[0].rows.find((row) => row[0] === 'nodebench')
    assert.deepEqual(nodebench[1].split(', ').sort(), ['kinds', 'users'])
    assert.ok(expected.sidebar.includes('nodebench'), expected.sidebar.join())
    assert.deepEqual(await spa.evaluate(readView), expected)
    assert.equal(await spa.getAttribute('.spa-link', 'href'), '/')
  })

  await t.test('a database: its statistics and collections with their counts (followed from home)', async () => {
    const expected = await readServer('/db/nodebench')
    assert.deepEqual(expected.tables[0].rows.find((row) => row[0] === 'users'), ['users', '1000', 'View'])
    await followInSpa(spa, () => spa.click('main table a[href="#!/db/nodebench"]'))
    assert.equal(new URL(spa.url()).hash, '#!/db/nodebench')
    assert.deepEqual(await spa.evaluate(readView), expected)
    assert.equal(await spa.getAttribute('.spa-link', 'href'), '/db/nodebench')
  })

  await t.test('a collection: the same 1000 documents in the same table (followed from the database)', async () => {
    const expected = await readServer('/db/nodebench/users')
    const [documents] = expected.tables
    assert.equal(documents.rows.length, 1000)
    assert.deepEqual(documents.header, ['_id', 'username', ''])
    assert.deepEqual(documents.rows[0], [documentId, 'user-0', 'Delete'])
    await followInSpa(spa, () => spa.click('main table a[href="#!/db/nodebench/users"]:not(.button)'))
    assert.deepEqual(await spa.evaluate(readView), expected)
    const rendered = await spa.evaluate(() => {
      const rows = document.querySelectorAll('table.documents tbody tr[ng-repeat]')
      return { rows: rows.length, firstRowId: angular.element(rows[0]).scope().row.id }
    })
    assert.deepEqual(rendered, { rows: 1000, firstRowId: documentId })
  })

  await t.test('a page of a collection: ?skip=&limit= and the Previous link', async () => {
    const expected = await readServer('/db/nodebench/users?skip=990&limit=20')
    assert.equal(expected.summary, 'Documents 991-1000 of 1000 Previous')
    assert.deepEqual(expected.summaryLinks, ['/db/nodebench/users?skip=970&limit=20'])
    await followInSpa(spa, () => spa.evaluate(() => { location.hash = '#!/db/nodebench/users?skip=990&limit=20' }))
    assert.deepEqual(await spa.evaluate(readView), expected)
  })

  await t.test('a document: the same fields and values (opened at its address)', async () => {
    const expected = await readServer(`/db/nodebench/users/${documentId}`)
    assert.deepEqual(JSON.parse(expected.documentText), { _id: { $oid: documentId }, username: 'user-0' })
    const page = await openSpa(`/db/nodebench/users/${documentId}`)
    const shown = await page.evaluate(readView)
    assert.deepEqual(JSON.parse(shown.documentText), JSON.parse(expected.documentText))
    assert.deepEqual(shown, expected)
    await page.close()
  })

  await t.test('values that are not strings: the same cells, and the same document text', async () => {
    const expected = await readServer('/db/nodebench/kinds')
    assert.deepEqual(expected.tables[0].header,
      ['_id', 'name', 'count', 'ratio', 'negative', 'big', 'flag', 'nothing', 'tags', 'nested', ''])
    assert.deepEqual(expected.tables[0].rows[1].slice(1, -1),
      ['others', '', '', '', '', 'true', 'null', '["a",1,false]', '{"depth":{"level":2},"list":[]}'])
    const page = await openSpa('/db/nodebench/kinds')
    assert.deepEqual(await page.evaluate(readView), expected)

    const expectedDocument = await readServer(`/db/nodebench/kinds/${kindId}`)
    await followInSpa(page, () => page.click(`main table a[href="#!/db/nodebench/kinds/${kindId}"]`))
    assert.deepEqual(await page.evaluate(readView), expectedDocument)
    await page.close()
  })

  await t.test('adding and deleting documents through the API, from the collection page and the document page', async () => {
    const page = await openSpa('/db/nodebench/kinds', { refusals: [400] })
    await page.click('details.add summary')
    await page.fill('details.add textarea', '{ "$where": "1" }')
    await followInSpa(page, () => page.click('details.add button[type=submit]'))
    assert.match(await page.textContent('main p.error'), /Field name "\$where" is not allowed/)
    await page.fill('details.add textarea', '{ "name": "added", "count": 5 ')
    await page.click('details.add button[type=submit]')
    assert.match(await page.textContent('main p.error'), /The new document is not valid JSON/)

    await page.fill('details.add textarea', '{ "name": "added", "count": 5 }')
    await followInSpa(page, () => page.click('details.add button[type=submit]'))
    const added = await kinds.findOne({ name: 'added' })
    assert.ok(added, 'the new document is in the collection')
    const withAdded = await page.evaluate(readView)
    assert.equal(withAdded.summary, `Documents 1-${KINDS.length + 1} of ${KINDS.length + 1}`)
    assert.deepEqual(withAdded.tables[0].rows.at(-1).slice(0, 3), [String(added._id), 'added', '5'])

    await followInSpa(page, () => page.click(`button[title="Delete document ${added._id}"]`))
    assert.equal(await kinds.findOne({ _id: added._id }), null)
    assert.equal((await page.evaluate(readView)).tables[0].rows.length, KINDS.length)

    const { insertedId } = await kinds.insertOne({ name: 'to delete' })
    await followInSpa(page, () => page.evaluate((id) => { location.hash = '#!/db/nodebench/kinds/' + id }, String(insertedId)))
    await followInSpa(page, () => page.click('main button.danger'))
    assert.equal(new URL(page.url()).hash, '#!/db/nodebench/kinds')
    assert.equal(await kinds.findOne({ _id: insertedId }), null)
    await page.close()
  })

  await t.test('an error from the API is shown as the server shows it, and the page is ready', async () => {
    const response = await serverPage.goto(`${base}/db/nope`)
    assert.equal(response.status(), 404)
    const expected = await serverPage.evaluate(readView)
    assert.deepEqual(expected.errors, ['Database "nope" not found'])
    const page = await openSpa('/db/nope', { refusals: [404] })
    assert.deepEqual(await page.evaluate(readView), expected)
    await page.close()
  })

  await t.test("the server-rendered pages' link to the port opens the same page, and so does an address without '!'", async () => {
    await serverPage.goto(`${base}/db/nodebench/users/${documentId}`)
    const link = await serverPage.getAttribute('.spa-link', 'href')
    assert.equal(link, `/spa/#!/db/nodebench/users/${documentId}`)
    const expected = await serverPage.evaluate(readView)
    for (const address of [link, `/spa/#/db/nodebench/users/${documentId}`]) {
      const page = await openSpa(null, { address })
      assert.equal(new URL(page.url()).hash, `#!/db/nodebench/users/${documentId}`)
      assert.deepEqual(await page.evaluate(readView), expected)
      await page.close()
    }
  })

  await t.test('the port logged no console error and threw no exception', () => {
    assert.deepEqual(spaProblems, [])
  })
})
