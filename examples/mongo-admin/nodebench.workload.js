'use strict'

// The 2017 study's workload on this app, for `nodebench bench` and `nodebench flame` (their default app):
// "Performance Modeling of NodeJS and NoSQL Databases with AngularJS", CSUN MSc thesis, 2017. Mongo-Express
// (HTML) against its AngularJS port's API (JSON), Apache Bench 2.3, Node.js 5.6, MongoDB, 1-8 processes
// (PM2), 5 runs per configuration. The figures under `reference` are the study's
// (shared/thesis-reference.md), which the bench report sets beside the run's.
//
// Beside them, the companion study's REST service, `review-list` and `review-create` (JSON only, on the
// `reviews` collection): Nawaz, Rucaj, Kamran, "Evaluate scalable and high-performance Node.js Application
// Designs" (TU Berlin), which scaled 1 to 7 independent instances behind nginx (`bench --topology nginx`).
// A run without --scenarios measures the 2017 study's three.

const { MongoClient } = require('mongodb')
const { seed, seedReviews, DATABASE, COLLECTION, REVIEWS } = require('./seed')

// What a write sends: one small document, as the study's `{ username }`.
const WRITE_DOCUMENT = Object.freeze({ username: 'nodebench-bench' })
// As a browser asks for pages (a form's redirect then answers in HTML) and the single-page client for JSON.
const HTML = Object.freeze({ accept: 'text/html' })
const JSON_API = Object.freeze({ accept: 'application/json' })
// What the REST service's POST creates: one review.
const REVIEW = Object.freeze({ reviewer: 'nodebench-bench', product: 'product-7', rating: 4, text: 'Sent by nodebench bench.' })

// The TU Berlin study's figures and what limits their comparison here (the report sets them beside the run).
const SCALE_OUT_REFERENCE = Object.freeze({
  scaleOut: {
    source: 'Nawaz, Rucaj, Kamran, "Evaluate scalable and high-performance Node.js Application Designs", TU Berlin',
    setup: '1 to 7 independent instances of a REST service (GET 10 records, POST one; JSON on MongoDB) behind nginx ' +
      '(least_conn and round robin; max_fails=3, fail_timeout=30s), on one machine and then on several',
    criterion: 'throughput at 0% error rate: a single failed request fails the scenario',
    oneMachine: { throughputGain: { 1: 1, 3: 1.21 }, finding: 'On one machine, 1 to 3 instances raised throughput by 21%; more instances added nothing.' },
    severalMachines: {
      finding: 'On several machines throughput grew up to 6 instances; at 7 the error rate rose while throughput stayed flat.',
      repeatable: false
    }
  }
})

/**
 * A hook that makes `collection` hold exactly its 1000 documents with `seedFn` (seed.js), removing what write
 * runs added. An app at --url has a database nodebench does not know (MONGODB_URI unset): it must hold them
 * already.
 */
function seeding (seedFn, collection) {
  return async function ({ env, log }) {
    if (!env.MONGODB_URI) {
      log(`MONGODB_URI is not set: ${DATABASE}.${collection} is not seeded (node examples/mongo-admin/seed.js does it)`)
      return
    }
    const client = new MongoClient(env.MONGODB_URI, { serverSelectionTimeoutMS: 10000 })
    try {
      const result = await seedFn(client)
      log(`${DATABASE}.${collection} holds ${result.count} documents (inserted ${result.inserted}, removed ${result.removed})`)
    } finally {
      await client.close()
    }
  }
}

/** nodebench.users: the study's 1000 documents. */
const seedUsers = seeding(seed, COLLECTION)
/** nodebench.reviews: the TU Berlin service's 1000 records. */
const seedReviewRecords = seeding(seedReviews, REVIEWS)

