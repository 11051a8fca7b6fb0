'use strict'

// nodebench-test: once. Collection sizes are what the embedded database (FerretDB, built with Go) counts of the app's store, and the notes bench and compare make of them: the Node.js version does not change what this tests.
// The app's database in a run (kernel/database.js, kernel/collection-sizes.js, bench/database.js): an
// empty embedded database per run unless the workload keeps its own, each cell's collection sizes before and
// after its load, and the warning when the store grew enough to move the figures. Against the real embedded
// database (FerretDB) and a real app whose store grows under load (test/fixtures/visits).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { MongoClient } = require('mongodb')
const { checkWorkload } = require('../lib/kernel/workload')
const { openDatabase } = require('../lib/kernel/database')
const { readCollectionSizes, storeGrowth, databaseOfRun } = require('../lib/kernel/collection-sizes')
const { compareRuns } = require('../lib/compare/compare-runs')
const { temporaryDir, runCli, isolatedEnv } = require('../../../test/support')

const VISITS = path.join(__dirname, 'fixtures', 'visits')
const APP = Object.freeze({ starts: true })

const check = (source) => checkWorkload(source, { file: '/x/nodebench.workload.js', shown: 'nodebench.workload.js' })

async function insertAndCount (uri, documents) {
  const client = new MongoClient(uri)
  try {
    const log = client.db('visits').collection('log')
    if (documents > 0) await log.insertMany(Array.from({ length: documents }, (_, i) => ({ i })))
    return await log.countDocuments()
  } finally {
    await client.close()
  }
}

test('workload `database`: fresh by default, keep when asked, anything else refused', () => {
  const scenarios = { home: { request: { path: '/' } } }
  assert.equal(check({ services: ['mongodb'], scenarios }).database, 'fresh')
  assert.equal(check({ services: ['mongodb'], database: 'keep', scenarios }).database, 'keep')
  assert.throws(() => check({ database: 'reuse', scenarios }),
    (err) => err.code === 'NB_ERR_WORKLOAD' && /database must be one of 'fresh', 'keep'; received "reuse"/.test(err.message))
})

test('a store grew enough: 1,000 documents more, or more than doubled by 100 or more', () => {
  const changes = [
    { name: 'a.sessions', before: 0, after: 1000 },
    { name: 'a.carts', before: 150, after: 320 },
    { name: 'a.users', before: 1000, after: 1999 },
    { name: 'a.few', before: 1, after: 90 },
    { name: 'a.shrunk', before: 5000, after: 10 }
  ]
  assert.deepEqual(storeGrowth(changes).map((change) => change.name), ['a.sessions', 'a.carts'])
  const records = [
    { scenario: 'login', format: 'html', processes: 1, values: {}, collections: [{ name: 'a.sessions', before: 400, after: 600 }] },
    { scenario: 'login', format: 'html', processes: 2, values: {}, collections: [{ name: 'a.sessions', before: 600, after: 1500 }] }
  ]
  const database = databaseOfRun({ source: 'embedded', fresh: true, name: 'FerretDB' }, records)
  assert.deepEqual(database.collections, [{ name: 'a.sessions', before: 400, after: 1500 }])
  assert.match(database.warning, /^The database grew during the run \(a\.sessions from 400 to 1,500 documents\): cells measured later/)
  assert.deepEqual(database.cells.map((cell) => cell.title), ['login (html), 1 process', 'login (html), 2 processes'])
  assert.equal(databaseOfRun({ source: 'embedded', fresh: true }, records.slice(0, 1)).warning, null, 'no cell grew enough')
})

test('compare: a side whose store grew, and two runs that started from different stores, are noted', () => {
  const side = (name) => {
    const results = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'compare-aa', name, 'results.json'), 'utf8'))
    for (const cell of results.cells) cell.reps = cell.reps.slice(0, 10)
    return results
  }
  const sides = { a: { name: 'a', source: 'a' }, b: { name: 'b', source: 'b' } }
  const database = (start, end) => databaseOfRun({ source: 'embedded', fresh: false, name: 'FerretDB' },
    [{ scenario: 'login', format: 'html', processes: 1, collections: [{ name: 'shop.sessions', before: start, after: end }] }])
  const quiet = compareRuns({ ...side('a'), database: database(0, 50) }, { ...side('b'), database: database(0, 60) }, { sides })
  assert.deepEqual(quiet.notes.filter((note) => /database/.test(note)), [])
  const grown = compareRuns({ ...side('a'), database: database(0, 50) }, { ...side('b'), database: database(5000, 9000) }, { sides })
  const notes = grown.notes.filter((note) => /database/.test(note))
  assert.equal(notes.length, 2, notes.join('\n'))
  assert.match(notes[0], /^b: The database grew during the run \(shop\.sessions from 5,000 to 9,000 documents\)/)
  assert.match(notes[1], /^a and b started from different databases \(shop\.sessions: 0 against 5,000 documents\)/)
})

