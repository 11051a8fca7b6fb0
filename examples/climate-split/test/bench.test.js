'use strict'

// nodebench-test: once. The sweep cells and the report bench makes of the example: the Node.js version does not change what this tests (split.test.js's trace runs on every line).
// The example's workload under `nodebench bench`, on real processes and the real (embedded) database with small
// reads: a sweep of two document counts and two back-end counts makes a cell per combination, each carrying its
// values, every cell's front-end started with its back-ends; the report draws response time against documents,
// sets the study's figures beside the run's, says what this machine's cores cannot show, and lists the front-end
// and each back-end as a process of its own.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { temporaryDir, runCli, isolatedEnv } = require('../../../test/support')

const EXAMPLE_DIR = path.join(__dirname, '..')

test('bench sweeps the split read over documents and back-ends: a cell per combination, the sweep in the report', { timeout: 600_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-climate-bench-')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--app', EXAMPLE_DIR, '--quick', '--scenarios', 'whole,split-concurrent',
    '--vary', 'documents=200,400', '--vary', 'backends=2,4', '--warmup', '1', '--out', out], { env: isolatedEnv(dir), timeout: 540_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /6 of 6 cells measured/)

  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.deepEqual(results.config.vary['split-concurrent'], { processes: [1], documents: [200, 400], backends: [2, 4] })
  // The whole read keeps its own values: no back-ends, five processes (the study's Node Cluster).
  assert.deepEqual(results.cells.map((cell) => [cell.scenario, cell.processes, cell.values]), [
    ['whole', 5, { processes: 5, documents: 200, backends: 0 }],
    ['whole', 5, { processes: 5, documents: 400, backends: 0 }],
    ['split-concurrent', 1, { processes: 1, documents: 200, backends: 2 }],
    ['split-concurrent', 1, { processes: 1, documents: 200, backends: 4 }],
    ['split-concurrent', 1, { processes: 1, documents: 400, backends: 2 }],
    ['split-concurrent', 1, { processes: 1, documents: 400, backends: 4 }]
  ])
  for (const cell of results.cells) {
    assert.equal(cell.status, 'ok', cell.failure)
    assert.equal(cell.unexpectedStatus, 0)
    // Each cell's read is its own size: the documents value went into the request's path.
    const bytesPerDocument = cell.bytesPerResponse / cell.values.documents
    assert.ok(bytesPerDocument > 100 && bytesPerDocument < 250, `${bytesPerDocument} bytes a document`)
    // Its front-end started with its back-ends (the workload's start: --backends {backends}), each sampled on its own.
    const names = cell.resources.processes.map((p) => p.name)
    const backends = names.filter((name) => name.startsWith('app: backend.js'))
    assert.equal(backends.length, cell.values.backends, names.join(', '))
  }
  const split = results.cells.find((cell) => cell.scenario === 'split-concurrent' && cell.values.backends === 4)
  const operation = split.breakdown.operations.find((o) => o.route === '/api/measurements/split')
  assert.deepEqual(operation.segments.map((s) => s.name), ['parseRead', 'planSubtasks', 'awaitBackends', 'mergeParts', 'writeMeasurements'])

  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /## Sweeps: response time against the varied values/)
  assert.match(markdown, /\| series \| documents 200 \| documents 400 \|/)
  assert.match(markdown, /\| split read, concurrent, backends 2 \| [\d.]+ \| [\d.]+ \|/)
  assert.match(markdown, /\| whole read \(Node Cluster\) \| [\d.]+ \| [\d.]+ \|/)
  assert.match(markdown, /\| Fig\. 4 \| .* \| documents 400 \| [\d.]+ \/ [\d.]+ \| \d+% \([\d.]+×\) \| - \|/)
  // The cores are the machine's, as the run recorded them.
  const cores = results.machine.cores
  assert.match(markdown, new RegExp(`This machine has ${cores} cores?`))
  if (cores < 9) assert.match(markdown, /What needs more cores than it has, and is shown here without being claimed: Fig\. 5 .*which needs 9 cores/)
  assert.match(markdown, /### split read, concurrent \(json\), documents 400, backends 4, app, 1 process\n/)
  assert.match(markdown, /\| app: backend\.js 4 \| \d+ \|/)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<section id="sweep">/)
  assert.match(html, /Response time against documents/)
})
