// nodebench from JavaScript: the command line itself, and the API it is a shell over. A configuration is made
// from the command line's option names (a string as on the command line, or numbers and arrays) and frozen;
// a run writes the same files as the command and resolves to what it prints from.

import type { BreakdownSnapshot } from '@nodebench/breakdown'
import type { TraceWaterfall } from '@nodebench/collector'

export interface Streams {
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
  /** Default process.env. */
  env?: NodeJS.ProcessEnv
}

/** Runs a nodebench command line (without node and the script); resolves to the exit code: 0, 1 failed, 2 not understood. */
export declare function main (argv: string[], streams?: Streams): Promise<number>

/** What `main` would do with `argv`; throws a NodebenchError NB_ERR_USAGE for a command line not understood. */
export declare function parseArguments (argv: string[], env?: NodeJS.ProcessEnv): { command: string, [field: string]: unknown }

/** How every command that starts or reaches an app names it, and the workload it sends (the options of the same names). */
export interface AppTargetOptions {
  /** An app directory with the example's entry points (server.js --port <p> --processes <n>); default the example in a checkout. */
  app?: string
  /** Your own start command, run by the shell: {port} becomes a free port, {processes} the process count. */
  cmd?: string
  /** With cmd, where the started app answers (its port {port}'s); alone, an app already running. */
  url?: string
  /** The workload file; default nodebench.workload.js or .json in the app's directory, else the current one. */
  workload?: string
  /** Seconds an app nodebench started may take to stop after SIGTERM before its process group gets SIGKILL (default 5, 0-600). */
  'stop-grace'?: string | number
}

/** The app a configuration names: `starts` when nodebench starts it (app or cmd). */
export interface AppTarget {
  app: string | null
  cmd: string | null
  url: string | null
  starts: boolean
  /** --stop-grace in ms. */
  stopGraceMs: number
}

type List = string | string[]
type Count = string | number

export interface BenchOptions extends AppTargetOptions {
  scenarios?: List
  formats?: List
  /** Values the workload varies (its `vary`), these lists instead: `'documents=1000,10000'` or several. */
  vary?: string | string[]
  processes?: string | number[]
  reps?: Count
  connections?: Count
  amount?: Count
  duration?: Count
  warmup?: Count
  'breakdown-source'?: 'app' | 'prometheus'
  topology?: List
  balancer?: 'least_conn' | 'round_robin'
  'find-max'?: boolean
  'max-connections'?: Count
  timeout?: Count
  'add-instance-at'?: string | number[]
  'kill-instance-at'?: string | number[]
  /**
   * Servers beside the app, the same scenarios sent to each: 'node' (bare node:http), 'express' (bare Express),
   * 'app-untraced' (the app with NODEBENCH=off; added with any of them), 'apache-php' (Apache httpd with PHP).
   */
  'baseline-targets'?: List
  quick?: boolean
  /** After the matrix, a flamegraph of every scenario (flame's V8 profiler), in the report. */
  flame?: boolean
  'flame-duration'?: Count
  /** After the matrix, a quick browser pass over the workload's pages, in the report. */
  browser?: boolean
  /** A stored run (its results.json or folder) to compare the new run with: compare.md, .json and .html beside the report. */
  baseline?: string
  /** With baseline: a regression beyond this percentage (significant) makes the command exit 1. */
  'fail-on'?: Count
  /** Default runs/<time>. */
  out?: string
  json?: boolean
}

export interface BenchConfig {
  readonly target: AppTarget
  readonly workload: { readonly name: string, readonly file: string, readonly [field: string]: unknown }
  readonly scenarios: string[]
  readonly formats: string[]
  readonly processes: number[]
  readonly reps: number
  readonly outDir: string
  readonly [field: string]: unknown
}

/** A bench run's configuration; throws NB_ERR_USAGE (or NB_ERR_WORKLOAD) for options not understood. */
export declare function benchConfig (options: BenchOptions, context?: { now?: Date }): BenchConfig

