import type { BreakdownSnapshot } from '@nodebench/breakdown'

export type { BreakdownSnapshot, OperationSnapshot, SegmentSnapshot, DependencySnapshot, SegmentKind, ResponseFormat } from '@nodebench/breakdown'

/** The shape of an OpenTelemetry SpanExporter (e.g. InMemorySpanExporter, OTLPTraceExporter). */
export interface SpanExporterLike {
  export (spans: unknown[], resultCallback: (result: { code: number, error?: Error }) => void): void
  shutdown (): Promise<void>
  forceFlush? (): Promise<void>
}

export interface NodebenchTraceOptions {
  /** Service name of the spans and the breakdown. Default: OTEL_SERVICE_NAME, else the `name` of the app's package.json, else the script's name. */
  serviceName?: string
  /**
   * 'otlp' (default): OTLP/protobuf over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318),
   * or through the app's own global TracerProvider when it registered one.
   * 'none': breakdown only, no spans. Or any OpenTelemetry SpanExporter instance.
   */
  exporter?: 'otlp' | 'none' | SpanExporterLike
  /** Fraction of requests exported as spans, 0..1. Default: from OTEL_TRACES_SAMPLER(_ARG), else 1. The breakdown covers every request. */
  sampleRatio?: number
  /**
   * Add a Server-Timing header with each segment's duration: to every response (`true`), or to the responses
   * whose request the predicate accepts (asked when the headers go out). It tells whoever gets the response
   * every layer's name and duration: in production, use a predicate. Default false.
   */
  serverTiming?: boolean | ((req: any) => boolean)
  /** Serve the breakdown (JSON, or HTML for browsers) at this path; `true` means '/__nodebench'. DELETE resets it. Default off. */
  expose?: string | boolean
  /**
   * Who may read nodebench's endpoints (`read`: GET/HEAD) and reset the breakdown (`reset`: DELETE). Each:
   * 'local' (default: this machine, from Express's req.ip; forwarding headers only when 'trust proxy' trusts
   * the proxy), 'anyone', or a predicate of the request. Refused requests get 403 and a one-line reason.
   */
  access?: { read?: AccessRule, reset?: AccessRule }
  /** Spans buffered for export before new ones are dropped (and counted). Default 2048. */
  maxQueueSize?: number
  /** Distinct operations kept in the breakdown; requests of further ones are counted in dropped.operations. Default 500. */
  maxOperations?: number
  /**
   * Make the request span the active OpenTelemetry context while the app handles a sampled request, so spans
   * the app creates itself become its children. Default false: it switches on AsyncLocalStorage propagation
   * for the whole process, which every request then pays. (With instrumentation-http, its span is active anyway.)
   */
  activeContext?: boolean
  /**
   * Beside the app's own instrumentation-express, whose layer spans stand (each layer appears once in a trace):
   * 'nodebench' (default: nodebench's, one per layer, handler, param callback and error handler, named as in
   * the breakdown; instrumentation-express is told to ignore its layer types) or 'instrumentation-express'
   * (its spans, as the app configured it; nodebench writes no layer spans under its SERVER span). Said once on
   * stderr when instrumentation-express is found. The breakdown is the same either way.
   */
  layerSpans?: 'nodebench' | 'instrumentation-express'
  /**
   * The breakdown as OpenTelemetry metrics (http.server.request.duration, nodebench.segment.duration and, once
   * a segment called a dependency, nodebench.dependency.duration): true pushes OTLP every
   * OTEL_METRIC_EXPORT_INTERVAL ms (60 s); `prometheus` serves the text format on a path of
   * the app (guarded by access.read) or on a server of its own. Default: from OTEL_METRICS_EXPORTER (otlp,
   * prometheus on OTEL_EXPORTER_PROMETHEUS_HOST:PORT, none), else false. In a node:cluster worker, a scrape
   * port from the environment is left to nodebenchPrimary().
   */
  metrics?: boolean | {
    otlp?: boolean | { intervalMs?: number }
    prometheus?: false | string | { port: number, host?: string }
  }
}

