'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { BreakdownAggregator, renderTable, renderMarkdown, renderHtml, renderJson } = require('..')

function sampleSnapshot () {
  const aggregator = new BreakdownAggregator({ service: 'mongo-admin' })
  const segments = [
    { key: 'param document a:1', name: 'document', kind: 'param', file: '/a.js', line: 1 },
    { key: 'handler viewDocument a:2', name: 'viewDocument', kind: 'handler', file: '/a.js', line: 2 }
  ]
  aggregator.recordRequest({
    method: 'GET',
    route: '/db/:database/:collection/:document',
    format: 'html',
    responseTimeMs: 10,
    errored: false,
    aborted: false,
    segmentCount: 2,
    segmentInfo: (i) => segments[i],
    segmentDurationMs: (i) => [6, 3][i]
  })
  return aggregator.snapshot({ droppedSpans: 4 })
}

test('terminal table: one table per operation, shares in path order, unattributed last', () => {
  const text = renderTable(sampleSnapshot())
  assert.match(text, /GET \/db\/:database\/:collection\/:document \[html\]: 1 requests, 0 errors/)
  const lines = text.split('\n')
  const documentLine = lines.findIndex((l) => /document .*param/.test(l))
  const viewLine = lines.findIndex((l) => /viewDocument/.test(l))
  const unattributedLine = lines.findIndex((l) => /unattributed/.test(l))
  assert.ok(documentLine < viewLine && viewLine < unattributedLine)
  assert.match(lines[documentLine], /60\.00%/)
  assert.match(lines[unattributedLine], /10\.00%/)
  assert.match(text, /4 spans dropped/)
})

test('markdown: a pipe table per operation', () => {
  const md = renderMarkdown(sampleSnapshot())
  // Brackets are escaped (Markdown renders `\[html\]` as [html]): text from the app never forms a link.
  assert.match(md, /^### GET \/db\/:database\/:collection\/:document \\\[html\\\]$/m)
  assert.match(md, /^\| 1 \| document \| param \| 1 \| 6\.000 \| .* \| 60\.00% \|$/m)
})

test('html: escaped, self-contained', () => {
  const snapshot = sampleSnapshot()
  snapshot.service = '<script>'
  const html = renderHtml(snapshot)
  assert.match(html, /^<!doctype html>/)
  assert.ok(!html.includes('<script>'))
  assert.match(html, /&lt;script&gt;/)
  assert.match(html, /title="\/a\.js:1"/)
})

test('json round-trips the snapshot', () => {
  const snapshot = sampleSnapshot()
  assert.deepEqual(JSON.parse(renderJson(snapshot)), snapshot)
})

test('an empty snapshot says so', () => {
  const empty = new BreakdownAggregator({ service: 'idle' }).snapshot()
  assert.match(renderTable(empty), /no requests recorded for idle/)
  assert.match(renderMarkdown(empty), /no requests recorded for idle/)
  assert.match(renderHtml(empty), /no requests recorded for idle/)
})
