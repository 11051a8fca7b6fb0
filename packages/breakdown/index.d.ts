export declare const SCHEMA_VERSION: 1

/**
 * What a segment is. Express's: middleware, param, handler (a function of a route's own stack), error-handler.
 * A NestJS route's units: guard, interceptor, pipe, handler (the controller method), response (Nest writing the
 * reply), filter (an exception filter). Containers, whose time is not a segment's: router (a router or mounted
 * app), route (a framework route whose units are the segments).
 */
export type SegmentKind = 'middleware' | 'param' | 'handler' | 'error-handler' | 'router' |
  'guard' | 'interceptor' | 'pipe' | 'response' | 'filter' | 'route'
export type ResponseFormat = 'html' | 'json' | 'other'

export interface SegmentSnapshot {
  name: string
  kind: SegmentKind
  /** Position of the segment in the request's path (0-based). */
  order: number
  file: string | null
  line: number | null
  /**
   * The other names its function is known by, beside `name`: the plain function's name (`getUsers` beside
   * `userController.getUsers`), its factory's (`rateLimit`, `auth('getUsers')`), the export's key. Often empty.
   */
  aliases: string[]
  count: number
  meanMs: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
  totalMs: number
  /** The segment's total time / the operation's total response time. */
  share: number
  /**
   * The dependencies it waited on (MongoDB commands, outgoing HTTP calls), longest first; absent when it made no
   * call. At most 16 a segment, the rest folded into `other other other`.
   */
  dependencies?: DependencySnapshot[]
}

/** A dependency a segment waited on: `mongodb find users`, `http GET api.example:443`. */
export interface DependencySnapshot {
  system: string
  operation: string
  target: string
  /** Calls per invocation of the segment. */
  count: number
  /** Time waited per invocation of the segment (overlapping calls counted once). */
  meanMs: number
  totalMs: number
  /** Its total time / the operation's total response time: part of its segment's share. */
  share: number
}

export interface OperationSnapshot {
  method: string
  route: string
  format: ResponseFormat
  count: number
  errors: number
  aborted: number
  responseTimeMs: { mean: number, p50: number, p95: number, p99: number, max: number, total: number }
  unattributedShare: number
  segments: SegmentSnapshot[]
}

export interface BreakdownSnapshot {
  schema: 1
  service: string
  pid: number
  since: string
  operations: OperationSnapshot[]
  dropped: { spans: number, operations: number }
  /** Failures nodebench caught inside itself (only when there were any). */
  internalErrors?: number
  /** A merged cluster snapshot: the workers that took part and the requests each served. */
  processes?: Array<{ pid: number, requests: number }>
  /** A merged cluster snapshot: workers that did not answer in time. */
  missingProcesses?: number
  /** Why this snapshot covers less than asked (e.g. the cluster primary did not answer). */
  warning?: string
}

/** What `exportState()` returns: an aggregator's whole content, JSON-safe, histograms compressed. */
export interface BreakdownState {
  schema: 1
  service: string
  since: string
  droppedOperations: number
  operations: unknown[]
}

export interface SegmentInfo {
  key: string, name: string, kind: SegmentKind, file: string | null, line: number | null, aliases?: readonly string[]
}

export interface RequestTiming {
  method: string
  route: string
  format: ResponseFormat
  responseTimeMs: number
  errored: boolean
  aborted: boolean
  segmentCount: number
  segmentInfo (index: number): SegmentInfo
  segmentDurationMs (index: number): number
  /** Calls to dependencies, when any were made (null or absent: none). */
  dependencyCalls?: unknown[] | null
  /** Flat [entry index, { system, operation, target }, calls, ms] quadruples: each segment's time per dependency. */
  dependencyTimes? (): Array<number | { system: string, operation: string, target: string }>
}

export declare class BreakdownAggregator {
  constructor (options?: { service?: string, maxOperations?: number })
  recordRequest (request: RequestTiming): void
  /** After recordRequest(request), for a request that made calls: its segments' time per dependency. */
  recordDependencies (request: RequestTiming): void
  reset (): void
  snapshot (options?: { pid?: number, droppedSpans?: number }): BreakdownSnapshot
  /** Everything this aggregator knows, for another process to merge exactly. */
  exportState (): BreakdownState
  /** Adds a state from `exportState()` (of this or another process). */
  mergeState (state: BreakdownState): void
}