export interface BenchCellEvent {
  type: 'start' | 'end'
  index: number
  total: number
  /** `processes` null and topology 'prefork' for Apache httpd, whose pool is its own. */
  cell: { scenario: string, format: string, processes: number | null, topology: 'cluster' | 'nginx' | 'prefork', target: BenchTarget }
  /** With 'end': the cell's record in results.json. */
  record?: Record<string, unknown>
}

/** A server a bench run sends its scenarios to (the workload's `targets`, --baseline-targets). */
export interface BenchTarget {
  readonly name: string
  readonly kind: 'app' | 'app-untraced' | 'node' | 'express' | 'apache-php'
  readonly label: string
  /** Only the app is: the others have no breakdown. */
  readonly traced: boolean
  /** nodebench's own bare server (node, express) or reply page (apache-php), else the workload's script or pages. */
  readonly builtIn: boolean
  readonly script: string | null
  readonly root: string | null
}

export interface BenchRun {
  /**
   * What results.json holds (schema 2: every repetition of the app's cells with its operations' segment figures):
   * `cells` are the app's, `targetCells` the other servers' (`targets` says what each was); every cell has
   * `resources` (its processes' CPU and memory) and `latencyPercentilesMs`.
   */
  results: { schema: 2, cells: Array<Record<string, unknown>>, targetCells: Array<Record<string, unknown>>, [field: string]: unknown }
  resultsFile: string
  /** report.html and report.md. */
  report: { html: string, markdown: string }
  /** Why the run stopped early (the app did not start), or null. */
  aborted: string | null
  /** With a baseline: the comparison (runCompare's). */
  comparison?: CompareRun
}

/** The matrix of `config` on its app, then its flame and browser passes; results.json, report.md and report.html in its outDir. */
export declare function runBench (config: BenchConfig, options?: {
  env?: NodeJS.ProcessEnv
  onCell?: (event: BenchCellEvent) => void
  log?: (message: string) => void
  /** A pass's progress: 'flame' or 'browser'. */
  onPassProgress?: (pass: string, message: string) => void
}): Promise<BenchRun>

export interface FlameOptions extends AppTargetOptions {
  scenario?: string
  /** A format of the scenario, 'both' (the default: every one) or a list. */
  format?: string | string[]
  profiler?: 'v8' | '0x' | 'clinic'
  warmup?: Count
  duration?: Count
  connections?: Count
  /** Default flamegraphs. */
  out?: string
}

export interface FlameConfig {
  readonly target: AppTarget
  /** The Node.js script and its arguments the profilers run. */
  readonly argv: string[]
  readonly scenario: string
  readonly formats: string[]
  readonly profiler: 'v8' | '0x' | 'clinic'
  readonly outDir: string
  readonly [field: string]: unknown
}

/** A flame run's configuration: the app must be one flame starts (an app directory or a cmd; with 0x and clinic, cmd running a Node.js script). */
export declare function flameConfig (options: FlameOptions): FlameConfig

/** Flamegraphs of the scenario in each format, each segment's CPU beside its time, HTML against JSON. */
export declare function runFlame (config: FlameConfig, options?: { env?: NodeJS.ProcessEnv, onProgress?: (message: string) => void }): Promise<{
  flamegraphs: Array<{ format: string, html: string, profilePath: string, load: Record<string, number> | null, analysis: Record<string, unknown>, [field: string]: unknown }>
  /** HTML against JSON, when both were profiled. */
  comparison: Record<string, unknown> | null
  /** <scenario>-comparison.md and .json. */
  files: { markdown: string, json: string }
}>

export interface BrowserOptions extends AppTargetOptions {
  pages?: List
  'front-ends'?: List
  runs?: Count
  cache?: List
  network?: 'none' | 'lan' | 'fast-3g' | 'slow-3g'
  timeout?: Count
  /** Two runs a page. */
  quick?: boolean
  /** Default runs/browser-<time>. */
  out?: string
  json?: boolean
}

