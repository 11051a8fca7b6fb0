'use strict'

// The study's workload and figures (shared/thesis-reference.md): the defaults of `nodebench bench`, and
// what its report compares the measurements with. "Performance Modeling of NodeJS and NoSQL Databases with
// AngularJS", CSUN MSc thesis, 2017: Mongo-Express (HTML) against its AngularJS port's API (JSON), Apache
// Bench 2.3, Node.js 5.6, MongoDB, 1-8 processes (PM2), 5 runs per configuration.

/**
 * The operations the study measured. `dominant`: the function that owns the operation's response time.
 * `request(format, documentId)`: what autocannon sends (the example app's routes).
 */
const SCENARIOS = Object.freeze({
  'doc-read': Object.freeze({
    label: 'document read',
    connections: 100,
    amount: 5000,
    dominant: 'document',
    method: 'GET',
    routes: Object.freeze({ html: '/db/:database/:collection/:document', json: '/api/db/:database/:collection/:document' })
  }),
  write: Object.freeze({
    label: 'document write',
    // The study lowered write concurrency to 25: one process "could not reliably serve" more.
    connections: 25,
    amount: 5000,
    dominant: 'addDocument',
    method: 'POST',
    routes: Object.freeze({ html: '/db/:database/:collection', json: '/api/db/:database/:collection' })
  }),
  'collection-read': Object.freeze({
    label: 'collection read',
    connections: 100,
    amount: 5000,
    dominant: 'viewCollection',
    method: 'GET',
    routes: Object.freeze({ html: '/db/:database/:collection', json: '/api/db/:database/:collection' })
  })
})

const SCENARIO_NAMES = Object.freeze(Object.keys(SCENARIOS))
const FORMATS = Object.freeze(['html', 'json'])
const PROCESSES = Object.freeze([1, 2, 3, 4, 8])
const REPETITIONS = 5

/** Table 1: the share of response time (%) of the longest-running function, per process count. */
const TABLE_1 = Object.freeze({
  'collection-read': { json: { 1: 99.95, 2: 99.93, 3: 99.92, 4: 99.92, 8: 99.92 }, html: { 1: 99.93, 2: 99.92, 3: 99.92, 4: 99.92, 8: 99.94 } },
  write: { json: { 1: 97.32, 2: 96.69, 3: 96.49, 4: 96.26, 8: 95.82 }, html: { 1: 95.30, 2: 95.80, 3: 95.15, 4: 94.39, 8: 95.45 } },
  'doc-read': { json: { 1: 96.65, 2: 95.53, 3: 95.27, 4: 96.06, 8: 95.73 }, html: { 1: 98.83, 2: 98.56, 3: 98.55, 4: 98.43, 8: 98.47 } }
})

/** Response sizes (bytes) Apache Bench reported as document length. */
const RESPONSE_BYTES = Object.freeze({
  'doc-read': { html: 7312, json: 452 },
  write: { html: 35, json: 29 },
  'collection-read': { html: 783799, json: 157434 }
})

/** The study's findings, in its words where it has them. */
const FINDINGS = Object.freeze([
  'JSON beat HTML at every process count, for every operation, in latency and requests per second.',
  'Collection read: JSON was "almost twice as" fast as HTML in requests per second.',
  'Going from 1 to 2 processes gave the largest gain; returns diminished after that.',
  'In all three operations, the dominant function is the one doing the database I/O.'
])

module.exports = { SCENARIOS, SCENARIO_NAMES, FORMATS, PROCESSES, REPETITIONS, TABLE_1, RESPONSE_BYTES, FINDINGS }
