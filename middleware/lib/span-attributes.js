'use strict'

const { performance } = require('perf_hooks')

// What nodebench's spans say, shared by the two ways it writes them: as ReadableSpans for an exporter
// (span-pipeline/pipeline.js) and as OTLP protobuf bytes straight from the request record (otlp-encoder.js).

// instrumentation-express's types for Express's own kinds; a NestJS route is Express's request handler too.
// The units of Nest's pipeline (guard, interceptor, pipe, response, filter) are not Express's: no express.*.
const EXPRESS_TYPES = Object.freeze({
  middleware: 'middleware',
  param: 'middleware',
  'error-handler': 'middleware',
  handler: 'request_handler',
  route: 'request_handler',
  router: 'router'
})

// Span attributes that only depend on the layer are built once per layer.
const attributesByLayer = new WeakMap()

function layerAttributes (info) {
  let attributes = attributesByLayer.get(info)
  if (attributes === undefined) {
    const expressType = EXPRESS_TYPES[info.kind]
    attributes = expressType === undefined
      ? { 'nodebench.kind': info.kind, 'code.function.name': info.name }
      : { 'nodebench.kind': info.kind, 'express.type': expressType, 'express.name': info.name, 'code.function.name': info.name }
    if (info.file !== null) attributes['code.file.path'] = info.file
    if (info.line !== null) attributes['code.line.number'] = info.line
    attributesByLayer.set(info, Object.freeze(attributes))
  }
  return attributes
}

const attributesByRouter = new Map()

function routerAttributes (template) {
  const name = template || '/'
  let attributes = attributesByRouter.get(name)
  if (attributes === undefined) {
    attributes = Object.freeze({ 'nodebench.kind': 'router', 'express.type': 'router', 'express.name': name })
    if (attributesByRouter.size < 1000) attributesByRouter.set(name, attributes)
  }
  return attributes
}

function spanName (info, template) {
  return info.kind === 'router' ? `router - ${template || '/'}` : `${info.kind} - ${info.name}`
}

function requestEndAttributes (record) {
  const attributes = {
    'http.route': record.route,
    'http.response.status_code': record.statusCode,
    'nodebench.kind': 'request',
    'nodebench.format': record.format
  }
  if (record.aborted) attributes['nodebench.aborted'] = true
  return attributes
}

function errorMessage (error) {
  return error instanceof Error ? error.message : String(error)
}

// performance.now() -> [seconds, nanoseconds] since the epoch. The origin is split into whole seconds and a
// sub-second remainder so the sum stays exact to the nanosecond in a double.
const ORIGIN_SECONDS = Math.trunc(performance.timeOrigin / 1000)
const ORIGIN_REMAINDER_MS = performance.timeOrigin - ORIGIN_SECONDS * 1000

function toHrTime (performanceMs) {
  const ms = ORIGIN_REMAINDER_MS + performanceMs
  const seconds = Math.trunc(ms / 1000)
  return [ORIGIN_SECONDS + seconds, Math.round((ms - seconds * 1000) * 1e6)]
}

/** What Span.recordException writes. */
function exceptionEvent (error, time) {
  const attributes = error instanceof Error
    ? { 'exception.type': error.name, 'exception.message': error.message, 'exception.stacktrace': String(error.stack) }
    : { 'exception.message': String(error) }
  return { name: 'exception', attributes, time, droppedAttributesCount: 0 }
}

function pathOf (url) {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

module.exports = {
  ORIGIN_SECONDS,
  ORIGIN_REMAINDER_MS,
  layerAttributes,
  routerAttributes,
  spanName,
  requestEndAttributes,
  errorMessage,
  toHrTime,
  exceptionEvent,
  pathOf
}
