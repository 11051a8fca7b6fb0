'use strict'

// NestJS on its Express adapter runs a pipeline of its own inside one Express route handler: guards,
// interceptors (their code before the handler and after it), pipes (one per parameter), the controller method,
// then Nest writes the reply; an exception filter answers what any of them throws. This adapter makes each of
// them a segment of its own (kinds guard, interceptor, pipe, handler, response, filter), siblings in the order
// they run, under the route's entry (kind `route`, a container like a router: Nest's glue between the units is
// unattributed).
//
// It is found from the app, on its first request (no preload, no require hook): a route handler Nest made
// carries the controller method's reflect-metadata (Nest copies it onto the handler, `path` and `method` among
// it). nodebench then loads the classes Nest's route handlers call at run time, from the copy of @nestjs/core
// the process has loaded (the same module instances: require(), for CommonJS and for Nest 12's ES modules), and
// puts a timing shadow on six methods of their prototypes. Each looks up the request's record from the
// Express response among its arguments and calls Nest's own method; without a record (another context: a
// microservice, a gateway, a request nodebench does not time) it only calls through. Nothing the user wrote is
// replaced but the controller method's `apply`, an own property that calls the method as
// Function.prototype.apply does (Nest calls `callback.apply(instance, args)`; the method itself is unchanged).
//
// What carries the request to the units that have no response among their arguments:
// - the controller method: `args`, the array its arguments are collected in. ContextUtils#createNullArray
//   makes it at the start of the route's handler, which then calls GuardsConsumer#tryActivate or
//   InterceptorsConsumer#intercept synchronously, with the response: the first of them pairs the two
//   (handler.js).
// - pipes: the handler runs them synchronously from its start (before its first await), which the timed
//   `next` that intercept() receives marks (pipes.js).
//
// One module per kind of unit: core.js (finding Nest, shadowing its prototypes), handler.js (the controller
// method), guards.js, interceptors.js, pipes.js, reply.js (Nest writes the response), filters.js; what they
// share in units.js (a unit opened and closed on the record, a result settled) and observable.js (an
// Observable tapped for its first value or its end).

const { isNestRouteHandler, prepareNest } = require('./core')
const { settled } = require('./units')

// settled: also for its tests (a unit's Observable, tapped, against the same Observable bare).
module.exports = { isNestRouteHandler, prepareNest, settled }
