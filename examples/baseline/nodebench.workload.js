'use strict'

// Paliwal's comparison (Paliwal, "Performance investigation of Node.js"): a minimal Node.js HTTP server against
// Apache httpd (prefork MPM) running a minimal PHP page, 100,000 requests at 1,000 concurrent connections with
// ApacheBench, CPU and memory sampled with dstat during the runs. Here the same two servers on this machine
// (node-server.js; php/index.php under Debian's apache2 with libapache2-mod-php, started on loopback by
// nodebench), the same load with autocannon, every failed request counted by class, ApacheBench's latency
// percentiles, each process's CPU and memory, and the study's Table 2 beside the run:
//
//   nodebench bench --app examples/baseline            # 100,000 requests at 1,000 connections, per server
//   nodebench bench --app examples/baseline --quick    # a tenth
//
// Neither server is an app nodebench traces, so the report has no breakdown, only the servers side by side.
// `--baseline-targets express` adds a bare Express app answering the same "Hello World".

module.exports = {
  name: 'baseline: Node.js against Apache and PHP (Paliwal)',
  description: 'A minimal Node.js server and a minimal PHP page under Apache httpd (prefork, mod_php), side by side',
  targets: [
    { kind: 'node', label: 'a minimal Node.js server on node:http', script: 'node-server.js' },
    // Debian's prefork defaults (MaxRequestWorkers 150, KeepAlive on): Apache as its package installs it.
    { kind: 'apache-php', label: 'a minimal PHP page under Apache httpd, prefork and mod_php', root: 'php' }
  ],
  scenarios: {
    hello: {
      label: 'Hello World',
      connections: 1000,
      amount: 100_000,
      quickAmount: 10_000,
      request: { method: 'GET', path: '/', status: 200 }
    }
  },
  reference: {
    source: 'Paliwal, "Performance investigation of Node.js"',
    findings: [
      'Node.js served 4,725 requests per second against Apache with PHP\'s 823, with 147 failed requests against 879.',
      'A request took 211.6 ms on average (ApacheBench\'s time per request across the 1,000 concurrent ones) under Node.js, ' +
        '1,214.5 ms under Apache with PHP; 98% of Node.js\'s requests were served within 3,030 ms.',
      'The event loop of one Node.js process outran Apache\'s pool of processes, one per connection.'
    ],
    targets: {
      table: 'Table 2',
      setup: 'ApacheBench, 100,000 requests at 1,000 concurrent connections, a minimal Node.js server against Apache (prefork) with a minimal PHP page',
      figures: {
        node: {
          requests: 100_000,
          concurrency: 1000,
          requestsPerSec: 4725,
          failed: 147,
          timePerRequestMs: 211.6,
          percentilesMs: { 98: 3030 }
        },
        'apache-php': {
          requests: 100_000, concurrency: 1000, requestsPerSec: 823, failed: 879, timePerRequestMs: 1214.5
        }
      }
    }
  }
}
