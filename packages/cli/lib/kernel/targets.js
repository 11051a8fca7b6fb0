'use strict'

const fs = require('node:fs')
const path = require('node:path')

// The servers a bench run sends its scenarios to, side by side: the app (traced by nodebench), the same app
// without nodebench, a bare node:http server, a bare Express app and Apache httpd with PHP (prefork, mod_php).
// A workload names them (`targets`), `bench --baseline-targets node,express` adds some to any run, so a report
// reads "this machine serves N req/s bare, Express M, your app untraced U, traced T". Only the app has a
// breakdown: the others run without nodebench.
//
//   targets: [
//     'app',                                                  // the app of --app, --cmd or --url, traced
//     'app-untraced',                                         // the same, started with NODEBENCH=off
//     'express',                                              // nodebench's bare Express app
//     { kind: 'node', label: 'minimal Node.js server', script: 'node-server.js' },  // a script of the workload's
//     { kind: 'apache-php', root: 'php', prefork: { maxRequestWorkers: 150 } }       // the workload's PHP pages
//   ]
//
// Without `script` (node, express) or `root` (apache-php), the server is nodebench's own, answering every request
// with what the app answered the same request (its status, type and bytes), so a ceiling serves the app's
// answer; with no app in the run, "Hello World". A `script` is started as an app directory's server.js is:
// `node <script> --port 0 --processes <n>`, printing `listening on <url>`.

const TARGET_KINDS = Object.freeze({
  app: Object.freeze({ label: 'the app', traced: true, role: 'app' }),
  'app-untraced': Object.freeze({ label: 'the app without nodebench', traced: false, role: 'app (untraced)' }),
  node: Object.freeze({ label: 'bare node:http', traced: false, role: 'node:http' }),
  express: Object.freeze({ label: 'bare Express', traced: false, role: 'express' }),
  'apache-php': Object.freeze({ label: 'Apache httpd with PHP, prefork and mod_php', traced: false, role: 'apache2 parent' })
})
/** What `--baseline-targets` takes: every kind but the app itself. */
const BASELINE_KINDS = Object.freeze(['node', 'express', 'app-untraced', 'apache-php'])
// The order a run measures a group's targets in: the app first, whose answer the bare servers then serve.
const RUN_ORDER = Object.freeze(['app', 'app-untraced', 'express', 'node', 'apache-php'])
// The ladder a report climbs: bare Node.js, Express, the app, nodebench.
const LADDER = Object.freeze(['node', 'express', 'app-untraced', 'app'])
const TARGET_KEYS = Object.freeze(['kind', 'name', 'label', 'script', 'root', 'prefork'])
const PREFORK_KEYS = Object.freeze([
  'startServers', 'minSpareServers', 'maxSpareServers', 'maxRequestWorkers', 'maxConnectionsPerChild', 'keepAlive',
  'maxKeepAliveRequests', 'keepAliveTimeoutSec'
])
const NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/

