'use strict'

// The KIT study's measurements on this example (Maatouki, Meyer, Szuba, Streit, "A horizontally-scalable
// multiprocessing platform based on Node.js"): reads of N documents of climate metadata, whole in one process of a
// Node Cluster, or split across K back-ends concurrently or iteratively and merged, swept over N and K (Figs. 4
// and 5), and split reads at once from several clients (Fig. 6). Every cell starts the front-end with its back-ends
// (`server.js --backends K`, the workload's `start`), so the back-end count is the topology's. `bench --quick`
// reads small N only (about a minute on 2 cores); the full sweep goes to the study's 300,000 documents.
//
//   npx nodebench bench --app examples/climate-split --quick
//   npx nodebench bench --app examples/climate-split --reps 1 --vary documents=1000,100000

const { MongoClient } = require('mongodb')
const { seedMeasurements } = require('./lib/measurements')

const DOCUMENTS = { values: [1000, 10000, 100000, 300000], quick: [500, 2000] }
const BACKENDS = [4, 8]
// Reads of up to 300,000 documents take seconds each: few requests, one client at a time (the study's Figs. 4 and
// 5 are response times of single requests), two to warm up.
const READ = Object.freeze({ connections: 1, amount: 10, quickAmount: 3, warmup: 1 })

module.exports = {
  name: 'climate split (KIT study)',
  description: 'Large reads of MIPAS-like climate metadata, whole (Node Cluster) or split across back-ends (Node Scala)',
  formats: ['json'],
  services: ['mongodb'],
  // The front-end runs one process; the back-end count is each cell's value.
  vary: { processes: [1] },
  start: { args: ['--backends', '{backends}'] },

  /** Seeds the database with the largest read of the run (documents 0 to N - 1; what is there already stays). */
  async setup ({ env, log, vary }) {
    const count = Math.max(0, ...(vary.documents ?? []))
    const client = new MongoClient(env.MONGODB_URI)
    try {
      await client.connect()
      log(`seeding ${count.toLocaleString('en-US')} measurements`)
      await seedMeasurements(client, { count, onProgress: log })
    } finally {
      await client.close()
    }
  },

  scenarios: {
    whole: {
      label: 'whole read (Node Cluster)',
      ...READ,
      dominant: 'readAll',
      // The study's Node Cluster: five instances, each reading everything.
      vary: { documents: DOCUMENTS, backends: [0], processes: [5] },
      request: { path: '/api/measurements?documents={documents}' }
    },
    'split-concurrent': {
      label: 'split read, concurrent',
      ...READ,
      dominant: 'awaitBackends',
      vary: { documents: DOCUMENTS, backends: BACKENDS },
      request: { path: '/api/measurements/split?documents={documents}&mode=concurrent' }
    },
    'split-iterative': {
      label: 'split read, iterative',
      ...READ,
      dominant: 'awaitBackends',
      // Sixteen sub-tasks, each free back-end taking the next (executeIterative).
      vary: { documents: DOCUMENTS, backends: BACKENDS },
      request: { path: '/api/measurements/split?documents={documents}&mode=iterative&subtasks=16' }
    },
    'concurrent-requests': {
      label: 'concurrent split reads',
      amount: 16,
      quickAmount: 4,
      warmup: 1,
      dominant: 'awaitBackends',
      // Fig. 6: requests of 60,000 documents each from several clients at once.
      vary: {
        connections: { values: [1, 2, 4, 8], quick: [1, 4] },
        backends: BACKENDS,
        documents: { values: [60000], quick: [2000] }
      },
      request: { path: '/api/measurements/split?documents={documents}&mode=concurrent' }
    }
  },

  reference: {
    source: 'Maatouki, Meyer, Szuba, Streit, "A horizontally-scalable multiprocessing platform based on Node.js", KIT',
    findings: [
      'Split across four back-ends, a read of 300,000 documents took 74% of Node Cluster\'s response time, and the gap grew with the read\'s size (Fig. 4).',
      'Eight back-ends instead of four answered large reads up to 100% faster, small ones little faster (Fig. 5).',
      'With concurrent requests of 60,000 documents each, eight back-ends were up to 58% faster than four (Fig. 6).',
      'Under Node Cluster one instance ran at 84-99% CPU while the others idled at 18-46% (Table I); the back-ends ran evenly at 96-99.6% and the front-end was nearly idle (Table II).'
    ],
    // Each comparison: response time of `of` against `against` at each value of `over`; `measure` ratio (of /
    // against) or gain (against / of - 1: how much faster); `study` the paper's figure at a value (`at`) or its
    // largest (`upTo`); `cores`: what the effect needs to show.
    sweeps: [
      {
        figure: 'Fig. 4',
        claim: 'split (4 back-ends) against Node Cluster: 74% of its response time at 300,000 documents, the gap growing with size',
        of: { scenario: 'split-concurrent', values: { backends: 4 } },
        against: { scenario: 'whole' },
        over: 'documents',
        measure: 'ratio',
        study: { at: { 300000: 0.74 } }
      },
      {
        figure: 'Fig. 5',
        claim: 'eight back-ends against four: up to +100% for large reads, little for small ones',
        of: { scenario: 'split-concurrent', values: { backends: 8 } },
        against: { scenario: 'split-concurrent', values: { backends: 4 } },
        over: 'documents',
        measure: 'gain',
        study: { upTo: 1.0 },
        cores: 9
      },
      {
        figure: 'Fig. 6',
        claim: 'concurrent requests of 60,000 documents: eight back-ends up to +58% over four',
        of: { scenario: 'concurrent-requests', values: { backends: 8 } },
        against: { scenario: 'concurrent-requests', values: { backends: 4 } },
        over: 'connections',
        measure: 'gain',
        study: { upTo: 0.58 },
        cores: 9
      }
    ],
    // What the per-process table shows (CPU and memory by process), beside the study's Tables I and II.
    resources: [
      { figure: 'Table I', claim: 'Node Cluster: one instance at 84-99% CPU, the others at 18-46%', scenario: 'whole' },
      { figure: 'Table II', claim: 'split: back-ends evenly at 96-99.6% CPU, the front-end nearly idle', scenario: 'split-concurrent' }
    ]
  }
}
