import type { BreakdownSnapshot, OperationSnapshot } from '@nodebench/breakdown'

export interface Span {
  traceId: string
  spanId: string
  parentSpanId: string | null
  name: string
  kind: number
  service: string | undefined
  /** The resource's service.instance.id: one process of the service. */
  instance: string | undefined
  /** The attributes of the resource that exported it (service.name, service.instance.id, process.pid, host.name...). */
  resource: Record<string, string | number | boolean | unknown[] | undefined>
  scope: string | undefined
  startNs: bigint
  endNs: bigint
  attributes: Record<string, string | number | boolean | unknown[] | undefined>
  status: { code?: number, message?: string }
}

export interface JaegerSnapshot extends BreakdownSnapshot {
  source: 'jaeger'
  /** Requests (traces) the breakdown was computed from. */
  traces: number
  window?: { since: string, until: string }
  operations: Array<OperationSnapshot & { exemplars?: { median: string, slowest: string } }>
  /** From breakdownFromJaeger, when the service's requests called other processes: fanOutFromSpans of the same traces. */
  fanOut?: FanOut
}

export declare class JaegerClient {
  constructor (options: { url: string, timeoutMs?: number })
  readonly url: string
  services (): Promise<string[]>
  findSpans (options: { service: string, start: Date, end: Date, limit?: number }): Promise<Span[]>
  findAllSpans (options: { service: string, start: Date, end: Date, pageSize?: number, onProgress?: (page: { traces: number, from: Date, to: Date }) => void }): Promise<Span[]>
  traceSpans (traceId: string): Promise<Span[]>
  /** Whether Jaeger's own UI answers (the jaegertracing/jaeger image), not a build's placeholder page. */
  hasUi (): Promise<boolean>
}

/** A process a trace passed through: the resource that exported its spans. */
export interface WaterfallProcess {
  service: string
  instance: string | null
  pid: number | null
  host: string | null
  /** From the trace's first start, in ms. */
  startMs: number
  durationMs: number
  spans: number
}

/** A span of a trace on the trace's time axis, in tree order. */
export interface WaterfallRow {
  spanId: string
  parentSpanId: string | null
  depth: number
  name: string
  /** nodebench.kind (request, middleware, handler, ...), else the OpenTelemetry span kind (server, client, internal...). */
  kind: string
  /** Index into the waterfall's processes. */
  process: number
  startMs: number
  durationMs: number
  attributes: Span['attributes']
  /** The status message of a span that ended in error, else null. */
  error: string | null
  /** Its parent is not in the trace. */
  orphan: boolean
}

export interface TraceWaterfall {
  traceId: string
  /** ISO time of the trace's first start. */
  startTime: string
  durationMs: number
  processes: WaterfallProcess[]
  rows: WaterfallRow[]
}

/** One trace's spans as a waterfall. */
export declare function traceWaterfall (spans: Span[]): TraceWaterfall
/** The waterfall of a trace Jaeger holds; NB_ERR_UNKNOWN_TRACE when it has none. */
export declare function readTrace (options: { url: string, traceId: string, timeoutMs?: number }): Promise<TraceWaterfall>

export declare function breakdownFromSpans (spans: Span[], options?: { service?: string, maxOperations?: number }): JaegerSnapshot

export interface FanOutSegment { name: string, kind: string, meanMs: number, share: number }

/** A request that called other processes, read from whole traces (fan-out.js). */
export interface FanOut {
  schema: 1
  service: string
  operations: Array<{
    method: string
    route: string
    format: string
    /** Requests of the operation that called another process. */
    requests: number
    responseTimeMs: { mean: number }
    /** Every process called (`service instance`): calls, their mean time, their time over the requests' time, their segments. */
    callees: Array<{ service: string, process: string, calls: number, callsPerRequest: number, meanMs: number, share: number, segments: FanOutSegment[] }>
    /** The call that ended last in each request: how often each process was it, its mean time and segments. */
    criticalPath: { meanMs: number, share: number, processes: Array<{ process: string, requests: number }>, segments: FanOutSegment[] }
  }>
}

/** For requests of `service` that called other processes: each process's share and segments, and the critical path. */
export declare function fanOutFromSpans (spans: Span[], options: { service: string }): FanOut
export declare function breakdownFromJaeger (options: { url: string, service: string, since: Date, until?: Date, timeoutMs?: number, onProgress?: (page: { traces: number, from: Date, to: Date }) => void }): Promise<JaegerSnapshot>
/** The breakdown an app serves at its expose path; `headers` go with the request (an access rule may ask for one). */
export declare function breakdownFromApp (options: { url: string, headers?: Record<string, string>, timeoutMs?: number }): Promise<BreakdownSnapshot & { source: 'app' }>
export declare function parseSince (text: string, now?: Date): Date

export interface PrometheusInstance {
  /** service.instance.id (else the scrape target's address) */
  id: string
  address: string | null
  job: string | null
  host: string | null
  pid: number | null
  /** Requests it served in the window. */
  requests: number
}

