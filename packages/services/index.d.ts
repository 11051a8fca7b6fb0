/** Receives progress messages (a build, a start); the default writes them to stderr. */
export type OnProgress = (message: string) => void

export interface ResolvedDatabase {
  uri: string
  /** 'MONGODB_URI' (given), 'service' (a registered database, shared), 'embedded' (started for this process). */
  source: 'MONGODB_URI' | 'service' | 'embedded'
  /** The database's process (FerretDB's, embedded or the registered service's); null for MONGODB_URI. */
  pid: number | null
  /** Stops an embedded database and removes its registration; a no-op for the other sources. */
  stop (): Promise<void>
}

export interface ResolveDatabaseOptions {
  onProgress?: OnProgress
  /** Read for MONGODB_URI, NODEBENCH_STATE_DIR, NODEBENCH_DATA_DIR, NODEBENCH_CACHE_DIR; default process.env. */
  env?: NodeJS.ProcessEnv
  /** Where services are registered; default NODEBENCH_STATE_DIR or <root>/.cache/services. */
  stateDir?: string
  /** The embedded database's data; default NODEBENCH_DATA_DIR or <root>/.cache/ferretdb/data. */
  dataDir?: string
  readyTimeoutMs?: number
}

/** The database an app should use: MONGODB_URI, else the registered `db` service, else an embedded FerretDB. */
export declare function resolveDatabase (options?: ResolveDatabaseOptions): Promise<ResolvedDatabase>

export interface StartDatabaseOptions {
  /** Default NODEBENCH_DATA_DIR or <root>/.cache/ferretdb/data. */
  dataDir?: string
  /** Default: a free loopback port. */
  port?: number
  onProgress?: OnProgress
  /** true: the database outlives this process; false (default): it stops when this process ends, even on SIGKILL. */
  detached?: boolean
  /** FerretDB's stdout and stderr are appended here; default <dataDir>/../ferretdb.log. */
  logFile?: string
  /** Default 30000. */
  readyTimeoutMs?: number
  /** Seconds between two passes that delete expired documents of TTL indexes; default 60 (MongoDB's). */
  ttlMonitorSleepSecs?: number
  /** FerretDB's PostgreSQL backend on this database instead of SQLite (what benchmarks/ferretdb-backends.js compares). */
  postgresqlUrl?: string
  env?: NodeJS.ProcessEnv
}

export interface StartedDatabase {
  /** mongodb://127.0.0.1:<port>/ */
  uri: string
  pid: number
  port: number
  dataDir: string
  logFile: string
  /** SIGTERM, SIGKILL after 5 s; resolves once the process is gone. Idempotent. */
  stop (): Promise<void>
}

/** Starts FerretDB and resolves once it answers a ping. Not registered: see resolveDatabase and startService. */
export declare function startDatabase (options?: StartDatabaseOptions): Promise<StartedDatabase>

/** The path of the FerretDB launcher (tools/ferretdb), built with Go the first time. */
export declare function ferretdbBinary (options?: { onProgress?: OnProgress, env?: NodeJS.ProcessEnv }): Promise<string>

export type ServiceName = 'db' | 'jaeger' | 'prometheus' | string
/** The built-in database, then the services registered with registerService. */
export declare function serviceNames (): ServiceName[]

/** A service's registration in its state file. */
export interface ServiceState {
  name: string
  pid: number
  uri: string
  startedAt: string
  owner?: number | null
  command?: string
  [field: string]: unknown
}

export interface ServiceSpec {
  description?: string
  start (options: { stateDir: string, onProgress?: OnProgress, env: NodeJS.ProcessEnv, readyTimeoutMs?: number, settings: Record<string, unknown> }): Promise<{ state: ServiceState, alreadyRunning: boolean }>
  answers (state: ServiceState): Promise<boolean>
  env (state: ServiceState): Record<string, string>
  /** Command-line options of `services start <name>` (node:util parseArgs' form), if the service takes any. */
  options?: Record<string, { type: 'string' | 'boolean', multiple?: boolean }>
  /** The parsed options -> the `settings` start receives; throws a coded error for bad ones. */
  parseOptions? (values: Record<string, unknown>): Record<string, unknown>
}