/** The kinds whose entries contain segments (router, route). */
export declare const CONTAINER_KINDS: ReadonlySet<SegmentKind>
/** Whether a segment info is a container's (its time is routing or a framework's glue: unattributed). */
export declare function isContainer (info: { kind: SegmentKind }): boolean

/** Milliseconds rounded to the microsecond, as every figure of a snapshot is. */
export declare function roundMs (ms: number): number

/** A segment's dependencies as a snapshot gives them, the longest waited on first (per invocation of the segment). */
export declare function dependencySnapshots (
  dependencies: Iterable<{ system: string, operation: string, target: string, calls: number, totalMs: number }>,
  invocations: number,
  operationTotalMs: number
): Array<{ system: string, operation: string, target: string, count: number, meanMs: number, totalMs: number, share: number }>

/** A call to a dependency made inside a segment (`endMs` -1: still running when the segment ended). */
export interface DependencyCall {
  segment: number
  dependency: { system: string, operation: string, target: string, key?: string }
  startMs: number
  endMs: number
}

/**
 * Each segment's time waiting on each dependency (overlapping calls counted once, split evenly among the
 * dependencies open together, clipped to the segment): flat [segment, dependency, calls, ms] quadruples.
 */
export declare function attributeCalls (record: {
  dependencyCalls: DependencyCall[] | null
  entryStart (segment: number): number
  entryEnd (segment: number): number
}): Array<number | DependencyCall['dependency']>

export declare function renderTable (snapshot: BreakdownSnapshot, options?: { color?: boolean }): string
export declare function renderMarkdown (snapshot: BreakdownSnapshot): string
export declare function renderHtml (snapshot: BreakdownSnapshot): string
export declare function renderJson (snapshot: BreakdownSnapshot): string

/** Escapes text for HTML element content and attribute values. */
export declare function escapeHtml (text: unknown): string
/** Escapes text for a Markdown table cell. */
export declare function escapeMarkdown (text: unknown): string

/**
 * The one HTML page of nodebench (the breakdown above, the CLI's reports): self-contained, `title` as its <title>
 * and <h1>, `headline` under it, links to `nav` when given, then `body` (HTML, escaped by its maker); `style`:
 * CSS of the body's own parts, after the page's.
 */
export declare function htmlPage (page: { title: string, headline: string, nav?: Array<{ id: string, title: string }>, body: string, style?: string }): string

/** A section of such a page: `<h2>` `title` (escaped), then `body` (HTML). */
export declare function htmlSection (id: string, title: string, body: string): string

/** The name of the request-duration histogram (OpenTelemetry's semantic conventions): `http.server.request.duration`. */
export declare const REQUEST_METRIC: 'http.server.request.duration'
/** The name of the segment-duration histogram: `nodebench.segment.duration`. */
export declare const SEGMENT_METRIC: 'nodebench.segment.duration'
/** The name of the histogram of segments' time waiting on dependencies: `nodebench.dependency.duration`. */
export declare const DEPENDENCY_METRIC: 'nodebench.dependency.duration'
/** The attribute names of both histograms. */
export declare const METRIC_ATTRIBUTES: Readonly<{
  method: 'http.request.method'
  route: 'http.route'
  status: 'http.response.status_code'
  format: 'nodebench.format'
  segmentName: 'nodebench.segment.name'
  segmentKind: 'nodebench.segment.kind'
  segmentOrder: 'nodebench.segment.order'
  dependencySystem: 'nodebench.dependency.system'
  dependencyOperation: 'nodebench.dependency.operation'
  dependencyTarget: 'nodebench.dependency.target'
}>
/** The segment name and kind of the time no segment covers. */
export declare const UNATTRIBUTED: 'unattributed'
/** The histograms' bucket boundaries, in seconds (50 µs to 10 s). */
export declare const BOUNDARIES_SECONDS: readonly number[]

export interface MetricHistogram {
  count: number
  /** Seconds. */
  sum: number
  boundaries: readonly number[]
  counts: number[]
}

/**
 * An aggregator's content as the two histograms' data points: per operation and status, the response times;
 * per operation and segment (and the unattributed remainder), the segment's durations.
 */
export declare function breakdownMetrics (aggregator: BreakdownAggregator): {
  requests: Array<{ attributes: Record<string, string | number>, histogram: MetricHistogram }>
  segments: Array<{ attributes: Record<string, string | number>, histogram: MetricHistogram }>
  /** Per operation, segment and dependency: count (the calls) and sum (the time waited) only. */
  dependencies: Array<{ attributes: Record<string, string | number>, histogram: MetricHistogram }>
}
