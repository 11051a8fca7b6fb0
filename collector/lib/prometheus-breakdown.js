'use strict'

const { SCHEMA_VERSION, UNATTRIBUTED, roundMs, dependencySnapshots } = require('@nodebench/breakdown')
const { PrometheusClient } = require('./prometheus-client')
const { NodebenchError, codes } = require('./errors')

// Breakdowns from the metrics every instance exports (`nodebenchTrace({ metrics })`), read from Prometheus
// or any store that answers its HTTP API: the same snapshot the middleware serves, over every instance of a
// service and any window.
//
// One PromQL query fetches the raw samples of both histograms in the window (a range selector), and the
// increase of every counter is computed here, as PromQL's increase() does (a counter that goes down was
// reset by a restart, and counts again from zero) but without its extrapolation to the window's edges:
// increase() estimates, and the counts of a breakdown are exact (a test compares them with what the
// instances served). A series' first sample at or before the window's start is its baseline; a series that
// starts inside the window (an instance started then, or an operation first served then) counts from zero.
// Percentiles come from the summed bucket increases, interpolated within a bucket as histogram_quantile()
// does; shares are sums over sums, exact.
//
// Names: the Prometheus exporter's (`http_server_request_duration_count`), or with the unit suffix that
// OTLP ingestion adds (`..._seconds_count`, Prometheus 3, Mimir). A service is selected by `service_name`
// (the exporter puts it on every series), else by `job` (what OTLP ingestion makes of service.name).
//
// The dependencies a segment waited on come from nodebench.dependency.duration (a series per operation, segment
// and dependency: its count the calls, its sum the time waited): each segment's `dependencies`, as in process.

const METRIC_PATTERN = '(http_server_request_duration|nodebench_segment_duration|nodebench_dependency_duration)(_seconds)?_(bucket|count|sum)'
const NAME = /^(http_server_request_duration|nodebench_segment_duration|nodebench_dependency_duration)(?:_seconds)?_(bucket|count|sum)$/
// How far before the window a series' baseline sample may lie: Prometheus's default lookback (staleness).
const LOOKBACK_MS = 5 * 60_000
const PERCENTILES = Object.freeze({ p50: 0.5, p95: 0.95, p99: 0.99 })

/**
 * The increase of one counter over (since, until], in the same unit; `samples` are Prometheus's
 * `[[seconds, "value"], ...]`, in time order, from up to LOOKBACK_MS before `since`.
 */
function windowIncrease (samples, sinceSec, untilSec) {
  let baseline = null
  let previous = null
  let increase = 0
  for (const [time, text] of samples) {
    const value = Number(text)
    if (time <= sinceSec) {
      baseline = value
      continue
    }
    if (time > untilSec) break
    const from = previous ?? baseline
    // No earlier sample: the series began in the window, from zero. A value below the last: a restart.
    if (from === null || value < from) increase += value
    else increase += value - from
    previous = value
  }
  return increase
}

/**
 * The `q` quantile of a histogram given as `[[upperBound, cumulativeCount], ...]` ascending, +Inf last, as
 * histogram_quantile() computes it: linear within the bucket the rank falls in, the lowest bucket from 0, and
 * the highest finite bound when the rank falls in +Inf. NaN when empty.
 */
function bucketQuantile (q, buckets) {
  if (buckets.length === 0) return NaN
  const total = buckets[buckets.length - 1][1]
  if (total === 0) return NaN
  const rank = q * total
  let index = buckets.findIndex(([, count]) => count >= rank)
  if (index === -1) index = buckets.length - 1
  const [upper, count] = buckets[index]
  if (upper === Infinity) return buckets.length > 1 ? buckets[buckets.length - 2][0] : NaN
  const lower = index === 0 ? 0 : buckets[index - 1][0]
  const below = index === 0 ? 0 : buckets[index - 1][1]
  if (count === below) return upper
  return lower + (upper - lower) * (rank - below) / (count - below)
}

/** A histogram's increases summed over series: count, sum and buckets by bound. */
class SummedHistogram {
  constructor () {
    this.count = 0
    this.sum = 0
    this.buckets = new Map()
  }

  add (kind, labels, increase) {
    if (kind === 'count') this.count += increase
    else if (kind === 'sum') this.sum += increase
    else {
      const bound = labels.le === '+Inf' ? Infinity : Number(labels.le)
      this.buckets.set(bound, (this.buckets.get(bound) || 0) + increase)
    }
  }

  /** The `q` quantile in milliseconds (0 when there are no finite buckets to tell). */
  quantileMs (q) {
    const buckets = Array.from(this.buckets).sort((a, b) => a[0] - b[0])
    const seconds = bucketQuantile(q, buckets)
    return Number.isNaN(seconds) ? 0 : seconds * 1000
  }
}

function operationKey (labels) {
  return `${labels.http_request_method} ${labels.http_route} ${labels.nodebench_format}`
}