function describe (value) {
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function targetOf ({ kind, name = kind, label = TARGET_KINDS[kind].label, script = null, root = null, prefork = {} }) {
  return Object.freeze({
    name,
    kind,
    label,
    traced: TARGET_KINDS[kind].traced,
    script,
    root,
    prefork: Object.freeze({ ...prefork }),
    builtIn: (kind === 'node' || kind === 'express') ? script === null : kind === 'apache-php' ? root === null : false
  })
}

/**
 * A workload's `targets` checked (`fail(message)` throws the workload's error), paths resolved from the
 * workload's directory `dir`: a frozen list of targets, or null when the workload names none (the app alone).
 */
function checkTargets (source, { fail, dir }) {
  if (source === undefined) return null
  if (!Array.isArray(source) || source.length === 0) fail(`targets must be a list of servers (${Object.keys(TARGET_KINDS).join(', ')}); received ${describe(source)}`)
  const targets = []
  for (const [index, entry] of source.entries()) {
    const where = `targets[${index}]`
    const given = typeof entry === 'string' ? { kind: entry } : entry
    if (given === null || typeof given !== 'object' || Array.isArray(given)) fail(`${where} must be a kind or an object with a kind; received ${describe(entry)}`)
    for (const key of Object.keys(given)) {
      if (!TARGET_KEYS.includes(key)) fail(`${where}: unknown key '${key}'; expected one of ${TARGET_KEYS.join(', ')}`)
    }
    if (!Object.hasOwn(TARGET_KINDS, given.kind)) {
      fail(`${where}: unknown target kind ${describe(given.kind)}; expected one of ${Object.keys(TARGET_KINDS).join(', ')}`)
    }
    const { kind } = given
    const name = given.name ?? kind
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) fail(`${where}.name must be lower-case letters, digits and dashes; received ${describe(given.name)}`)
    if (targets.some((target) => target.name === name)) fail(`${where}: a second target named '${name}'; give each a name of its own`)
    if (given.label !== undefined && (typeof given.label !== 'string' || given.label.trim() === '')) fail(`${where}.label must be a non-empty string; received ${describe(given.label)}`)
    const file = (key, allowed, isDir) => {
      if (given[key] === undefined) return null
      if (!allowed) fail(`${where}.${key} is for ${key === 'script' ? 'node and express' : 'apache-php'} targets, not ${kind}`)
      if (typeof given[key] !== 'string' || given[key].trim() === '') fail(`${where}.${key} must be a path; received ${describe(given[key])}`)
      const resolved = path.resolve(dir, given[key])
      const exists = fs.existsSync(resolved) && fs.statSync(resolved).isDirectory() === isDir
      if (!exists) fail(`${where}.${key} ${given[key]} is not ${isDir ? 'a directory' : 'a file'} (paths are from the workload's folder)`)
      return resolved
    }
    const script = file('script', kind === 'node' || kind === 'express', false)
    const root = file('root', kind === 'apache-php', true)
    if (given.prefork !== undefined) {
      if (kind !== 'apache-php') fail(`${where}.prefork is for apache-php targets, not ${kind}`)
      if (given.prefork === null || typeof given.prefork !== 'object' || Array.isArray(given.prefork)) fail(`${where}.prefork must be an object; received ${describe(given.prefork)}`)
      for (const [key, value] of Object.entries(given.prefork)) {
        if (!PREFORK_KEYS.includes(key)) fail(`${where}.prefork: unknown key '${key}'; expected one of ${PREFORK_KEYS.join(', ')}`)
        const ok = key === 'keepAlive' ? typeof value === 'boolean' : Number.isInteger(value) && value >= 0 && value <= 100_000
        if (!ok) fail(`${where}.prefork.${key} must be ${key === 'keepAlive' ? 'true or false' : 'a whole number from 0 to 100000'}; received ${describe(value)}`)
      }
    }
    targets.push(targetOf({ kind, name, label: given.label, script, root, prefork: given.prefork }))
  }
  return Object.freeze(targets)
}

/**
 * The targets of a run: the workload's (else the app alone), then those `--baseline-targets` adds (kinds),
 * and, when any baseline is asked for and nodebench starts the app, the app without nodebench (the ladder's
 * third step). In run order: the app first.
 * @returns {{ targets: object[], notes: string[] }} `notes`: what the run leaves out, in words
 */
function runTargets (workloadTargets, baselineKinds, { appStarts }) {
  const targets = [...(workloadTargets ?? [targetOf({ kind: 'app' })])]
  const notes = []
  const has = (kind) => targets.some((target) => target.kind === kind)
  for (const kind of baselineKinds) {
    if (!has(kind)) targets.push(targetOf({ kind }))
  }
  if (baselineKinds.length > 0 && has('app') && !has('app-untraced')) {
    if (appStarts) targets.push(targetOf({ kind: 'app-untraced' }))
    else notes.push('the app without nodebench is not measured: nodebench does not start an app at --url alone, so it cannot start it untraced')
  }
  const order = (target) => RUN_ORDER.indexOf(target.kind)
  const ordered = targets.map((target, index) => ({ target, index }))
    .sort((a, b) => order(a.target) - order(b.target) || a.index - b.index)
  return { targets: ordered.map((entry) => entry.target), notes }
}

/** What results.json says of a target (before it ran; the run adds its versions). */
function describeTarget (target) {
  return {
    name: target.name,
    kind: target.kind,
    label: target.label,
    traced: target.traced,
    builtIn: target.builtIn,
    script: target.script,
    root: target.root,
    prefork: target.kind === 'apache-php' ? { ...target.prefork } : null
  }
}

module.exports = { TARGET_KINDS, BASELINE_KINDS, LADDER, checkTargets, runTargets, describeTarget, targetOf }
