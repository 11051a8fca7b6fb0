'use strict'

// `npm run test:node -- 22 24`: the whole suite (`npm test`) under each named Node.js version, the binaries
// taken from the npm registry and cached per user (@nodebench/services nodeBinary). Before each suite,
// `npm ci --dry-run` runs under that version: it prints an EBADENGINE warning for every locked package that
// does not support it, and any such warning fails the version. Test files may follow the versions, as with
// `npm test`. Without them, the files tagged `// nodebench-test: once` are left out (test-files.js): `npm test`
// on the first line runs them, and the Node.js version does not change what they test; the skipped files and
// why are printed first, and `--all` runs them too. Progress and the summary go to stderr; the suites' own
// output to stdout.

const path = require('node:path')
const { spawn } = require('node:child_process')
const { nodeBinary } = require('@nodebench/services')
const { testFiles, splitOnce } = require('./test-files')

const root = path.join(__dirname, '..')
const VERSION_ARG = /^\d+(\.\d+){0,2}$/
const USAGE = 'usage: npm run test:node -- <version>... [--all | test files]   (e.g. 22 24, or 24.21.0)'

/**
 * `['22', '24', 'middleware/test/x.test.js']` -> `{ versions: ['22', '24'], files: [...], all: false }`; throws a
 * usage error.
 */
function parseArguments (args) {
  const versions = []
  const files = []
  let all = false
  for (const arg of args) {
    if (arg === '--all') all = true
    else if (VERSION_ARG.test(arg)) versions.push(arg)
    else if (/\.test\.[cm]?js$/.test(arg)) files.push(arg)
    else throw Object.assign(new Error(`"${arg}" is neither a Node.js version (22, 24.21, 24.21.0) nor a test file; ${USAGE}`), { usage: true })
  }
  if (versions.length === 0) throw Object.assign(new Error(`name at least one Node.js version; ${USAGE}`), { usage: true })
  if (all && files.length > 0) throw Object.assign(new Error(`--all runs every file; name test files or give --all, not both; ${USAGE}`), { usage: true })
  return { versions, files, all }
}

/**
 * The files each version runs: those named, else every file, less the ones that run once unless `all`.
 * Resolves to `{ files, skipped: [{ file, reason }] }`; `files` empty means run.js's own list (everything).
 */
function filesToRun ({ files, all }, listed = testFiles()) {
  if (files.length > 0 || all) return { files, skipped: [] }
  const { everyLine, once } = splitOnce(listed)
  return { files: once.length === 0 ? [] : everyLine, skipped: once }
}

/**
 * The environment a version's run gets: its `node` first on PATH, so anything spawned as `node` is that one
 * too; and no NODE_TEST_CONTEXT, which node:test sets for its own children (a suite started from inside a
 * test would otherwise skip its files).
 */
function environmentFor (binary, env = process.env) {
  const result = { ...env, PATH: `${path.dirname(binary)}${path.delimiter}${env.PATH || ''}` }
  delete result.NODE_TEST_CONTEXT
  return result
}

/**
 * Runs `command args` and resolves to { status, output }; output is echoed to `echo` ({ stdout, stderr }) when
 * given.
 */
function run (command, args, { env, echo = null }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const take = (stream) => (chunk) => {
      output += chunk
      if (stream !== null) stream.write(chunk)
    }
    child.stdout.on('data', take(echo && echo.stdout))
    child.stderr.on('data', take(echo && echo.stderr))
    child.once('error', (err) => resolve({ status: null, output: output + err.message }))
    child.once('close', (status, signal) => resolve({ status: signal ? null : status, output }))
  })
}

/** The lines of `npm ci --dry-run` output that are engine warnings. */
function engineWarnings (output) {
  return output.split('\n').filter((line) => /EBADENGINE/.test(line))
}

/**
 * The totals node:test prints last: `# pass N` with the TAP reporter (Node.js 20's default without a
 * terminal), `ℹ pass N` with the spec reporter (the default from Node.js 23 on).
 */
function suiteCounts (output) {
  const count = (name) => {
    const matches = [...output.matchAll(new RegExp(`^(?:# |\u2139 )${name} (\\d+)$`, 'gm'))]
    return matches.length === 0 ? null : Number(matches[matches.length - 1][1])
  }
  return { tests: count('tests'), pass: count('pass'), fail: count('fail') }
}

async function runVersion (spec, files, io, log) {
  const started = Date.now()
  const { version, path: binary } = await nodeBinary(spec, { onProgress: (message) => io.stderr.write(message + '\n') })
  const env = environmentFor(binary)
  log(`Node.js ${version}: npm ci --dry-run (engine check)...`)
  const npmArgs = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)
    ? [binary, [process.env.npm_execpath, 'ci', '--dry-run', '--no-audit', '--no-fund']]
    : ['npm', ['ci', '--dry-run', '--no-audit', '--no-fund']]
  const install = await run(npmArgs[0], npmArgs[1], { env })
  const warnings = engineWarnings(install.output)
  if (install.status !== 0 || warnings.length > 0) {
    const why = warnings.length > 0 ? `${warnings.length} EBADENGINE warnings, the first: ${warnings[0]}` : `npm ci --dry-run exited with ${install.status}`
    return { version, ok: false, summary: why, seconds: (Date.now() - started) / 1000 }
  }
  log(`Node.js ${version}: the suite...`)
  const suite = await run(binary, [path.join(root, 'test', 'run.js'), ...files], { env, echo: io })
  const counts = suiteCounts(suite.output)
  const summary = counts.tests === null
    ? `the suite exited with ${suite.status} before node:test reported`
    : `${counts.pass} of ${counts.tests} tests passed` + (counts.fail > 0 ? `, ${counts.fail} failed` : '')
  // A suite that ran nothing has not passed, whatever its exit code.
  const ok = suite.status === 0 && counts.tests > 0 && counts.fail === 0
  return { version, ok, summary, seconds: (Date.now() - started) / 1000 }
}

/**
 * Runs the suite under each version named in `args`; resolves to the exit code (0 all passed, 1 a version
 * failed or could not be had, 2 bad arguments). `io`: where the suites' output and the progress go.
 */
async function main (args, io = { stdout: process.stdout, stderr: process.stderr }) {
  const log = (message) => io.stderr.write(`nodebench tests: ${message}\n`)
  let parsed
  try {
    parsed = parseArguments(args)
  } catch (err) {
    log(err.message)
    return 2
  }
  let plan
  try {
    plan = filesToRun(parsed)
  } catch (err) {
    log(err.message)
    return 1
  }
  if (plan.skipped.length > 0) {
    log(`${plan.skipped.length} file${plan.skipped.length === 1 ? '' : 's'} run once, by \`npm test\` on the first line, ` +
      `not under these versions (--all runs them too):\n${plan.skipped.map(({ file, reason }) => `  ${file}: ${reason}`).join('\n')}`)
  }
  const results = []
  for (const spec of parsed.versions) {
    try {
      results.push(await runVersion(spec, plan.files, io, log))
    } catch (err) {
      results.push({ version: spec, ok: false, summary: err.code ? `${err.code}: ${err.message}` : err.message, seconds: 0 })
    }
  }
  for (const result of results) {
    log(`Node.js ${result.version}: ${result.ok ? 'ok' : 'FAILED'}: ${result.summary} (${Math.round(result.seconds)} s)`)
  }
  return results.every((result) => result.ok) ? 0 : 1
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code })
}

module.exports = { parseArguments, filesToRun, environmentFor, engineWarnings, suiteCounts, main }