export type AccessRule = 'local' | 'anyone' | ((req: any) => boolean)

/** `app.use(trace)`: an Express middleware with the breakdown attached. */
export interface NodebenchTrace {
  (req: any, res: any, next: (err?: unknown) => void): void
  /** A snapshot of the per-operation time-share breakdown (schema 1). */
  breakdown (): BreakdownSnapshot
  /** Clears the aggregates. */
  reset (): void
  /**
   * The W3C `traceparent` header value for a call the request `req` makes to another service: the request's
   * trace, with the segment running now as the parent (`fetch(url, { headers: { traceparent: trace.traceparent(req) } })`).
   * For a request that is not sampled, a traceparent whose flags say so.
   */
  traceparent (req: any): string
  /** Exports the spans buffered so far. */
  flush (): Promise<void>
  /** Flushes and stops what nodebench started (its OpenTelemetry SDK). */
  shutdown (): Promise<void>
  /** false when NODEBENCH=off switched nodebench off: the middleware only hands requests on, and breakdown() is empty. */
  readonly enabled: boolean
  /**
   * The validated, frozen options. `exporter` is 'app' when OTEL_TRACES_EXPORTER names an exporter only the app's
   * SDK makes (console, zipkin): nodebench's spans go through the app's TracerProvider, and nowhere without one.
   */
  readonly options: Readonly<Required<Omit<NodebenchTraceOptions, 'exporter'>> & { exporter: 'otlp' | 'none' | 'app' | SpanExporterLike }>
}

export declare function nodebenchTrace (options?: NodebenchTraceOptions): NodebenchTrace

/**
 * In a node:cluster primary: merge the workers' breakdowns, so `GET <expose>` on any worker answers for
 * the whole app (with `processes`) and `DELETE <expose>` resets every worker. With `metrics` (default: from
 * OTEL_METRICS_EXPORTER), it also exports the whole cluster's breakdown as metrics: one scrape target for
 * every worker, named after the workers' service.
 */
export declare function nodebenchPrimary (options?: {
  timeoutMs?: number
  metrics?: boolean | { otlp?: boolean | { intervalMs?: number }, prometheus?: false | { port: number, host?: string } }
}): {
  /** The merged breakdown of every traced worker (resetting them after when asked). */
  breakdown (options?: { reset?: boolean }): Promise<BreakdownSnapshot>
  /** Stops listening to the workers, and the metrics. */
  close (): Promise<void>
}

export declare const errorCodes: Readonly<{
  NB_ERR_OPTIONS_TYPE: 'NB_ERR_OPTIONS_TYPE'
  NB_ERR_UNKNOWN_OPTION: 'NB_ERR_UNKNOWN_OPTION'
  NB_ERR_SERVICE_NAME: 'NB_ERR_SERVICE_NAME'
  NB_ERR_EXPORTER: 'NB_ERR_EXPORTER'
  NB_ERR_SAMPLE_RATIO: 'NB_ERR_SAMPLE_RATIO'
  NB_ERR_SERVER_TIMING: 'NB_ERR_SERVER_TIMING'
  NB_ERR_EXPOSE: 'NB_ERR_EXPOSE'
  NB_ERR_ACCESS: 'NB_ERR_ACCESS'
  NB_ERR_MAX_QUEUE_SIZE: 'NB_ERR_MAX_QUEUE_SIZE'
  NB_ERR_MAX_OPERATIONS: 'NB_ERR_MAX_OPERATIONS'
  NB_ERR_ACTIVE_CONTEXT: 'NB_ERR_ACTIVE_CONTEXT'
  NB_ERR_METRICS: 'NB_ERR_METRICS'
  NB_ERR_LAYER_SPANS: 'NB_ERR_LAYER_SPANS'
  NB_ERR_CLUSTER: 'NB_ERR_CLUSTER'
}>

/**
 * nodebench's one error type (@nodebench/errors). nodebenchTrace's option errors are TypeErrors of it;
 * `err instanceof NodebenchError` holds for every nodebench error, whichever package threw it.
 */
export { NodebenchError } from '@nodebench/errors'