test('openDatabase: an empty embedded database per run, removed after it; the kept one otherwise', { timeout: 300_000 }, async (t) => {
  const env = isolatedEnv(temporaryDir(t, 'nodebench-db-'))
  const fresh = { services: ['mongodb'], database: 'fresh' }
  const first = await openDatabase(APP, fresh, { env })
  t.after(() => first.stop())
  assert.equal(first.fresh, true)
  assert.equal(first.source, 'embedded')
  assert.equal(first.env.MONGODB_URI, first.uri)
  assert.equal(await insertAndCount(first.uri, 5), 5)
  assert.deepEqual(await readCollectionSizes(first.uri), { 'visits.log': 5 })
  await first.stop()
  const second = await openDatabase(APP, fresh, { env })
  t.after(() => second.stop())
  assert.equal(await insertAndCount(second.uri, 0), 0, 'the next run starts empty')
  assert.deepEqual(await readCollectionSizes(second.uri), {})
  await second.stop()
  assert.equal(fs.existsSync(env.NODEBENCH_DATA_DIR), false, 'nodebench\'s own data directory is left alone')

  const keep = { services: ['mongodb'], database: 'keep' }
  const kept = await openDatabase(APP, keep, { env })
  t.after(() => kept.stop())
  assert.equal(kept.fresh, false)
  assert.equal(await insertAndCount(kept.uri, 3), 3)
  await kept.stop()
  const again = await openDatabase(APP, keep, { env })
  t.after(() => again.stop())
  assert.equal(await insertAndCount(again.uri, 0), 3, 'a workload that keeps its database finds its data')
  await again.stop()

  const given = await openDatabase(APP, fresh, { env: { ...env, MONGODB_URI: 'mongodb://127.0.0.1:1/' } })
  assert.deepEqual([given.source, given.fresh, given.uri], ['MONGODB_URI', false, 'mongodb://127.0.0.1:1/'])
})

test('bench: every run starts from an empty database, reports each cell\'s sizes and warns of a store that grew', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-bench-db-')
  const env = isolatedEnv(dir)
  const runs = []
  for (const name of ['one', 'two']) {
    const out = path.join(dir, name)
    const run = await runCli(['bench', '--app', VISITS, '--processes', '1', '--amount', '120', '--reps', '1', '--warmup', '0',
      '--out', out], { env })
    assert.equal(run.code, 0, run.stderr)
    runs.push({ ...run, results: JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')), out })
  }
  for (const { results, stderr, out } of runs) {
    const [cell] = results.cells
    assert.equal(cell.status, 'ok', cell.failure)
    assert.equal(cell.collections.length, 1, JSON.stringify(cell.collections))
    const [log] = cell.collections
    assert.equal(log.name, 'visits.log')
    assert.equal(log.after - log.before, 1200, 'the cell\'s 120 requests wrote 1,200 documents')
    assert.deepEqual([results.database.source, results.database.fresh], ['embedded', true])
    assert.match(results.database.warning, /visits\.log from \d+ to [\d,]+ documents/)
    assert.match(stderr, /warning: The database grew during the run \(visits\.log from/)
    const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
    assert.match(markdown, /## Database: collection sizes before and after each cell/)
    assert.match(markdown, /\| visit \(default\), 1 process \| visits\.log \| \d+ \| [\d,]+ \| \+1,200 \|/)
    assert.match(markdown, /## What limits these figures[\s\S]*The database grew during the run/)
    assert.match(fs.readFileSync(path.join(out, 'report.html'), 'utf8'), /id="database"/)
  }
  assert.equal(runs[1].results.cells[0].collections[0].before, runs[0].results.cells[0].collections[0].before,
    'the second run started from the same state as the first, not from its 1,200 documents')
})

test('openDatabase: a --cmd that gives its app a database of its own is told so, once, before the run', async () => {
  const notes = []
  const onProgress = (line) => notes.push(line)
  const cmd = (uri) => ({ starts: true, cmd: `PORT={port} MONGODB_URL=${uri} NODE_ENV=development node src/index.js` })
  const env = { MONGODB_URI: 'mongodb://127.0.0.1:1/run' }
  const fresh = { services: ['mongodb'], database: 'fresh' }

  await openDatabase(cmd('mongodb://127.0.0.1:40949/shop'), { services: [] }, { env: {}, onProgress })
  assert.equal(notes.length, 1, notes.join('\n'))
  assert.match(notes[0], /^--cmd gives the app a MongoDB database \(mongodb:\/\/127\.0\.0\.1:40949\/shop\) that the workload does not declare: its collection sizes are not counted; add services: \['mongodb'\]/)

  notes.length = 0
  await openDatabase(cmd('mongodb://127.0.0.1:40949/shop'), fresh, { env, onProgress })
  assert.equal(notes.length, 1, notes.join('\n'))
  assert.match(notes[0], /^warning: --cmd gives the app its own database \(mongodb:\/\/127\.0\.0\.1:40949\/shop\), not the run's \(MONGODB_URI=mongodb:\/\/127\.0\.0\.1:1\/run\): the collection sizes are the run's\. Give the app the run's: --cmd 'MONGODB_URL=\$MONGODB_URI \.\.\.'/)

  notes.length = 0
  await openDatabase(cmd('mongodb://127.0.0.1:1/other'), fresh, { env, onProgress })
  await openDatabase(cmd('mongodb://LocalHost:1/other'), fresh, { env, onProgress })
  await openDatabase(cmd('mongodb://[::1]:1/other'), fresh, { env, onProgress })
  await openDatabase(cmd('$MONGODB_URI'), fresh, { env, onProgress })
  await openDatabase({ starts: true, cmd: null, app: '/x' }, fresh, { env, onProgress })
  assert.deepEqual(notes, [], 'the run\'s own database (another name on it, its host spelt another way), or none written in the command')
})
