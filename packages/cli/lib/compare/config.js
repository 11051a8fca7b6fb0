'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { commandOptions } = require('../command-options')
const { appTargetOf, workloadOf, nodeCommand } = require('../kernel/app-target')
const { displayPath } = require('../kernel/paths')
const { loadPlanOf, processCountsOf } = require('../kernel/plan-options')
const { failOnOf } = require('./baseline')
const { usageError, wholeNumber } = commandOptions('compare')

// `compare`'s options -> a frozen configuration (what runCompare takes). Two kinds of comparison:
// - two runs already measured: `compare <a> <b>`, each a bench run's results.json or its folder;
// - a paired run: the same workload on two apps, repetitions interleaved A, B, A, B, ...: two start commands
//   (--cmd-a, --cmd-b, with {port}), two app directories (--app-a, --app-b), or two git revisions of the app
//   (--rev-a, --rev-b; the app named as for bench: --app, or --cmd run in the revision's copy of the folder it
//   is given from). `--measure instructions` counts instructions per request under callgrind instead of time.
// Either way a comparison is written to --out (compare.md, compare.json, compare.html), and --fail-on <percent>
// makes a regression beyond it exit 1.

const MEASURES = Object.freeze(['time', 'instructions'])
// Paired: 10 repetitions a side, benchstat's advice; the least a verdict needs is 4 (statistics.js).
const PAIRED_REPETITIONS = 10
const DEFAULT_WARMUP = 200
// --measure instructions: requests before the first window, and per window. Measured on the shop app (Node.js 20):
// after 300 requests V8's optimizing compiler is still at work and a window of 100 moves by 20-30% from one run to
// the next; after 2,000, windows of 200 repeated within 1.5% from run to run (what is left drifts down ~2% a window,
// alike on both sides, which the paired test cancels). On a busier machine the counts moved up to 15% from run to
// run while the paired change repeated (docs/compare.md).
const INSTRUCTIONS_WARMUP = 2000
const INSTRUCTIONS_WINDOW = 200
const INSTRUCTIONS_WINDOWS = 6

