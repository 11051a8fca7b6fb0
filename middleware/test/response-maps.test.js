'use strict'

// Every response of a traced app goes through the same maps as the first one, as every response of the app
// bare does (Node.js 24; 20 and 22 give each response a map of its own, bare or traced). The first request is
// begun by nodebench's middleware, after Express set up the response; the others by the root app's wrapped
// `handle`, before it (Express 5 sets it up in `handle`, Express 4 in its `expressInit` layer): were anything
// stored on the response there, the responses would have two sequences of maps, and the sites every response
// passes (Node.js's `setHeader`, `getHeader`) would go megamorphic. nodebench finds the record of a response the
// server made through its connection and stores nothing on it (request-record.js, benchmarks/LOG.md).
// Checked with V8's %HaveSameMap in a child process of its own.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { nodeBinary } = require('@nodebench/services')

const FIXTURE = path.join(__dirname, 'fixtures', 'response-maps.js')

function maps (node, traced, express4) {
  const args = ['--allow-natives-syntax', FIXTURE]
  if (traced) args.push('--traced')
  if (express4) args.push('--express4')
  return new Promise((resolve, reject) => {
    execFile(node, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`))
      const lines = stdout.trim().split('\n')
      resolve(JSON.parse(lines[lines.length - 1]))
    })
  })
}

async function checkResponsesShareMaps (t, node) {
  for (const express4 of [false, true]) {
    const express = express4 ? 'Express 4' : 'Express 5'
    const bare = await maps(node, false, express4)
    if (!bare.sameAsFirst.every(Boolean)) {
      t.skip(`Node.js ${bare.node} gives each response a map of its own, bare`)
      return
    }
    const traced = await maps(node, true, express4)
    assert.deepEqual(traced.sameAsFirst, bare.sameAsFirst,
      `Node.js ${traced.node}, ${express}: the traced app's responses have the first one's map, as the bare app's do`)
  }
}

test('a traced app\'s responses share one map, as the app\'s bare do (this Node.js)', { timeout: 180_000 }, async (t) => {
  await checkResponsesShareMaps(t, process.execPath)
})

// Under Node.js 24 itself (the version matrix) the test above is this one.
const onNode24 = process.versions.node.split('.')[0] === '24'

test('a traced app\'s responses share one map, as the app\'s bare do (Node.js 24)', { timeout: 600_000, skip: onNode24 && 'the test above ran on Node.js 24' }, async (t) => {
  const { path: node } = await nodeBinary('24', { onProgress: (line) => t.diagnostic(line) })
  await checkResponsesShareMaps(t, node)
})