export interface BrowserConfig {
  readonly target: AppTarget
  readonly pages: string[]
  readonly frontEnds: string[]
  readonly outDir: string
  readonly [field: string]: unknown
}

/** A browser run's configuration; the workload must have a browser part (front ends and pages). */
export declare function browserConfig (options: BrowserOptions, context?: { now?: Date }): BrowserConfig

/** The workload's pages loaded in Chromium; browser.json, browser.md and browser.html in the config's outDir. */
export declare function runBrowser (config: BrowserConfig, options?: { env?: NodeJS.ProcessEnv, onProgress?: (message: string) => void }): Promise<{
  results: { schema: 1, loads: Array<Record<string, unknown>>, summary: Array<Record<string, unknown>>, [field: string]: unknown }
  resultsFile: string
  /** browser.md and browser.html, written beside the results. */
  report: { markdown: string, html: string }
}>

export type ReportSource = (
  | { source: 'app', url: string, headers?: Record<string, string> }
  | { source: 'prometheus', url: string | null, service: string, since: string }
  | { source: 'jaeger', jaeger: string, service: string, since: string }
) & {
  /** Where report.html goes; null or absent: no page. */
  outDir?: string | null
}

/**
 * The breakdown read back from Jaeger, Prometheus or an app (`since`: e.g. '10m'). From Jaeger, each operation's
 * slowest and a median request are read whole (`traces`, by id) and drawn as waterfalls in report.html (`page`);
 * `jaegerUi` says whether Jaeger's own UI answers there (null for the other sources).
 */
export declare function runReport (config: ReportSource, options?: { env?: NodeJS.ProcessEnv, onProgress?: (message: string) => void, now?: Date }): Promise<{
  snapshot: BreakdownSnapshot & { source: string }
  traces: Record<string, TraceWaterfall>
  jaegerUi: boolean | null
  page: string | null
}>

/** One trace's waterfall from Jaeger: every span at its start and length, each process's part named. */
export declare function runTrace (config: { jaeger: string, trace: string }): Promise<TraceWaterfall>

export interface SampledRoot {
  /** null or absent: nothing to sample (an app at --url alone). */
  pid: number | null
  /** The root's name in the figures, e.g. 'app', 'nginx master', 'back-end 1'. */
  role: string
  /** Its descendants that run its program (node:cluster workers, prefork children); default '<role> child'. A descendant running another program is '<role>: <program>'. */
  childRole?: string
  /** false: the root alone, not its children (nodebench itself, whose children are the run's other processes). */
  descendants?: boolean
}

export interface ResourceFigures {
  /** CPU % of one core (100 = one core busy): mean over the run (each reading weighed by its interval) and the busiest interval. */
  cpuPercent: { mean: number | null, max: number | null }
  /** Resident memory. */
  rssBytes: { mean: number | null, max: number | null }
}

export interface ProcessUsage {
  intervalMs: number
  /** The time sampled, pauses left out. */
  durationSec: number
  samples: number
  processes: Array<ResourceFigures & { pid: number, ppid: number | null, role: string, name: string, command: string | null, samples: number }>
  /** A role's processes summed at each sample. */
  roles: Array<ResourceFigures & { role: string, processes: number }>
  timeline: Array<{ second: number, role: string, cpuPercent: number | null, rssBytes: number }>
  /** The first error a sample met (sampling goes on), or null. */
  error: string | null
}

/**
 * Samples every process `roots()` names (asked again at every sample) and their descendants, every `intervalMs`
 * (default 1000), from /proc: CPU % and resident memory. What every bench cell records as `resources`.
 */
