'use strict'

// The breakdown snapshot of an operation (schema 1): its response times and its segments in path order, each
// with its share and the dependencies it waited on.

const { orderedSegments } = require('./segment-stats')

const NO_ALIASES = Object.freeze([])

/**
 * The other names a segment's function is known by (`getUsers` beside `userController.getUsers`, `rateLimit`
 * beside `rateLimiter.authLimiter`): what a workload's `dominant` may name. Empty when none (or from a state
 * written before they existed).
 */
function aliasesOf (aliases) {
  return Array.isArray(aliases) && aliases.length > 0 ? aliases.filter((alias) => typeof alias === 'string') : NO_ALIASES
}

function operationSnapshot (operation) {
  const responseTime = operation.responseTime
  const totalMs = responseTime.totalMs
  const segments = orderedSegments(operation)
  let attributedMs = 0
  const segmentSnapshots = segments.map(({ name, info, stats: segment }, order) => {
    attributedMs += segment.totalMs
    const snapshot = {
      name,
      kind: info.kind,
      order,
      file: info.file,
      line: info.line,
      aliases: aliasesOf(info.aliases),
      count: segment.count,
      meanMs: round(segment.totalMs / segment.count),
      p50Ms: round(segment.percentileMs(50)),
      p95Ms: round(segment.percentileMs(95)),
      p99Ms: round(segment.percentileMs(99)),
      totalMs: round(segment.totalMs),
      share: totalMs > 0 ? segment.totalMs / totalMs : 0
    }
    if (segment.dependencies !== null) {
      snapshot.dependencies = dependencySnapshots(segment.dependencies.values(), segment.count, totalMs)
    }
    return snapshot
  })
  return {
    method: operation.method,
    route: operation.route,
    format: operation.format,
    count: responseTime.count,
    errors: operation.errors,
    aborted: operation.aborted,
    responseTimeMs: {
      mean: round(totalMs / responseTime.count),
      p50: round(responseTime.percentileMs(50)),
      p95: round(responseTime.percentileMs(95)),
      p99: round(responseTime.percentileMs(99)),
      max: round(responseTime.maxMs),
      total: round(totalMs)
    },
    unattributedShare: totalMs > 0 ? Math.max(0, totalMs - attributedMs) / totalMs : 0,
    segments: segmentSnapshots
  }
}

/**
 * A segment's dependencies (`{ system, operation, target, calls, totalMs }`, over its `invocations`), the longest
 * waited on first: calls per invocation of the segment (`count`), time per invocation (`meanMs`, overlapping
 * calls counted once) and share of the operation's response time.
 */
function dependencySnapshots (dependencies, invocations, operationTotalMs) {
  return Array.from(dependencies)
    .sort((a, b) => b.totalMs - a.totalMs || compareText(a.system, b.system) || compareText(a.operation, b.operation) ||
      compareText(a.target, b.target))
    .map(({ system, operation, target, calls, totalMs }) => ({
      system,
      operation,
      target,
      count: invocations > 0 ? round(calls / invocations) : 0,
      meanMs: invocations > 0 ? round(totalMs / invocations) : 0,
      totalMs: round(totalMs),
      share: operationTotalMs > 0 ? totalMs / operationTotalMs : 0
    }))
}

function compareOperations (a, b) {
  return compareText(a.route, b.route) || compareText(a.method, b.method) || compareText(a.format, b.format)
}

function compareText (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

function round (ms) {
  return Math.round(ms * 1000) / 1000
}

module.exports = { operationSnapshot, dependencySnapshots, compareOperations, aliasesOf, round }
