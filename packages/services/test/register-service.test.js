'use strict'

// In a file of its own: a registered service stays registered for the rest of the process.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { serviceNames, registerService, startService, serviceStatus } = require('..')
const { temporaryDir } = require('./helpers')

test('registerService adds a service that startService and serviceStatus then know; a bad spec is refused', async (t) => {
  assert.throws(() => registerService('Bad Name', {}), /name/)
  assert.throws(() => registerService('thing', { start () {}, env () {} }), /spec\.answers/)
  const stateDir = path.join(temporaryDir(t), 'services')
  registerService('thing', {
    description: 'a test service',
    start: async () => ({ state: { name: 'thing', pid: process.pid, uri: 'x://thing', startedAt: 'now' }, alreadyRunning: false }),
    answers: async () => true,
    env: (state) => ({ THING_URL: state.uri })
  })
  assert.deepEqual(serviceNames(), ['db', 'thing'])
  const started = await startService('thing', { stateDir })
  assert.deepEqual(started.env, { THING_URL: 'x://thing' })
  assert.equal((await serviceStatus('thing', { stateDir })).running, false, 'nothing was registered in the state dir')
})
