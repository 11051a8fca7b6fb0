'use strict'

// Go programs nodebench builds from the Go module proxy (FerretDB's launcher; Jaeger), cached by name,
// version and a hash of their sources. The checkout's cache is looked up first, then the per-user cache;
// only when both miss does `go` run. Builds write a temporary file and rename it into place, so concurrent
// builders (two test files, two apps) each end with a complete binary and never see half of one.

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { execFile } = require('node:child_process')
const { BIN_DIR, userCacheDir } = require('./cache-dirs')
const errors = require('./errors')

const HASH_LENGTH = 12
const OUTPUT_LIMIT = 16 * 1024 * 1024

function writeToStderr (message) {
  process.stderr.write(message + '\n')
}

/** sha256 over the files' names and contents, in name order: a changed go.mod, go.sum or .go file rebuilds. */
function sourceHash (sourceFiles) {
  const hash = crypto.createHash('sha256')
  for (const file of [...sourceFiles].sort()) {
    hash.update(path.basename(file)).update('\0').update(fs.readFileSync(file)).update('\0')
  }
  return hash.digest('hex').slice(0, HASH_LENGTH)
}

function temporaryPath (finalPath) {
  return `${finalPath}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`
}

/** Copies `from` to `to` through a temporary file beside `to`, then renames it into place. */
function copyAtomically (from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true })
  const temporary = temporaryPath(to)
  try {
    fs.copyFileSync(from, temporary)
    fs.chmodSync(temporary, 0o755)
    fs.renameSync(temporary, to)
  } finally {
    fs.rmSync(temporary, { force: true })
  }
}

/**
 * Removes the checkout's other builds of `name` (another version or source hash): they are never used
 * again by this checkout, and a Jaeger is 120 MB. The per-user cache keeps its copies for other checkouts.
 * A build in progress (a temporary file) is left alone; a running binary may be unlinked safely.
 */
function removeOlderBuilds (binDir, name, current) {
  const older = new RegExp(`^${name.replace(/[.+]/g, '\\$&')}-[^-]+-[0-9a-f]+$`)
  for (const file of fs.readdirSync(binDir)) {
    if (file !== current && older.test(file)) fs.rmSync(path.join(binDir, file), { force: true })
  }
}

/** Runs `go <args>`; resolves to its combined output, rejects with the error and that output. */
function runGo (args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    execFile('go', args, { cwd, env, maxBuffer: OUTPUT_LIMIT }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`
      if (error) reject(Object.assign(error, { output }))
      else resolve(output)
    })
  })
}

/** The environment `go` builds in: the user's (GOPATH, GOCACHE, GOPROXY...), with module mode -mod=mod. */
async function buildEnv (env, { displayName, alternatives }) {
  try {
    await runGo(['version'], { env })
  } catch (err) {
    if (err.code === 'ENOENT') throw errors.goMissing(displayName, alternatives)
    throw err
  }
  // GOFLAGS set in the environment replaces the one in `go env -w`; keep the user's other flags.
  const userFlags = (await runGo(['env', 'GOFLAGS'], { env })).trim().split(/\s+/)
  const flags = userFlags.filter((flag) => flag !== '' && !flag.startsWith('-mod=')).concat('-mod=mod')
  return { ...env, GOFLAGS: flags.join(' ') }
}

function validate (options) {
  for (const option of ['name', 'version']) {
    if (typeof options[option] !== 'string' || !/^[\w.+-]+$/.test(options[option])) {
      throw errors.invalidOption(option, options[option], 'a non-empty string of letters, digits, ".", "_", "+" or "-"')
    }
  }
  if (!Array.isArray(options.sourceFiles) || options.sourceFiles.length === 0) {
    throw errors.invalidOption('sourceFiles', options.sourceFiles, 'a non-empty array of file paths (go.mod, go.sum, *.go)')
  }
  if (typeof options.build !== 'function') {
    throw errors.invalidOption('build', options.build, 'a function ({ output, go }) that builds the binary at `output`')
  }
}

/**
 * The path of an executable built from Go sources, building it the first time.
 *
 * `build({ output, go, env })` must produce an executable at `output`; `go(args, { cwd })` runs the go
 * command in the build environment. `binDir` and `userCacheDir` exist for tests.
 */
async function ensureGoBinary (options) {
  validate(options)
  const {
    name, version, sourceFiles, build, displayName = name, buildTime, alternatives = [],
    onProgress = writeToStderr, env = process.env, binDir = BIN_DIR, userCacheDir: userDir = userCacheDir(env)
  } = options
  const fileName = `${name}-${version}-${sourceHash(sourceFiles)}`
  const binary = path.join(binDir, fileName)
  if (fs.existsSync(binary)) return binary

  const cached = path.join(userDir, 'bin', fileName)
  if (fs.existsSync(cached)) {
    copyAtomically(cached, binary)
    removeOlderBuilds(binDir, name, fileName)
    return binary
  }

  const goEnv = await buildEnv(env, { displayName, alternatives })
  onProgress(`nodebench: building ${displayName} ${version} from the Go module proxy ` +
    `(first time only${buildTime ? `, ${buildTime}` : ''})...`)
  fs.mkdirSync(binDir, { recursive: true })
  const output = temporaryPath(binary)
  try {
    await build({ output, env: goEnv, go: (args, { cwd } = {}) => runGo(args, { cwd, env: goEnv }) })
    if (!fs.existsSync(output)) throw Object.assign(new Error(`the build wrote no file at ${output}`), { output: '' })
    fs.chmodSync(output, 0o755)
    fs.renameSync(output, binary)
  } catch (err) {
    if (err.code === errors.codes.NB_ERR_GO_BUILD) throw err
    const reason = err.killed ? `killed by ${err.signal}` : Number.isInteger(err.code) ? `exit code ${err.code}` : err.message
    throw errors.goBuildFailed(displayName, version, reason, err.output ?? '')
  } finally {
    fs.rmSync(output, { force: true })
  }
  onProgress(`nodebench: built ${binary}`)
  removeOlderBuilds(binDir, name, fileName)

  try {
    copyAtomically(binary, cached)
  } catch (err) {
    onProgress(`nodebench: could not also keep ${displayName} in the per-user cache ${cached} (${err.message}); continuing`)
  }
  return binary
}

module.exports = { ensureGoBinary, sourceHash }
