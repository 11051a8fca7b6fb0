'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')

test('nothing is kept per request: the heap stays flat over 8,000 requests and 80 aborted ones', async () => {
  const { heaps, operations } = await new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'memory-app.js')], { timeout: 60_000 },
      (err, stdout, stderr) => err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)))
  })
  assert.equal(operations.find((o) => o.route === '/items/:id').count, 8000)
  assert.equal(operations.find((o) => o.route === '/slow').aborted, 80)
  // After the first checkpoint (histograms allocated, code compiled), 6,000 more requests add less than
  // 1 MB: a record kept per request would add several.
  const growth = heaps[3] - heaps[1]
  assert.ok(growth < 1_000_000, `heap grew ${growth} bytes between checkpoints: ${heaps.join(', ')}`)
})