/** The id of a document to read: the first of nodebench.users, through the app's own API. */
async function findDocument ({ base }) {
  const response = await fetch(`${base}/api/db/${DATABASE}/${COLLECTION}?limit=1`, { headers: JSON_API })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET /api/db/${DATABASE}/${COLLECTION} answered ${response.status}: ${text.slice(0, 200)}`)
  const page = JSON.parse(text)
  if (!Array.isArray(page.documents) || page.documents.length === 0) {
    throw new Error(`the collection ${DATABASE}.${COLLECTION} is empty: seed it (node examples/mongo-admin/seed.js)`)
  }
  return { documentId: page.documents[0]._id }
}

module.exports = {
  name: 'mongo-admin: the 2017 study',
  services: ['mongodb'],
  formats: ['html', 'json'],
  setup: seedUsers,
  defaultScenarios: ['doc-read', 'write', 'collection-read'],
  scenarios: {
    'doc-read': {
      label: 'document read',
      connections: 100,
      amount: 5000,
      dominant: 'document',
      setup: findDocument,
      requests: {
        html: { method: 'GET', path: '/db/nodebench/users/{documentId}', headers: HTML, status: 200 },
        json: { method: 'GET', path: '/api/db/nodebench/users/{documentId}', headers: JSON_API, status: 200 }
      },
      reference: {
        shares: {
          json: { 1: 96.65, 2: 95.53, 3: 95.27, 4: 96.06, 8: 95.73 },
          html: { 1: 98.83, 2: 98.56, 3: 98.55, 4: 98.43, 8: 98.47 }
        },
        bytes: { html: 7312, json: 452 }
      }
    },
    write: {
      label: 'document write',
      // The study lowered write concurrency to 25: one process "could not reliably serve" more.
      connections: 25,
      amount: 5000,
      dominant: 'addDocument',
      requests: {
        html: {
          method: 'POST',
          path: '/db/nodebench/users',
          headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ document: JSON.stringify(WRITE_DOCUMENT) }).toString(),
          // Mongo-Express answers a form with a redirect to the collection (Apache Bench counted those non-2xx too).
          status: 302
        },
        json: { method: 'POST', path: '/api/db/nodebench/users', headers: JSON_API, body: WRITE_DOCUMENT, status: 201 }
      },
      // Seeding again removes what the writes added, so every cell reads the same 1000 documents.
      teardown: seedUsers,
      reference: {
        shares: {
          json: { 1: 97.32, 2: 96.69, 3: 96.49, 4: 96.26, 8: 95.82 },
          html: { 1: 95.30, 2: 95.80, 3: 95.15, 4: 94.39, 8: 95.45 }
        },
        bytes: { html: 35, json: 29 }
      }
    },
    'collection-read': {
      label: 'collection read',
      connections: 100,
      amount: 5000,
      // A 1000-document page takes tens of milliseconds to build: `--quick` sends fewer.
      quickAmount: 100,
      dominant: 'viewCollection',
      requests: {
        html: { method: 'GET', path: '/db/nodebench/users', headers: HTML, status: 200 },
        json: { method: 'GET', path: '/api/db/nodebench/users', headers: JSON_API, status: 200 }
      },
      reference: {
        shares: {
          json: { 1: 99.95, 2: 99.93, 3: 99.92, 4: 99.92, 8: 99.92 },
          html: { 1: 99.93, 2: 99.92, 3: 99.92, 4: 99.92, 8: 99.94 }
        },
        bytes: { html: 783799, json: 157434 }
      }
    },
    'review-list': {
      label: 'review list',
      formats: ['json'],
      connections: 50,
      amount: 5000,
      quickAmount: 500,
      dominant: 'listReviews',
      setup: seedReviewRecords,
      request: { method: 'GET', path: '/api/reviews', headers: JSON_API, status: 200 },
      reference: SCALE_OUT_REFERENCE
    },
    'review-create': {
      label: 'review create',
      formats: ['json'],
      connections: 25,
      amount: 5000,
      quickAmount: 500,
      dominant: 'createReview',
      setup: seedReviewRecords,
      request: { method: 'POST', path: '/api/reviews', headers: JSON_API, body: REVIEW, status: 201 },
      teardown: seedReviewRecords,
      reference: SCALE_OUT_REFERENCE
    }
  },
  // The study's client-side half (`nodebench browser`): its two front ends, the server-rendered pages and the
  // AngularJS port (public/spa), which shows a page once its data has come (`ready`), on the same pages.
  browser: {
    frontEnds: {
      'server-rendered': { url: '{path}' },
      'single-page': { url: '/spa/#!{path}', ready: 'document.body.dataset.ready === "true"' }
    },
    pages: {
      home: '/',
      database: `/db/${DATABASE}`,
      collection: `/db/${DATABASE}/${COLLECTION}`,
      document: `/db/${DATABASE}/${COLLECTION}/{documentId}`
    },
    defaultPages: ['home', 'collection'],
    setup: findDocument
  },
  reference: {
    source: '"Performance Modeling of NodeJS and NoSQL Databases with AngularJS", CSUN MSc thesis, 2017',
    // Chrome DevTools on a machine of its own, the home page and a 1000-document collection page
    // (shared/thesis-reference.md, "Client side"; Figs 30-38).
    browser: {
      // Fig 30: the AngularJS port fired `load` almost a second later than Mongo-Express (home page).
      loadLaterMs: { home: 1000 },
      // Figs 31-32: the port's JS heap over Mongo-Express's after loading the page.
      heapRatio: { home: 2, collection: 1.93 },
      heapText: { home: 'over twice', collection: '~93% more' },
      // Figs 33-36: the port's heaviest functions loading the collection page (ms).
      functions: { collection: { $apply: 214, $digest: 198 } },
      jqueryCompletedMs: { 'single-page': 85, 'server-rendered': 7.3 },
      // Figs 37-38: AngularJS's own statistics of the port.
      angular: {
        home: { scopes: 33, watchers: 75, digestMeanMs: 9 },
        collection: { scopes: 273, watchers: 539, digestMeanMs: 13.8 }
      }
    },
    processes: [1, 2, 3, 4, 8],
    repetitions: 5,
    findings: [
      'JSON beat HTML at every process count, for every operation, in latency and requests per second.',
      'Collection read: JSON was "almost twice as" fast as HTML in requests per second.',
      'Going from 1 to 2 processes gave the largest gain; returns diminished after that.',
      'In all three operations, the dominant function is the one doing the database I/O.'
    ]
  }
}