export interface PrometheusSnapshot extends BreakdownSnapshot {
  source: 'prometheus'
  window: { since: string, until: string }
  /** The label matchers that selected the series. */
  selector: Record<string, string>
  instances: PrometheusInstance[]
}

/**
 * The breakdown of `service` (or of the series carrying `labels`) over every instance Prometheus holds
 * metrics of, in (since, until]: exact counts (increase without extrapolation), percentiles from buckets.
 */
export declare function breakdownFromPrometheus (options: {
  url: string, service?: string, labels?: Record<string, string>, since: Date, until?: Date, timeoutMs?: number
}): Promise<PrometheusSnapshot>

export interface ScrapeTarget { address: string, path: string }
export interface RunningPrometheus {
  pid: number
  command: string
  url: string
  port: number
  configFile: string
  targetsDir: string
  dataDir: string
  logFile: string
  scrapeIntervalMs: number
  targetsFiles: string[]
  stop (): Promise<void>
}

export declare function startPrometheus (options?: {
  dir?: string, dataDir?: string, port?: number, detached?: boolean, scrapeIntervalMs?: number, targetsFiles?: string[],
  onProgress?: (message: string) => void, env?: NodeJS.ProcessEnv, readyTimeoutMs?: number
}): Promise<RunningPrometheus>
/** The prometheus service when it runs (`state`), else a Prometheus of the caller's own (scraping every second). */
export declare function prometheusForRun (options?: { state?: import('@nodebench/services').ServiceState | null, onProgress?: (message: string) => void, env?: NodeJS.ProcessEnv }): Promise<{ url: string, targetsDir: string, scrapeIntervalMs: number, owned: boolean, stop (): Promise<void> }>
/** Sets the targets of group `name` in `targetsDir` (file_sd), each series scraped from them carrying `labels`. */
export declare function writeTargets (targetsDir: string, name: string, targets: ScrapeTarget[], labels?: Record<string, string>): string
/** Resolves once each of `count` targets carrying `labels` was scraped successfully at or after `after`. */
export declare function waitForScrapes (options: { url: string, labels: Record<string, string>, count: number, after: Date, timeoutMs?: number }): Promise<Date>
export declare const prometheusService: import('@nodebench/services').ServiceSpec

export interface RunningJaeger {
  pid: number
  queryUrl: string
  otlpHttpEndpoint: string
  otlpGrpcEndpoint: string
  ports: { otlpHttp: number, otlpGrpc: number, query: number, queryGrpc: number, health: number }
  logFile: string
  stop (): Promise<void>
}

export declare function startJaeger (options?: {
  detached?: boolean
  preferDefaultPorts?: boolean
  ports?: RunningJaeger['ports']
  logFile?: string
  maxTraces?: number
  onProgress?: (message: string) => void
  env?: NodeJS.ProcessEnv
  readyTimeoutMs?: number
}): Promise<RunningJaeger>

export declare function jaegerBinary (options?: { onProgress?: (message: string) => void, env?: NodeJS.ProcessEnv }): Promise<string>
export declare const jaegerService: import('@nodebench/services').ServiceSpec

export declare const errorCodes: Readonly<{
  NB_ERR_JAEGER_START: 'NB_ERR_JAEGER_START'
  NB_ERR_JAEGER_URL: 'NB_ERR_JAEGER_URL'
  NB_ERR_JAEGER_UNREACHABLE: 'NB_ERR_JAEGER_UNREACHABLE'
  NB_ERR_JAEGER_RESPONSE: 'NB_ERR_JAEGER_RESPONSE'
  NB_ERR_UNKNOWN_SERVICE: 'NB_ERR_UNKNOWN_SERVICE'
  NB_ERR_SINCE: 'NB_ERR_SINCE'
  NB_ERR_NO_TRACES: 'NB_ERR_NO_TRACES'
  NB_ERR_UNKNOWN_TRACE: 'NB_ERR_UNKNOWN_TRACE'
  NB_ERR_APP_URL: 'NB_ERR_APP_URL'
  NB_ERR_APP_UNREACHABLE: 'NB_ERR_APP_UNREACHABLE'
  NB_ERR_APP_RESPONSE: 'NB_ERR_APP_RESPONSE'
  NB_ERR_PROMETHEUS_START: 'NB_ERR_PROMETHEUS_START'
  NB_ERR_PROMETHEUS_TARGET: 'NB_ERR_PROMETHEUS_TARGET'
  NB_ERR_PROMETHEUS_SCRAPE: 'NB_ERR_PROMETHEUS_SCRAPE'
  NB_ERR_PROMETHEUS_URL: 'NB_ERR_PROMETHEUS_URL'
  NB_ERR_PROMETHEUS_UNREACHABLE: 'NB_ERR_PROMETHEUS_UNREACHABLE'
  NB_ERR_PROMETHEUS_RESPONSE: 'NB_ERR_PROMETHEUS_RESPONSE'
  NB_ERR_NO_METRICS: 'NB_ERR_NO_METRICS'
  NB_ERR_USAGE: 'NB_ERR_USAGE'
}>

/** The errors the collector throws: `code` is one of errorCodes. */
export { NodebenchError } from '@nodebench/errors'