/** Adds a service `nodebench services` can start, stop and report on. */
export declare function registerService (name: string, spec: ServiceSpec): void
/** A loopback port free at the time of asking. */
export declare function freeLoopbackPort (): Promise<number>
/** Where a checkout keeps its caches (<root>/.cache), or an installed nodebench (node_modules/.cache/nodebench). */
export declare const PROJECT_CACHE_DIR: string
/** The FerretDB version the embedded database's launcher is built with (from tools/ferretdb/go.mod), e.g. 'v1.24.0'. */
export declare function ferretdbVersion (): string

export interface ServiceOptions {
  onProgress?: OnProgress
  /** What the service's parseOptions made of its command-line options (Prometheus: its targets). */
  settings?: Record<string, unknown>
  /** Read for NODEBENCH_STATE_DIR, NODEBENCH_DATA_DIR, NODEBENCH_CACHE_DIR; default process.env. */
  env?: NodeJS.ProcessEnv
  stateDir?: string
  readyTimeoutMs?: number
}

export interface StartedService {
  name: ServiceName
  pid: number
  uri: string
  port: number
  dataDir: string
  logFile: string
  startedAt: string
  /** The pid of the app whose embedded database this is (it stops with it), or null for a detached service. */
  owner: number | null
  /** What reaches the service: { MONGODB_URI } for db. */
  env: Record<string, string>
  alreadyRunning: boolean
}

export interface ServiceStatus {
  name: ServiceName
  running: boolean
  pid: number | null
  uri: string | null
  startedAt: string | null
  owner: number | null
  answering: boolean
}

export declare function startService (name: ServiceName, options?: ServiceOptions): Promise<StartedService>
export declare function stopService (name: ServiceName, options?: ServiceOptions): Promise<{ name: ServiceName, wasRunning: boolean, pid: number | null }>
export declare function serviceStatus (name: ServiceName, options?: ServiceOptions): Promise<ServiceStatus>
/** The registration of a running service (its addresses and files), or null. */
export declare function serviceState (name: ServiceName, options?: ServiceOptions): ServiceState | null
/** The command-line options `services start <name>` takes, and how to read them. */
export declare function serviceOptions (name: ServiceName): { options: NonNullable<ServiceSpec['options']>, parseOptions: NonNullable<ServiceSpec['parseOptions']> }

export interface EnsureChromiumOptions {
  onProgress?: OnProgress
  /** Read for CHROMIUM_PATH and PATH; default process.env. */
  env?: NodeJS.ProcessEnv
  /** Where to look when CHROMIUM_PATH is not set; default ['/usr/bin/chromium', '/usr/bin/chromium-browser']. */
  candidates?: string[]
  /** Whether Debian's chromium package may be installed; default: running as root with apt-get on PATH. */
  canInstall?: boolean
  /** The apt-get to run; default the one on PATH. */
  aptGet?: string
  /** How long to wait while another apt-get or dpkg holds Debian's package lock (one line says so); default 10 minutes. */
  lockTimeoutMs?: number
}

/**
 * The path of a Chromium executable: CHROMIUM_PATH, else /usr/bin/chromium or /usr/bin/chromium-browser, else
 * Debian's chromium package installed with apt-get (as root). Throws NB_ERR_CHROMIUM_MISSING otherwise.
 * Never downloads a browser build.
 */
export declare function ensureChromium (options?: EnsureChromiumOptions): Promise<string>

/**
 * The path of a valgrind executable (for the instruction-count benchmark): VALGRIND_PATH, else
 * /usr/bin/valgrind, else Debian's valgrind package installed with apt-get (as root). Throws
 * NB_ERR_VALGRIND_MISSING otherwise. Options as ensureChromium's (`candidates` default ['/usr/bin/valgrind']).
 */
export declare function ensureValgrind (options?: EnsureChromiumOptions): Promise<string>