/** The git checkout `dir` is in, and `dir` within it: `{ root, relative }`; NB_ERR_USAGE when it is in none. */
function checkoutOf (dir) {
  try {
    const root = execFileSync('git', ['-C', dir, 'rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
    return { root, relative: path.relative(fs.realpathSync(root), fs.realpathSync(dir)) }
  } catch {
    throw usageError(`--rev-a and --rev-b run revisions of a git checkout; ${displayPath(dir)} is in none`)
  }
}

/** `rev` as the commit it names in `root`; NB_ERR_USAGE when it names none. */
function commitOf (root, rev, option) {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
  } catch {
    throw usageError(`--${option} '${rev}' is no revision of the checkout at ${displayPath(root)}`)
  }
}

/** The two sides of a paired run: `[{ name, source, target, rev }]`, `rev` set for git revisions. */
function pairedSides (values) {
  const given = ['cmd', 'app', 'rev'].filter((kind) => values[`${kind}-a`] !== undefined || values[`${kind}-b`] !== undefined)
  if (given.length > 1) throw usageError(`--${given[0]}-a/-b and --${given[1]}-a/-b exclude each other: name both sides one way`)
  const [kind] = given
  for (const side of ['a', 'b']) {
    if (values[`${kind}-${side}`] === undefined) throw usageError(`--${kind}-a and --${kind}-b go together; --${kind}-${side} is missing`)
  }
  if (kind !== 'rev' && (values.app !== undefined || values.cmd !== undefined)) {
    throw usageError(`--${kind}-a/-b name both apps: leave out --app and --cmd`)
  }
  if (kind === 'app' && values.url !== undefined) throw usageError('--app-a/-b start each app on 127.0.0.1: leave out --url')
  // --url with commands, as bench takes it: the scheme and host both apps answer on, each at its own {port}.
  if (kind === 'cmd') {
    return ['a', 'b'].map((side) => {
      const cmd = String(values[`cmd-${side}`])
      if (!cmd.includes('{port}')) throw usageError(`--cmd-${side} needs a {port} placeholder: both apps run at once, each on a free port`)
      return { name: side === 'a' ? 'A' : 'B', source: cmd, target: appTargetOf({ cmd, url: values.url, 'stop-grace': values['stop-grace'] }, { command: 'compare' }), rev: null }
    })
  }
  if (kind === 'app') {
    return ['a', 'b'].map((side) => {
      const target = appTargetOf({ app: values[`app-${side}`], 'stop-grace': values['stop-grace'] }, { command: 'compare', appOption: `--app-${side}` })
      if (!fs.existsSync(path.join(target.app, 'server.js'))) throw usageError(`--app-${side} ${displayPath(target.app)} has no server.js`)
      return { name: path.basename(target.app), source: displayPath(target.app), target, rev: null }
    })
  }
  // Revisions: the app as bench names it, in each revision's copy of the checkout.
  if (values.url !== undefined && values.cmd === undefined) {
    throw usageError('--rev-a/-b start each revision: give --app or --cmd (with --url for the scheme and host it answers on), not --url alone')
  }
  const target = appTargetOf({ app: values.app, cmd: values.cmd, url: values.url, 'stop-grace': values['stop-grace'] }, { command: 'compare' })
  if (target.cmd !== null && !target.cmd.includes('{port}')) throw usageError('--cmd needs a {port} placeholder: both revisions run at once, each on a free port')
  const checkout = checkoutOf(target.app ?? process.cwd())
  return ['a', 'b'].map((side) => {
    const rev = String(values[`rev-${side}`])
    const commit = commitOf(checkout.root, rev, `rev-${side}`)
    return { name: rev, source: `${rev} (${commit.slice(0, 12)})`, target, rev: { rev, commit, root: checkout.root, relative: checkout.relative } }
  })
}

/**
 * The configuration of a comparison from option values (parseArgs' and the positionals as `runs`, or the same
 * names from JavaScript). Throws NB_ERR_USAGE (exit 2) for anything not understood.
 */
function compareConfig (values, { now = new Date() } = {}) {
  const runs = values.runs ?? []
  const paired = ['cmd-a', 'cmd-b', 'app-a', 'app-b', 'rev-a', 'rev-b'].some((name) => values[name] !== undefined)
  const failOn = failOnOf(values, usageError)
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  const common = {
    failOn,
    outDir: path.resolve(values.out ?? path.join('runs', `compare-${stamp}`)),
    json: Boolean(values.json)
  }
  if (!paired) {
    if (runs.length !== 2) {
      throw usageError(`expected two runs to compare (results.json files or their folders), or --cmd-a/--cmd-b, --app-a/--app-b or --rev-a/--rev-b; received ${runs.length === 0 ? 'none' : runs.map((r) => `'${r}'`).join(' ')}`)
    }
    const pairedOnly = ['measure', 'reps', 'scenarios', 'formats', 'processes', 'connections', 'amount', 'duration', 'warmup', 'vary', 'window', 'app', 'cmd',
      'url', 'workload', 'stop-grace']
      .filter((name) => values[name] !== undefined)
    if (pairedOnly.length > 0) throw usageError(`--${pairedOnly[0]} is for a paired run (--cmd-a/--cmd-b, ...); two runs already measured are compared as they are`)
    return Object.freeze({ mode: 'runs', runs: Object.freeze(runs.map(String)), measure: 'time', ...common })
  }
  if (runs.length > 0) throw usageError(`a paired run takes no results to compare; received '${runs[0]}'`)
  const measure = values.measure ?? 'time'
  if (!MEASURES.includes(measure)) throw usageError(`--measure must be time or instructions; received '${measure}'`)
  const sides = pairedSides(values)
  const workload = workloadOf(values, sides[0].target)
  const instructions = measure === 'instructions'
  if (!instructions && values.window !== undefined) throw usageError('--window is the requests of a window under callgrind: it goes with --measure instructions')
  if (instructions) {
    // callgrind runs a Node.js script: an app directory, or --cmd "node <script> ...".
    for (const side of sides) nodeCommand(side.target, { command: 'compare', what: '--measure instructions counts' })
    if (values.url !== undefined) throw usageError('--measure instructions runs each app under callgrind at http://127.0.0.1:{port}: leave out --url')
    for (const name of ['duration', 'connections']) {
      if (values[name] !== undefined) throw usageError(`--${name} does not apply to --measure instructions: it sends --window requests one at a time`)
    }
    if (values.amount !== undefined) throw usageError('--measure instructions sends --window requests per window, not --amount')
  }
  // The load plan as bench reads it (kernel/plan-options.js); under callgrind one connection, and no scenario's own
  // warm-up (V8's is the one to settle there).
  const plan = loadPlanOf(values, workload, {
    command: 'compare',
    warmup: instructions ? INSTRUCTIONS_WARMUP : DEFAULT_WARMUP,
    ownWarmup: !instructions,
    connections: instructions ? 1 : null
  })
  const { scenarios, formats, sweep } = plan
  if (!scenarios.some((s) => formats.some((f) => workload.scenarios[s].formats.includes(f)))) {
    throw usageError(`--scenarios ${scenarios.join(',')} and --formats ${formats.join(',')} leave nothing to measure`)
  }
  const processes = processCountsOf(values, 'compare') ?? [1]
  if (instructions && (processes.length > 1 || processes[0] !== 1)) {
    throw usageError('--measure instructions counts one process under callgrind: leave out --processes (or give 1)')
  }
  if (instructions) {
    const many = scenarios.find((s) => sweep.byScenario[s].some((combination) => (combination.processes ?? 1) !== 1))
    if (many !== undefined) throw usageError(`--measure instructions counts one process under callgrind; scenario '${many}' varies processes`)
  }
  const reps = values.reps !== undefined ? wholeNumber(values.reps, 'reps', 2, 100) : instructions ? INSTRUCTIONS_WINDOWS : PAIRED_REPETITIONS
  const window = instructions ? (values.window !== undefined ? wholeNumber(values.window, 'window', 10, 1_000_000) : INSTRUCTIONS_WINDOW) : null
  // Under callgrind a repetition is a window of requests.
  const amounts = instructions ? Object.fromEntries(scenarios.map((scenario) => [scenario, window])) : plan.amounts
  return Object.freeze({
    mode: 'paired',
    measure,
    sides: Object.freeze(sides.map(Object.freeze)),
    workload,
    ...plan,
    processes,
    reps,
    amounts,
    window,
    ...common
  })
}

module.exports = { compareConfig, MEASURES, PAIRED_REPETITIONS }
