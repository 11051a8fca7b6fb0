'use strict'

// nodebench's own work per timed segment, without HTTP, Express's routing or the machine's load in the way:
// requests made of N real router layers (router 2's Layer, Express 5's) whose functions call next() at once,
// each layer timed by nodebench's shadow as in an app (lib/wrap-layer.js), every request's record opened,
// finished and folded into the breakdown (lib/request-record.js, @nodebench/breakdown) as trace.js does. Bare,
// the same layers are called without nodebench. What is counted is what nodebench adds to each layer call.
//
//   node benchmarks/segment-path.js [--layers 11] [--requests 200000] [--warmup 50000] [--variant bare|nodebench]
//                                   [--json]
//
// Prints the time per request and per segment (ns; a time, so it moves with the machine's load). Under
// callgrind, two runs of different --requests give the instructions of the requests between them exactly
// (segment-instructions.js runs them): a figure that does not move with the load.

const { parseArgs } = require('node:util')
const { performance } = require('node:perf_hooks')
const Layer = require('router/lib/layer')
const { BreakdownAggregator } = require('@nodebench/breakdown')
const { RequestRecord, recordOf, attachRecord, detachRecord } = require('../lib/request-record')
const { wrapSegmentLayer, markUntimedLayer } = require('../lib/wrap-layer')
const { layerInfo, resolveNames } = require('../lib/function-names')

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      layers: { type: 'string', default: '11' },
      requests: { type: 'string', default: '200000' },
      warmup: { type: 'string', default: '50000' },
      variant: { type: 'string', default: 'nodebench' },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  const number = (name, min) => {
    const value = Number(values[name])
    if (!Number.isInteger(value) || value < min) throw new TypeError(`--${name} must be a whole number of at least ${min}; received ${values[name]}`)
    return value
  }
  if (values.variant !== 'bare' && values.variant !== 'nodebench') {
    throw new TypeError(`--variant must be bare or nodebench; received ${values.variant}`)
  }
  return { layers: number('layers', 1), requests: number('requests', 1), warmup: number('warmup', 0), variant: values.variant, json: values.json }
}

/** `count` router-level layers, each a named middleware that calls next() at once. */
function makeLayers (count, timed) {
  const layers = []
  for (let i = 0; i < count; i++) {
    const fn = new Function('req', 'res', 'next', `return function layer${i} (req, res, next) { next() }`)() // eslint-disable-line no-new-func
    const layer = new Layer('/', { end: false }, fn)
    if (timed) wrapSegmentLayer(layer, layerInfo('middleware', fn))
    else markUntimedLayer(layer)
    layers.push(layer)
  }
  return layers
}

/** One request through `layers`, as Express's router would call them: each layer's next calls the next layer. */
function runRequest (layers, req, res) {
  let index = 0
  const next = function next (err) {
    if (err) throw err
    if (index === layers.length) return
    const layer = layers[index++]
    req.next = next
    layer.handleRequest(req, res, next)
  }
  next()
}

/**
 * One request of `layerCount` layers as a function (`one()`), and `check(count)`, which throws unless the
 * breakdown counted `count` requests of that many segments (nodebench only).
 */
function requestPath ({ layers: layerCount, variant }) {
  const timed = variant === 'nodebench'
  const layers = makeLayers(layerCount, timed)
  const aggregator = new BreakdownAggregator({ service: 'segment-path' })
  const res = { statusCode: 200, getHeader () { return 'application/json; charset=utf-8' } }
  const one = () => {
    const req = { method: 'GET', next: null, res }
    const response = { ...res }
    let record
    if (timed) {
      record = new RequestRecord('GET', performance.now())
      record.request = req
      record.response = response
      record.route = '/api/items/:id'
      attachRecord(response, record)
    }
    runRequest(layers, req, response)
    if (timed) {
      if (recordOf(response) !== record) throw new Error('the record was lost')
      detachRecord(response, record)
      record.finish(response, false)
      aggregator.recordRequest(record)
    }
  }
  const check = (count) => {
    if (!timed) return
    resolveNames()
    const [operation] = aggregator.snapshot().operations
    if (operation.count !== count || operation.segments.length !== layerCount) {
      throw new Error(`the breakdown counted ${operation.count} requests and ${operation.segments.length} segments`)
    }
  }
  return { one, check }
}

function run ({ layers: layerCount, requests, warmup, variant }) {
  const { one, check } = requestPath({ layers: layerCount, variant })
  for (let i = 0; i < warmup; i++) one()
  const started = performance.now()
  for (let i = 0; i < requests; i++) one()
  const elapsedMs = performance.now() - started
  check(warmup + requests)
  const nsPerRequest = elapsedMs * 1e6 / requests
  return { variant, layers: layerCount, requests, nsPerRequest, nsPerSegment: nsPerRequest / layerCount }
}

if (require.main === module) {
  let options
  try {
    options = parseArguments(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`segment-path: ${err.message}\n`)
    process.exit(2)
  }
  const result = run(options)
  if (options.json) process.stdout.write(JSON.stringify(result) + '\n')
  else process.stdout.write(`${result.variant}: ${result.nsPerRequest.toFixed(0)} ns per request of ${result.layers} layers, ${result.nsPerSegment.toFixed(1)} ns per layer\n`)
}

module.exports = { parseArguments, run, requestPath }
