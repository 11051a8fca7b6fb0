export declare const SCHEMA_VERSION: 1

export type SegmentKind = 'middleware' | 'param' | 'handler' | 'error-handler' | 'router'
export type ResponseFormat = 'html' | 'json' | 'other'

export interface SegmentSnapshot {
  name: string
  kind: SegmentKind
  /** Position of the segment in the request's path (0-based). */
  order: number
  file: string | null
  line: number | null
  count: number
  meanMs: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
  totalMs: number
  /** The segment's total time / the operation's total response time. */
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
}

export interface SegmentInfo { key: string, name: string, kind: SegmentKind, file: string | null, line: number | null }

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
}

export declare class BreakdownAggregator {
  constructor (options?: { service?: string, maxOperations?: number })
  recordRequest (request: RequestTiming): void
  reset (): void
  snapshot (options?: { pid?: number, droppedSpans?: number }): BreakdownSnapshot
}

export declare function renderTable (snapshot: BreakdownSnapshot, options?: { color?: boolean }): string
export declare function renderMarkdown (snapshot: BreakdownSnapshot): string
export declare function renderHtml (snapshot: BreakdownSnapshot): string
export declare function renderJson (snapshot: BreakdownSnapshot): string