/** What a callgrind dump counted: the whole, and what V8's garbage collector and compilers ran of it. */
export interface CallgrindCounts {
  /** Every instruction of the dump. */
  total: number
  /** Instructions inside the functions that enter V8's garbage collector, each counted once. */
  gc: number
  /** Instructions inside the functions that enter V8's compilers (optimizing, baseline, lazy), each counted once. */
  compile: number
  /** The program's own work: total less gc and compile. */
  mutator: number
}

/**
 * A callgrind dump's instructions, split into the program's own work and what V8's garbage collector and
 * compilers ran (entries nested in one another counted once, from callgrind_annotate's caller tree). Reads it
 * with the callgrind_annotate beside ensureValgrind's valgrind; `options` as ensureValgrind's, and `timeoutMs`
 * for callgrind_annotate (default 300000). Throws NB_ERR_CALLGRIND when the dump cannot be read.
 */
export declare function callgrindCounts (file: string, options?: EnsureChromiumOptions & { timeoutMs?: number }): Promise<CallgrindCounts>

/**
 * The path of a prometheus executable (fleet breakdowns): PROMETHEUS_PATH, else /usr/bin/prometheus, else
 * Debian's prometheus package installed with apt-get (as root); NB_ERR_PROMETHEUS_MISSING otherwise.
 */
export declare function ensurePrometheus (options?: EnsureChromiumOptions): Promise<string>

/**
 * The path of an nginx executable (bench --topology nginx): NGINX_PATH, else /usr/sbin/nginx, else Debian's
 * nginx package installed with apt-get (as root); NB_ERR_NGINX_MISSING otherwise.
 */
export declare function ensureNginx (options?: EnsureChromiumOptions): Promise<string>

export interface StartNginxOptions {
  /** A directory of nginx's own: its configuration, logs, pid and temporary files. */
  dir: string
  /** Where it listens, on 127.0.0.1. */
  port: number
  /** The instances behind it, host:port. */
  upstreams: string[]
  /** Default least_conn; every server has max_fails=3 fail_timeout=30s. */
  balancer?: 'least_conn' | 'round_robin'
  onProgress?: OnProgress
  env?: NodeJS.ProcessEnv
  /** Default 30000. */
  readyTimeoutMs?: number
}

export interface RunningNginx {
  pid: number
  /** http://127.0.0.1:<port> */
  url: string
  port: number
  dir: string
  /** nginx's version, e.g. '1.22.1'. */
  version: string
  /** Whether a reload can reset a request on an idle keep-alive connection (nginx before 1.27.4). */
  reloadResetsIdle: boolean
  /** Its access log: parseAccessLog reads it (complete once nginx stopped). */
  accessLog: string
  upstreams (): string[]
  /** Rewrites the configuration, checks it and reloads nginx; resolves once its new workers run. */
  setUpstreams (upstreams: string[]): Promise<void>
  /** SIGTERM, then SIGKILL; the same promise however often it is called. */
  stop (): Promise<void>
}

/** nginx on loopback in front of `upstreams`, with a configuration nodebench writes; stops with this process. */
export declare function startNginx (options: StartNginxOptions): Promise<RunningNginx>

export interface AccessLogEntry {
  /** When the request ended, ms since the epoch. */
  time: number
  /** What the client got. */
  status: number
  /** The instances nginx tried, in order; status null when no answer came. */
  attempts: Array<{ address: string, status: number | null }>
}

/** The lines of the access log startNginx configures. */
export declare function parseAccessLog (text: string): AccessLogEntry[]
/** The text of the error pages nginx writes itself (no instance answered): tells its 502s from the app's 5xx. */
export declare const PROXY_ERROR_MARK: string

/**
 * The path of an apache2 executable with PHP's module (libphp*.so) beside it (bench's apache-php target):
 * APACHE_PATH, else /usr/sbin/apache2, else Debian's apache2 and libapache2-mod-php packages installed with
 * apt-get (as root); NB_ERR_APACHE_MISSING otherwise.
 */
export declare function ensureApachePhp (options?: EnsureChromiumOptions & { modulesDir?: string }): Promise<string>

export interface ApacheReply {
  status: number
  contentType?: string
  body: Buffer | string
}

