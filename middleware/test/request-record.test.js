'use strict'

// A request's record keeps one entry per layer it passed, whatever the length of the requests before it: its
// arrays start as long as recent requests' (request-record.js), and a longer request appends past them.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { RequestRecord } = require('../lib/request-record')

const fakeResponse = { statusCode: 200, getHeader: () => 'application/json' }

/** A request of `entries` layers, each closed in order, the last left for the response's end. */
function request (entries, label) {
  const record = new RequestRecord('GET', 0)
  const infos = []
  for (let i = 0; i < entries; i++) {
    const info = { kind: 'middleware', name: `${label}${i}` }
    infos.push(info)
    const index = record.openEntry(info)
    assert.equal(index, i)
    if (i < entries - 1) record.closeEntry(index, null)
  }
  assert.equal(record.entryEnd(entries - 1), -1, 'the last entry is open until the response ends')
  record.finish(fakeResponse, false)
  return { record, infos }
}

test('a record holds every entry, after shorter and longer requests, and nothing of theirs', () => {
  for (const [entries, label] of [[3, 'a'], [25, 'b'], [2, 'c'], [40, 'd'], [1, 'e']]) {
    const { record, infos } = request(entries, label)
    assert.equal(record.segmentCount, entries)
    for (let i = 0; i < entries; i++) {
      assert.equal(record.segmentInfo(i), infos[i], `${label}: entry ${i} is its own layer`)
      assert.ok(record.entryStart(i) > 0, `${label}: entry ${i} started`)
      assert.ok(record.entryEnd(i) >= record.entryStart(i), `${label}: entry ${i} ended after it started`)
      if (i > 0) assert.ok(record.entryStart(i) >= record.entryEnd(i - 1), `${label}: entry ${i} after entry ${i - 1}`)
    }
    assert.equal(record.entryEnd(entries - 1), record.endMs, `${label}: the open entry ends with the response`)
  }
})

test('entries a record holds keep their times when a unit of a pipeline opens after them', () => {
  request(30, 'long')
  const record = new RequestRecord('GET', 0)
  const route = record.openEntry({ kind: 'route', name: 'route' })
  record.routeEntry = route
  const guard = record.openUnit({ kind: 'guard', name: 'guard' })
  const handler = record.openUnit({ kind: 'handler', name: 'handler' })
  assert.ok(record.entryEnd(guard) !== -1, 'the guard ends when the handler begins')
  assert.equal(record.entryStart(handler), record.entryEnd(guard))
  assert.equal(record.entryParent(handler), route)
  record.finish(fakeResponse, false)
  assert.equal(record.segmentCount, 3)
  assert.equal(record.entryEnd(handler), record.endMs)
})

test('a framework unit ends the unit before it, under its open route, and looks past the route only once it has ended', () => {
  const record = new RequestRecord('GET', 0)
  const middleware = record.openEntry({ kind: 'middleware', name: 'logger' })
  record.closeEntry(middleware, null)
  const loggerEnd = record.entryEnd(middleware)
  const route = record.openEntry({ kind: 'route', name: 'CatsController.findOne' })
  record.routeEntry = route
  const guard = record.openUnit({ kind: 'guard', name: 'AuthGuard' })
  assert.equal(record.entryParent(guard), route)
  assert.equal(record.entryEnd(route), -1, 'the route is not a unit: it stays open')
  assert.equal(record.entryEnd(middleware), loggerEnd, 'a segment before the route is left as it was')
  const pipe = record.openUnit({ kind: 'pipe', name: 'ParseIntPipe (id)' })
  assert.ok(record.entryEnd(guard) >= record.entryStart(guard), 'the guard ended when the pipe began')
  assert.equal(record.entryEnd(pipe), -1)
  assert.equal(record.entryParent(pipe), route)

  // A segment left open before a route that has ended (a filter answering that segment's error): found.
  const other = new RequestRecord('GET', 0)
  const failing = other.openEntry({ kind: 'middleware', name: 'failing' })
  const ended = other.openEntry({ kind: 'route', name: 'CatsController.findAll' })
  other.routeEntry = ended
  other.closeEntry(ended, null)
  const filter = other.openUnit({ kind: 'filter', name: 'HttpExceptionFilter' })
  assert.ok(other.entryEnd(failing) >= other.entryStart(failing), 'the open segment before the ended route ended')
  assert.equal(other.entryParent(filter), -1)
})

test("a record's format is its own response's, whatever the responses before it had", () => {
  // Each content-type a string of its own, as Express builds one for each response.
  const build = (type, charset) => [type, charset].filter(Boolean).join('; charset=')
  const cases = [
    [build('application/json', 'utf-8'), 'json'],
    [build('application/json', 'utf-8'), 'json'],
    [build('text/html', 'utf-8'), 'html'],
    [build('text/plain', 'utf-8'), 'other'],
    [undefined, 'other'],
    [build('text/html', 'utf-8'), 'html'],
    [build('application/problem+json'), 'json'],
    [build('application/json', 'utf-8'), 'json']
  ]
  for (const [contentType, format] of cases) {
    const record = new RequestRecord('GET', 0)
    record.finish({ statusCode: 200, getHeader: () => contentType }, false)
    assert.equal(record.format, format, `content-type ${contentType}`)
  }
})

test('a record\'s own start and end are kept apart from its entries\' times, whatever the requests before it', () => {
  for (const entries of [3, 12, 1]) {
    const record = new RequestRecord('GET', 1000.25)
    assert.equal(record.startMs, 1000.25)
    assert.equal(record.endMs, 0, 'no end until the response ends')
    for (let i = 0; i < entries; i++) {
      const index = record.openEntry({ kind: 'middleware', name: `m${i}` })
      assert.equal(record.entryEnd(index), -1)
      assert.equal(record.startMs, 1000.25, 'an entry does not move the request\'s start')
      record.closeEntry(index, null)
    }
    record.finish(fakeResponse, false)
    assert.ok(record.endMs > 0)
    assert.equal(record.responseTimeMs, record.endMs - 1000.25)
    for (let i = 0; i < entries; i++) assert.ok(record.entryEnd(i) >= record.entryStart(i) && record.entryStart(i) > 0)
  }
})

test('a record carries mount state only once it enters a router: a request at the top has none', () => {
  const record = new RequestRecord('GET', 0)
  record.openEntry({ kind: 'middleware', name: 'a' })
  assert.equal(record.mounts, null)
  assert.equal(record.prefix, '')
  const router = record.enterContainer({ kind: 'router', name: 'router' }, { baseUrl: '/api/7', params: { id: '7' } },
    { keys: [{ name: 'id' }], path: '/api/:id' })
  assert.notEqual(record.mounts, null)
  assert.equal(record.prefix, '/api/:id')
  assert.equal(record.entryTemplate(router), '/api/:id')
  assert.equal(record.entryParent(record.openEntry({ kind: 'middleware', name: 'b' })), router)
  record.exitContainer(router)
  assert.equal(record.prefix, '')
  assert.equal(record.entryParent(record.openEntry({ kind: 'middleware', name: 'c' })), -1)
})