/** The operations, segments and instances in `series` (a range query's matrix), over (since, until]. */
function foldSeries (series, sinceSec, untilSec) {
  const operations = new Map()
  const instances = new Map()
  for (const { metric: labels, values } of series) {
    const name = NAME.exec(labels.__name__ || '')
    if (name === null || labels.http_route === undefined) continue
    const [, metric, kind] = name
    const increase = windowIncrease(values, sinceSec, untilSec)
    const key = operationKey(labels)
    let operation = operations.get(key)
    if (operation === undefined) {
      operation = {
        method: labels.http_request_method,
        route: labels.http_route,
        format: labels.nodebench_format ?? 'other',
        requests: new SummedHistogram(),
        errors: 0,
        segments: new Map(),
        unattributedSeconds: 0
      }
      operations.set(key, operation)
    }
    if (metric === 'http_server_request_duration') {
      operation.requests.add(kind, labels, increase)
      if (kind === 'count') {
        if (Number(labels.http_response_status_code) >= 500) operation.errors += increase
        const id = labels.service_instance_id ?? labels.instance ?? 'unknown'
        let instance = instances.get(id)
        if (instance === undefined) {
          instance = { id, address: labels.instance ?? null, job: labels.job ?? null, requests: 0 }
          instances.set(id, instance)
        }
        instance.requests += increase
      }
      continue
    }
    const segmentName = labels.nodebench_segment_name
    if (labels.nodebench_segment_kind === UNATTRIBUTED && segmentName === UNATTRIBUTED) {
      if (kind === 'sum') operation.unattributedSeconds += increase
      continue
    }
    const segmentKey = `${labels.nodebench_segment_kind} ${segmentName}`
    let segment = operation.segments.get(segmentKey)
    if (segment === undefined) {
      segment = {
        name: segmentName,
        kind: labels.nodebench_segment_kind,
        histogram: new SummedHistogram(),
        orderWeight: 0,
        dependencies: null
      }
      operation.segments.set(segmentKey, segment)
    }
    if (metric === 'nodebench_dependency_duration') {
      if (kind !== 'bucket') addDependency(segment, labels, kind, increase)
      continue
    }
    segment.histogram.add(kind, labels, increase)
    // A segment seen at different positions (a request that took another path) sits at its mean position.
    if (kind === 'count') segment.orderWeight += Number(labels.nodebench_segment_order) * increase
  }
  return { operations, instances }
}

/** Adds a dependency series' increase (its calls, or the seconds waited) to its segment's. */
function addDependency (segment, labels, kind, increase) {
  const system = labels.nodebench_dependency_system ?? 'other'
  const operation = labels.nodebench_dependency_operation ?? ''
  const target = labels.nodebench_dependency_target ?? ''
  const key = `${system} ${operation} ${target}`
  segment.dependencies ??= new Map()
  let dependency = segment.dependencies.get(key)
  if (dependency === undefined) {
    dependency = { system, operation, target, calls: 0, totalMs: 0 }
    segment.dependencies.set(key, dependency)
  }
  if (kind === 'count') dependency.calls += increase
  else dependency.totalMs += increase * 1000
}

function operationSnapshot (operation) {
  const requests = operation.requests
  const totalMs = requests.sum * 1000
  const responseTimeMs = { mean: roundMs(totalMs / requests.count) }
  for (const [name, q] of Object.entries(PERCENTILES)) responseTimeMs[name] = roundMs(requests.quantileMs(q))
  // The text format carries no maximum.
  responseTimeMs.max = null
  responseTimeMs.total = roundMs(totalMs)
  const segments = Array.from(operation.segments.values())
    .filter((segment) => segment.histogram.count > 0)
    .sort((a, b) => a.orderWeight / a.histogram.count - b.orderWeight / b.histogram.count || (a.name < b.name ? -1 : 1))
    .map((segment, order) => {
      const histogram = segment.histogram
      const snapshot = {
        name: segment.name,
        kind: segment.kind,
        order,
        file: null,
        line: null,
        count: histogram.count,
        meanMs: roundMs(histogram.sum * 1000 / histogram.count)
      }
      for (const [name, q] of Object.entries(PERCENTILES)) snapshot[`${name}Ms`] = roundMs(histogram.quantileMs(q))
      snapshot.totalMs = roundMs(histogram.sum * 1000)
      snapshot.share = totalMs > 0 ? histogram.sum * 1000 / totalMs : 0
      // As the middleware's snapshot gives them: calls and time per invocation of the segment, and share.
      const dependencies = Array.from(segment.dependencies?.values() ?? []).filter((dependency) => dependency.calls > 0)
      if (dependencies.length > 0) snapshot.dependencies = dependencySnapshots(dependencies, histogram.count, totalMs)
      return snapshot
    })
  return {
    method: operation.method,
    route: operation.route,
    format: operation.format,
    count: requests.count,
    errors: operation.errors,
    aborted: 0,
    responseTimeMs,
    unattributedShare: totalMs > 0 ? operation.unattributedSeconds * 1000 / totalMs : 0,
    segments
  }
}