export interface ApachePrefork {
  /** Debian's prefork defaults: 5, 5, 10, 150, 0. */
  startServers?: number
  minSpareServers?: number
  maxSpareServers?: number
  maxRequestWorkers?: number
  maxConnectionsPerChild?: number
  /** Apache's defaults: On, 100, 5 s. */
  keepAlive?: boolean
  maxKeepAliveRequests?: number
  keepAliveTimeoutSec?: number
}

export interface StartApachePhpOptions {
  /** A directory of Apache's own: its configuration, pages, error log and pid. */
  dir: string
  /** Where it listens, on 127.0.0.1. */
  port: number
  /** A directory of PHP pages to serve (copied into `dir`); or `reply`. */
  root?: string
  /** What every request gets, from a PHP page of nodebench's own; or `root`. */
  reply?: ApacheReply
  prefork?: ApachePrefork
  /** The path polled until Apache answers; default '/'. */
  readyPath?: string
  onProgress?: OnProgress
  env?: NodeJS.ProcessEnv
  /** Default 30000. */
  readyTimeoutMs?: number
  /** Where Apache's modules are; default Debian's /usr/lib/apache2/modules. */
  modulesDir?: string
}

export interface RunningApachePhp {
  /** Apache's parent process; its prefork children are its own. */
  pid: number
  /** http://127.0.0.1:<port> */
  url: string
  port: number
  dir: string
  versions: { apache: string | null, php: string | null }
  /** The prefork and keep-alive settings it runs with. */
  settings: Required<ApachePrefork>
  errorLog: string
  /** SIGTERM (the parent stops its children), then SIGKILL to its process group; the same promise however often it is called. */
  stop (): Promise<void>
}

/**
 * Apache httpd with PHP (prefork MPM, mod_php) on loopback, with a configuration nodebench writes; stops with
 * this process. NB_ERR_APACHE_START, with the first lines of its error log, when it does not start.
 */
export declare function startApachePhp (options: StartApachePhpOptions): Promise<RunningApachePhp>

export interface NodeBinaryOptions {
  onProgress?: OnProgress
  /** Read for NODEBENCH_CACHE_DIR and passed to npm; default process.env. */
  env?: NodeJS.ProcessEnv
}

export interface NodeBinary {
  /** The exact version, e.g. '24.21.0'. */
  version: string
  /** The executable, in the per-user cache: <cache>/node/<version>/bin/node. */
  path: string
}

/**
 * A Node.js binary of `spec` ('24', '22.12' or '24.21.0'): the newest matching version of the npm registry's
 * node-<platform>-<arch> package, fetched with npm pack (integrity-checked) the first time and cached per user.
 * Offline, the newest cached version of that line. NB_ERR_NODE_UNAVAILABLE when none can be had.
 */
export declare function nodeBinary (spec: string | number, options?: NodeBinaryOptions): Promise<NodeBinary>

/** NODEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/nodebench, else ~/.cache/nodebench. */
export declare function userCacheDir (env?: NodeJS.ProcessEnv): string

/** The codes of the errors this package throws (NodebenchError, from @nodebench/errors). */
export type ErrorCode =
  | 'NB_ERR_INVALID_OPTION'
  | 'NB_ERR_GO_MISSING'
  | 'NB_ERR_GO_BUILD'
  | 'NB_ERR_DB_START'
  | 'NB_ERR_LOCK_TIMEOUT'
  | 'NB_ERR_SERVICE_UNKNOWN'
  | 'NB_ERR_SERVICE_NOT_ANSWERING'
  | 'NB_ERR_NODE_UNAVAILABLE'
  | 'NB_ERR_CHROMIUM_MISSING'
  | 'NB_ERR_VALGRIND_MISSING'
  | 'NB_ERR_PROMETHEUS_MISSING'
  | 'NB_ERR_NGINX_MISSING'
  | 'NB_ERR_NGINX_START'
  | 'NB_ERR_APACHE_MISSING'
  | 'NB_ERR_APACHE_START'
  | 'NB_ERR_CALLGRIND'
