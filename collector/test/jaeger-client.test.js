'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { JaegerClient, breakdownFromJaeger, parseSince, errorCodes } = require('..')
const { flattenSpans } = require('../lib/jaeger-client')
const { freeLoopbackPort } = require('@nodebench/services')
const { startTestJaeger } = require('./helpers')

const coded = (code, message) => (err) => {
  assert.equal(err.code, code, err.stack)
  assert.match(err.message, message)
  return true
}

test('parseSince: durations back from now, ISO times; anything else is NB_ERR_SINCE', () => {
  const now = new Date('2026-11-21T12:00:00Z')
  assert.equal(parseSince('10m', now).toISOString(), '2026-11-21T11:50:00.000Z')
  assert.equal(parseSince('90s', now).toISOString(), '2026-11-21T11:58:30.000Z')
  assert.equal(parseSince('2h', now).toISOString(), '2026-11-21T10:00:00.000Z')
  assert.equal(parseSince('1d', now).toISOString(), '2026-11-20T12:00:00.000Z')
  assert.equal(parseSince('2026-11-21T10:00:00Z', now).toISOString(), '2026-11-21T10:00:00.000Z')
  for (const bad of ['10 minutes', 'm10', '', '-5m', 'yesterday', '2026-13-45']) {
    assert.throws(() => parseSince(bad, now), coded(errorCodes.NB_ERR_SINCE, /neither a duration nor a time; expected e\.g\. 90s, 10m/))
  }
})

test('JaegerClient refuses a URL that is not http(s)', () => {
  assert.throws(() => new JaegerClient({ url: 'localhost:16686' }), coded(errorCodes.NB_ERR_JAEGER_URL, /must start with http/))
  assert.throws(() => new JaegerClient({ url: 'not a url' }), coded(errorCodes.NB_ERR_JAEGER_URL, /is not a URL/))
})

test('an unreachable Jaeger is one clear error naming where it was looked for and how to start it', async () => {
  const url = `http://127.0.0.1:${await freeLoopbackPort()}` // a port just freed: nothing listens on it
  await assert.rejects(breakdownFromJaeger({ url, service: 'x', since: new Date(Date.now() - 60_000) }),
    coded(errorCodes.NB_ERR_JAEGER_UNREACHABLE, new RegExp(`Jaeger is not reachable at ${url.replace(/\./g, '\\.')} \\(ECONNREFUSED\\); start it with \`nodebench services start jaeger\``)))
})

test('against a real Jaeger: services, an unknown service, an empty window, a trace by id', { timeout: 120_000 }, async (t) => {
  const jaeger = await startTestJaeger(t)
  const client = new JaegerClient({ url: jaeger.queryUrl })
  assert.deepEqual(await client.services(), [])
  await assert.rejects(breakdownFromJaeger({ url: jaeger.queryUrl, service: 'nothing-here', since: new Date(Date.now() - 60_000) }),
    coded(errorCodes.NB_ERR_UNKNOWN_SERVICE, /has no spans of service "nothing-here"; it has none yet/))

  // One span, sent over OTLP/HTTP JSON as any OpenTelemetry SDK would.
  const traceId = '0af7651916cd43dd8448eb211c80319c'
  const now = BigInt(Date.now()) * 1_000_000n
  const response = await fetch(`${jaeger.otlpHttpEndpoint}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'probe' } }] },
        scopeSpans: [{
          scope: { name: 'test' },
          spans: [{
            traceId,
            spanId: 'b7ad6b7169203331',
            name: 'GET /probe',
            kind: 2,
            startTimeUnixNano: String(now - 5_000_000n),
            endTimeUnixNano: String(now),
            attributes: [{ key: 'nodebench.kind', value: { stringValue: 'request' } }, { key: 'http.response.status_code', value: { intValue: '200' } }]
          }]
        }]
      }]
    })
  })
  assert.equal(response.status, 200, await response.text())
  for (let i = 0; i < 40 && !(await client.services()).includes('probe'); i++) await new Promise((resolve) => setTimeout(resolve, 250))
  assert.deepEqual(await client.services(), ['probe'])

  const [span] = await client.traceSpans(traceId)
  assert.equal(span.name, 'GET /probe')
  assert.equal(span.service, 'probe')
  assert.equal(span.endNs - span.startNs, 5_000_000n)
  assert.equal(span.attributes['http.response.status_code'], 200)
  assert.deepEqual(await client.traceSpans('00000000000000000000000000000001'), [], 'an unknown trace is empty, not an error')

  const longAgo = new Date(Date.now() - 86_400_000)
  assert.deepEqual(await client.findSpans({ service: 'probe', start: longAgo, end: new Date(longAgo.getTime() + 1000) }), [])
  await assert.rejects(breakdownFromJaeger({ url: jaeger.queryUrl, service: 'probe', since: longAgo, until: new Date(longAgo.getTime() + 1000) }),
    coded(errorCodes.NB_ERR_NO_TRACES, /has no traces of "probe" between .* and .*; widen --since/))
  const snapshot = await breakdownFromJaeger({ url: jaeger.queryUrl, service: 'probe', since: new Date(Date.now() - 60_000) })
  assert.equal(snapshot.traces, 1)
  assert.equal(snapshot.operations[0].count, 1)
  assert.equal(snapshot.operations[0].exemplars.median, traceId)
})

test('flattenSpans reads OTLP-JSON: attributes of every type, resource service name, BigInt times', () => {
  const spans = flattenSpans({
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeSpans: [{
        scope: { name: '@nodebench/trace' },
        spans: [{
          traceId: 'a',
          spanId: 'b',
          parentSpanId: '',
          name: 'n',
          kind: 1,
          startTimeUnixNano: '1700000000000000001',
          endTimeUnixNano: '1700000000000000002',
          attributes: [
            { key: 's', value: { stringValue: 'x' } }, { key: 'i', value: { intValue: '7' } },
            { key: 'd', value: { doubleValue: 1.5 } }, { key: 'b', value: { boolValue: true } },
            { key: 'a', value: { arrayValue: { values: [{ stringValue: 'p' }] } } }
          ]
        }]
      }]
    }]
  })
  assert.deepEqual(spans[0].attributes, { s: 'x', i: 7, d: 1.5, b: true, a: ['p'] })
  assert.equal(spans[0].service, 'svc')
  assert.equal(spans[0].scope, '@nodebench/trace')
  assert.equal(spans[0].parentSpanId, null)
  assert.equal(spans[0].startNs, 1700000000000000001n)
  assert.deepEqual(flattenSpans(undefined), [])
})
