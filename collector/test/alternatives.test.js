'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { JAEGER_IMAGE, JAEGER_ALTERNATIVES } = require('../lib/errors')

test('the Docker alternative to building Jaeger runs the image of the example\'s compose file', () => {
  const compose = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'mongo-admin', 'docker-compose.yml'), 'utf8')
  assert.equal(/^ {2}jaeger:\n {4}image: (\S+)$/m.exec(compose)[1], JAEGER_IMAGE)
  assert.match(JAEGER_ALTERNATIVES[0], new RegExp(`^run Jaeger with Docker: \`docker run .*-p 127\\.0\\.0\\.1:4318:4318 ${JAEGER_IMAGE}\``))
})

test('the compose file\'s Prometheus is the image docs/fleet.md names, with the configuration beside it', () => {
  const dir = path.join(__dirname, '..', '..', 'examples', 'mongo-admin')
  const compose = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')
  const image = /^ {2}prometheus:\n {4}image: (\S+)$/m.exec(compose)[1]
  assert.ok(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'fleet.md'), 'utf8').includes(image), `docs/fleet.md names ${image}`)
  assert.match(compose, /- \.\/prometheus\.yml:\/etc\/prometheus\/prometheus\.yml:ro/)
  assert.match(fs.readFileSync(path.join(dir, 'prometheus.yml'), 'utf8'), /job_name: nodebench/)
})
