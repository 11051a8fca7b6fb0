import type { BreakdownSnapshot, OperationSnapshot } from '@nodebench/breakdown'

export interface Span {
  traceId: string
  spanId: string
  parentSpanId: string | null
  name: string
  kind: number
  service: string | undefined
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
}

export declare class JaegerClient {
  constructor (options: { url: string, timeoutMs?: number })
  readonly url: string
  services (): Promise<string[]>
  findSpans (options: { service: string, start: Date, end: Date, limit?: number }): Promise<Span[]>
  findAllSpans (options: { service: string, start: Date, end: Date, pageSize?: number, onProgress?: (page: { traces: number, from: Date, to: Date }) => void }): Promise<Span[]>
  traceSpans (traceId: string): Promise<Span[]>
}

export declare function flattenSpans (result: unknown): Span[]
export declare function breakdownFromSpans (spans: Span[], options?: { service?: string, maxOperations?: number }): JaegerSnapshot
export declare function breakdownFromJaeger (options: { url: string, service: string, since: Date, until?: Date, timeoutMs?: number, onProgress?: (page: { traces: number, from: Date, to: Date }) => void }): Promise<JaegerSnapshot>
/** The breakdown an app serves at its expose path; `headers` go with the request (an access rule may ask for one). */
export declare function breakdownFromApp (options: { url: string, headers?: Record<string, string>, timeoutMs?: number }): Promise<BreakdownSnapshot & { source: 'app' }>
export declare function parseSince (text: string, now?: Date): Date

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
export declare const JAEGER_VERSION: string

export declare const errorCodes: Readonly<{
  NB_ERR_JAEGER_START: 'NB_ERR_JAEGER_START'
  NB_ERR_JAEGER_URL: 'NB_ERR_JAEGER_URL'
  NB_ERR_JAEGER_UNREACHABLE: 'NB_ERR_JAEGER_UNREACHABLE'
  NB_ERR_JAEGER_RESPONSE: 'NB_ERR_JAEGER_RESPONSE'
  NB_ERR_UNKNOWN_SERVICE: 'NB_ERR_UNKNOWN_SERVICE'
  NB_ERR_SINCE: 'NB_ERR_SINCE'
  NB_ERR_NO_TRACES: 'NB_ERR_NO_TRACES'
  NB_ERR_APP_URL: 'NB_ERR_APP_URL'
  NB_ERR_APP_UNREACHABLE: 'NB_ERR_APP_UNREACHABLE'
  NB_ERR_APP_RESPONSE: 'NB_ERR_APP_RESPONSE'
}>

/** The errors the collector throws: `code` is one of errorCodes. */
export { NodebenchError } from '@nodebench/errors'
