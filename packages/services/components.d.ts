// `@nodebench/services/components`: what a package needs to run a component of its own as a nodebench service
// (the collector's Jaeger and Prometheus): a Go program built once and cached by version, a child whose output
// goes to a log file, and the service's state file.

import type { OnProgress, ServiceState } from './index'

export interface GoBuildContext {
  /** Where the build must write the executable (a temporary file, renamed into place afterwards). */
  output: string
  /** The build environment: the caller's, with GOFLAGS including -mod=mod. */
  env: NodeJS.ProcessEnv
  /** Runs `go <args>` in the build environment; resolves to its output. */
  go (args: string[], options?: { cwd?: string }): Promise<string>
}

export interface EnsureGoBinaryOptions {
  /** File name prefix: letters, digits, '.', '_', '+', '-'. */
  name: string
  version: string
  /** go.mod, go.sum and *.go files: their hash is part of the cache key. */
  sourceFiles: string[]
  build (context: GoBuildContext): Promise<unknown>
  /** Name in messages; default `name`. */
  displayName?: string
  /** How long a build takes, for the progress message ('about a minute'). */
  buildTime?: string
  /** What the user can do instead of installing Go, listed in NB_ERR_GO_MISSING. */
  alternatives?: string[]
  onProgress?: OnProgress
  env?: NodeJS.ProcessEnv
  /** Default <root>/.cache/bin. */
  binDir?: string
  /** Default NODEBENCH_CACHE_DIR, $XDG_CACHE_HOME/nodebench or ~/.cache/nodebench. */
  userCacheDir?: string
}

/** The path of `<binDir>/<name>-<version>-<hash>`, copied from the per-user cache or built when missing. */
export declare function ensureGoBinary (options: EnsureGoBinaryOptions): Promise<string>

/** `binary` started with its output appended to `logFile`; SIGTERM at this process's exit unless detached. */
export declare function startLoggedChild (binary: string, args: string[], options: { env?: NodeJS.ProcessEnv, detached?: boolean, logFile: string }): {
  child: import('node:child_process').ChildProcess
  /** Why it ended (a signal, `code N`, a spawn error), or null while it runs. */
  exited (): string | null
  /** SIGTERM, then SIGKILL; the same promise however often it is called. */
  stop (): Promise<void>
}

/** A service's live registration in `<stateDir>/<name>.json`, or null (a stale one, whose process is gone, is removed). */
export declare function readServiceState (name: string, options: { stateDir: string }): ServiceState | null
/** Writes a service's registration atomically; returns the file's path. */
export declare function writeServiceState (state: ServiceState, options: { stateDir: string }): string