export declare function startProcessSampler (options: { roots: () => SampledRoot[], intervalMs?: number }): {
  stop (): Promise<ProcessUsage>
  /** Stops sampling (a last reading first) until resume(): nothing the processes do meanwhile counts. */
  pause (): Promise<void>
  /** Samples again; each process's first reading after a pause gives its memory only. */
  resume (): void
}

export interface CompareOptions extends AppTargetOptions {
  /** Two runs already measured: results.json files or their folders (a the base, b the change). */
  runs?: string[]
  /** A paired run: two start commands with {port}, two app directories, or two git revisions of the app (with app or cmd). */
  'cmd-a'?: string
  'cmd-b'?: string
  'app-a'?: string
  'app-b'?: string
  'rev-a'?: string
  'rev-b'?: string
  /** What a paired run measures: time (default) or instructions under callgrind. */
  measure?: 'time' | 'instructions'
  scenarios?: List
  formats?: List
  processes?: string | number[]
  /** Repetitions a side (default 10), or windows under callgrind (default 6). */
  reps?: Count
  connections?: Count
  amount?: Count
  duration?: Count
  warmup?: Count
  /** Values the workload varies (its `vary`), these lists instead, as bench's: a cell per combination on both sides. */
  vary?: string | string[]
  /** Requests per window under callgrind (default 200, after a warm-up of 2,000). */
  window?: Count
  /** A significant regression beyond this percentage of a cell's requests/s or a segment's mean time: exit 1. */
  'fail-on'?: Count
  /** Default runs/compare-<time>. */
  out?: string
  json?: boolean
}

export interface CompareConfig {
  readonly mode: 'runs' | 'paired'
  readonly measure: 'time' | 'instructions'
  readonly failOn: number | null
  readonly outDir: string
  readonly [field: string]: unknown
}

/** A compared figure: each side's median and values (one per repetition or window), the change b/a in percent with its 95% interval, p, the verdict. */
export interface ComparedFigure {
  id: string
  label: string
  unit: string
  better: 'higher' | 'lower' | null
  a: { median: number | null, values: number[] }
  b: { median: number | null, values: number[] }
  change: { scale: 'ratio' | 'difference', percent: number | null, low: number | null, high: number | null } | null
  p: number | null
  verdict: string
}

/** What compare.json holds. */
export interface Comparison {
  schema: 1
  mode: 'runs' | 'paired'
  measure: 'time' | 'instructions'
  method: { test: string, alpha: number, unit: string, interval: string, text: string }
  failOn: number | null
  cells: Array<{ scenario: string, format: string, processes: number, topology: string, label: string, figures: ComparedFigure[], operations: Array<Record<string, unknown>>, [field: string]: unknown }>
  regressions: Array<{ cell: string, what: string, segment: string | null, percent: number, low: number | null, high: number | null, p: number }>
  summary: { verdicts: Record<string, number>, movedSegments: Array<Record<string, unknown>> }
  [field: string]: unknown
}

export interface CompareRun {
  comparison: Comparison
  /** compare.json, compare.md and compare.html. */
  files: { json: string, markdown: string, html: string }
  /** Each side's results.json (read, or written by a paired run); null for bench --baseline. */
  runs: { a: string, b: string } | null
}

/** A comparison's configuration; throws NB_ERR_USAGE for options not understood (git revisions are resolved here). */
export declare function compareConfig (options: CompareOptions, context?: { now?: Date }): CompareConfig

/** Two runs compared, or two apps measured paired and compared; throws NB_ERR_COMPARE_INPUT for runs that cannot be compared. */
export declare function runCompare (config: CompareConfig, options?: {
  env?: NodeJS.ProcessEnv
  log?: (message: string) => void
  onCell?: (event: { index: number, total: number, cell: { scenario: string, format: string, processes: number, topology: string } }) => void
  /** What an app's nodebench said on its stderr (`nodebench: ...`, e.g. that no collector answered), each line as it comes. */
  onNotice?: (text: string) => void
}): Promise<CompareRun>
