'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const resources = require('@opentelemetry/resources')
const { detectResource, linuxHostDetector, machineId, hostArch } = require('../lib/resource')

test("on Linux, the host attributes are OpenTelemetry's host detector's, without its dynamic import", { skip: process.platform !== 'linux' }, async () => {
  const theirs = resources.detectResources({ detectors: [resources.hostDetector] })
  await theirs.waitForAsyncAttributes()
  assert.deepEqual(linuxHostDetector.detect().attributes, theirs.attributes)
})

test('the machine id comes from the first file that can be read, trimmed; none gives undefined', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-machine-id-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'second'), 'abc123\n')
  assert.equal(machineId([path.join(dir, 'missing'), path.join(dir, 'second')]), 'abc123')
  assert.equal(machineId([path.join(dir, 'missing')]), undefined)
  assert.deepEqual(['x64', 'arm', 'ppc', 'arm64', 's390x'].map(hostArch), ['amd64', 'arm32', 'ppc32', 'arm64', 's390x'])
})

test('the resource: NodeSDK\'s detectors and the service name, detected once per name, complete at once on Linux', () => {
  const resource = detectResource('resource-test')
  assert.equal(detectResource('resource-test'), resource)
  assert.equal(resource.attributes['service.name'], 'resource-test')
  assert.equal(resource.attributes['process.pid'], process.pid)
  assert.equal(resource.attributes['telemetry.sdk.language'], 'nodejs')
  assert.equal(typeof resource.attributes['service.instance.id'], 'string')
  assert.equal(resource.attributes['host.name'], os.hostname())
  if (process.platform === 'linux') assert.equal(resource.asyncAttributesPending, false)
})

test('what OTEL_RESOURCE_ATTRIBUTES gives wins over what is detected: a stable service.instance.id stays', () => {
  const saved = process.env.OTEL_RESOURCE_ATTRIBUTES
  process.env.OTEL_RESOURCE_ATTRIBUTES = 'service.instance.id=shop-7,host.name=given-host'
  try {
    const resource = detectResource('resource-test-given')
    assert.equal(resource.attributes['service.instance.id'], 'shop-7')
    assert.equal(resource.attributes['host.name'], 'given-host')
    assert.equal(resource.attributes['service.name'], 'resource-test-given')
  } finally {
    if (saved === undefined) delete process.env.OTEL_RESOURCE_ATTRIBUTES
    else process.env.OTEL_RESOURCE_ATTRIBUTES = saved
  }
})