function compareOperations (a, b) {
  const text = (x, y) => (x < y ? -1 : x > y ? 1 : 0)
  return text(a.route, b.route) || text(a.method, b.method) || text(a.format, b.format)
}

/** PromQL label matchers for `labels` ({ name: value }), values escaped. */
function matchers (labels) {
  return Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(String(value))}`).join(',')
}

/**
 * The breakdown of the instances whose series carry `labels` (e.g. { service_name: 'mongo-admin' }, or the
 * label bench gives its targets), over (since, until], from the Prometheus at `url`. The middleware's
 * snapshot shape (schema 1) plus `source: 'prometheus'`, `window`, `instances` ([{ id, address, job, host,
 * pid, requests }]) and `selector`; `responseTimeMs.max` is null (the text format has no maximum), and errors
 * are 5xx responses.
 */
async function breakdownFromLabels ({ client, labels, since, until, service }) {
  const rangeMs = until.getTime() - since.getTime() + LOOKBACK_MS
  const selector = `{__name__=~${JSON.stringify(METRIC_PATTERN)},${matchers(labels)}}`
  const data = await client.query(`${selector}[${Math.ceil(rangeMs / 1000)}s]`, until)
  service ??= data.result.find(({ metric }) => metric.service_name !== undefined)?.metric.service_name ?? 'unknown'
  const { operations, instances } = foldSeries(data.result, since.getTime() / 1000, until.getTime() / 1000)
  const snapshots = Array.from(operations.values())
    .filter((operation) => operation.requests.count > 0)
    .map(operationSnapshot)
    .sort(compareOperations)
  await describeInstances(client, labels, instances, { rangeMs, until })
  return {
    schema: SCHEMA_VERSION,
    service,
    pid: null,
    since: since.toISOString(),
    operations: snapshots,
    dropped: { spans: 0, operations: 0 },
    source: 'prometheus',
    window: { since: since.toISOString(), until: until.toISOString() },
    selector: labels,
    instances: Array.from(instances.values())
      .filter((instance) => instance.requests > 0)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
  }
}

/** Adds the host and pid of each instance, from `target_info` (the resource, where the exporter sends it). */
async function describeInstances (client, labels, instances, { rangeMs, until }) {
  const data = await client.query(`last_over_time(target_info{${matchers(labels)}}[${Math.ceil(rangeMs / 1000)}s])`, until)
  for (const { metric } of data.result) {
    const instance = instances.get(metric.service_instance_id ?? metric.instance)
    if (instance === undefined) continue
    instance.host = metric.host_name ?? null
    instance.pid = metric.process_pid === undefined ? null : Number(metric.process_pid)
  }
  for (const instance of instances.values()) {
    instance.host ??= null
    instance.pid ??= null
  }
}

/**
 * The breakdown of `service` over every instance that Prometheus (at `url`) holds metrics of, between `since`
 * and `until` (Dates). Throws NB_ERR_UNKNOWN_SERVICE when Prometheus has no series of it, NB_ERR_NO_METRICS
 * when none of its requests falls in the window.
 */
async function breakdownFromPrometheus ({ url, service, labels, since, until = new Date(), timeoutMs }) {
  const client = new PrometheusClient({ url, timeoutMs })
  if (labels !== undefined) return breakdownFromLabels({ client, labels, since, until, service })
  let snapshot = null
  for (const label of ['service_name', 'job']) {
    const candidate = await breakdownFromLabels({ client, labels: { [label]: service }, since, until, service })
    if (candidate.operations.length > 0) return candidate
    snapshot ??= candidate
  }
  const known = await client.labelValues('service_name', {
    match: `{__name__=~${JSON.stringify(METRIC_PATTERN.replace('(bucket|count|sum)', 'count'))}}`,
    start: new Date(since.getTime() - LOOKBACK_MS),
    end: until
  })
  if (!known.includes(service)) {
    throw new NodebenchError(codes.NB_ERR_UNKNOWN_SERVICE,
      `Prometheus at ${client.url} has no nodebench metrics of service "${service}" between ` +
      `${since.toISOString()} and ${until.toISOString()}; it has ${known.length === 0 ? 'none of any service' : known.map((s) => `"${s}"`).join(', ')}. ` +
      'Are its instances traced with nodebenchTrace({ metrics }) and scraped?')
  }
  throw new NodebenchError(codes.NB_ERR_NO_METRICS,
    `Prometheus at ${client.url} holds metrics of "${service}", but no request between ${since.toISOString()} and ` +
    `${until.toISOString()}; widen --since`)
}

module.exports = { breakdownFromPrometheus, windowIncrease, bucketQuantile, foldSeries, METRIC_PATTERN, LOOKBACK_MS }
