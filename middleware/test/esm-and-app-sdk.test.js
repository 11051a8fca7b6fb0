'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFile } = require('node:child_process')

function runFixture (name) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'fixtures', name)], { timeout: 30_000, env: { ...process.env, OTEL_TRACES_SAMPLER: '' } },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${name} failed: ${err.message}\n${stderr}`))
        resolve(JSON.parse(stdout))
      })
  })
}

test('an ESM app using `import express from "express"` is traced', async () => {
  const snapshot = await runFixture('esm-app.mjs')
  assert.equal(snapshot.service, 'esm-app')
  const operation = snapshot.operations.find((o) => o.route === '/items/:id')
  assert.ok(operation, JSON.stringify(snapshot.operations.map((o) => o.route)))
  assert.equal(operation.format, 'json')
  assert.equal(operation.count, 4)
  assert.deepEqual(operation.segments.map((s) => [s.name, s.kind]), [
    ['jsonParser', 'middleware'], ['id', 'param'], ['viewItem', 'handler']
  ])
  assert.match(operation.segments[2].file, /esm-app\.mjs$/)
})

test('an app with its own NodeSDK + instrumentation-http: its provider is used and the HTTP span is the parent', async () => {
  const { spans, breakdown } = await runFixture('otel-sdk-app.js')
  const httpSpans = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-http' && s.kind === 1)
  assert.equal(httpSpans.length, 2)
  const ours = spans.filter((s) => s.scope === '@nodebench/trace')
  assert.equal(ours.length, 4, 'loadUser and showUser for each of two requests')
  for (const span of ours) {
    const parent = httpSpans.find((h) => h.spanId === span.parentSpanId)
    assert.ok(parent, `${span.name} is a child of an HTTP server span`)
    assert.equal(parent.traceId, span.traceId)
    assert.equal(parent.attributes['http.route'], '/users/:id')
  }
  assert.deepEqual(ours.slice(0, 2).map((s) => s.name), ['handler - loadUser', 'handler - showUser'])
  assert.equal(breakdown.operations[0].route, '/users/:id')
})

test("exporter 'otlp': nodebench's spans load none of the SDK; the SDK and the OTLP serializer are loaded when the app creates spans of its own (exported too)", async () => {
  const result = await runFixture('otlp-app-spans.js')
  assert.equal(result.sdkBeforeConstruction, false)
  assert.equal(result.sdkAfterConstruction, false, 'nodebenchTrace() does not load the tracing SDK')
  assert.equal(result.resourcesAfterConstruction, true, 'the resource is detected when nodebenchTrace() is called')
  assert.equal(result.requestExports, 1, "nodebench's spans of three requests in one export")
  assert.equal(result.tracingSdkAfterRequests, false, 'spans nodebench encodes itself need no tracing SDK')
  assert.equal(result.serializerAfterRequests, false, 'spans nodebench encodes itself need no OTLP serializer')
  assert.equal(result.exportsAfterAppSpan, 2, "the app's own span is exported through OTLPTraceExporter")
  assert.equal(result.sdkAfterAppSpan, true)
  assert.equal(result.serializerAfterAppSpan, true)
  assert.equal(result.injected, `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, 'the app can propagate through the propagator nodebench registered')
  assert.equal(result.dropped, 0)
})
