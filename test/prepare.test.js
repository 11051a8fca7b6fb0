'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { prepareTestDependencies, STEPS } = require('./prepare')

test('the database, Jaeger, Chromium, Prometheus, nginx, Apache with PHP, the NestJS apps and Express 4 with express-async-errors are made ready, in that order', () => {
  assert.deepEqual(STEPS.map((step) => step.what), [
    'the embedded database (FerretDB)', 'Jaeger', 'Chromium (the report\'s browser check, nodebench browser)', 'Prometheus (the fleet tests)',
    'nginx (the scale-out tests)', 'Apache httpd with PHP (the baseline tests)', 'the NestJS apps (Nest 12, 11 and 10, compiled from examples/nest-cats)',
    'Express 4 with express-async-errors (its own folder: its peer is Express 4)'
  ])
})

test('a step that fails stops the preparation, and its error names the step', async () => {
  const ran = []
  const steps = [
    { what: 'first', ready: async (onProgress) => { ran.push('first'); onProgress('first ready') } },
    { what: 'second', ready: async () => { ran.push('second'); throw new Error('apt-get is not on PATH') } },
    { what: 'third', ready: async () => { ran.push('third') } }
  ]
  const progress = []
  await assert.rejects(prepareTestDependencies({ steps, onProgress: (m) => progress.push(m) }),
    (err) => err.step === 'second' && /apt-get is not on PATH/.test(err.message))
  assert.deepEqual(ran, ['first', 'second'])
  assert.deepEqual(progress, ['first ready'])
})
