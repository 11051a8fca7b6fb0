'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { usageError } = require('../usage-error')
const { defaultApp } = require('./default-app')
const { workloadFileOf, workloadFileIn, loadWorkload } = require('./workload')
const { DEFAULT_GRACE_MS } = require('./process-group')

// How every command that starts or reaches an app names it (bench, flame, browser), and the workload it sends:
//   --app <dir>        an app directory with the example's entry points: `server.js --port <p> --processes <n>`,
//                      printing `listening on <url>` (default: examples/mongo-admin, in a nodebench checkout)
//   --cmd "<command>"  your own start command, run by the shell: {port} becomes a free port, {processes} the
//                      process count; the app answers at --url (its port {port}'s), else at http://127.0.0.1:{port}
//   --url <base>       with --cmd, where the started app answers; alone, an app already running, which nodebench
//                      neither starts nor stops
//   --workload <file>  the scenarios (default: nodebench.workload.js or .json in --app's directory, else in the
//                      current one)
//   --stop-grace <s>   how long an app nodebench started may take to stop after SIGTERM before its process group
//                      is killed (default 5 s; kernel/process-group.js)
// Parsed here once; a command then says what it cannot do with a target (flame profiles only a Node.js script
// it starts itself: nodeCommand).

const APP_TARGET_OPTIONS = Object.freeze({
  app: Object.freeze({ type: 'string' }),
  cmd: Object.freeze({ type: 'string' }),
  url: Object.freeze({ type: 'string' }),
  workload: Object.freeze({ type: 'string' }),
  'stop-grace': Object.freeze({ type: 'string' })
})

// The longest --stop-grace taken: an app that needs more than 10 minutes to stop is one that hangs.
const MAX_STOP_GRACE_SEC = 600

// What a command does with the app, in "no app to <verb>".
const VERBS = Object.freeze({ bench: 'measure', flame: 'profile', browser: 'load' })

/** `--url <text>` as a base URL without its trailing slash. */
function baseUrl (text, fail) {
  let url
  try {
    url = new URL(text)
  } catch {
    throw fail(`--url '${text}' is not a URL; expected e.g. http://127.0.0.1:3000`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(`--url '${text}' is not an http(s) URL; expected e.g. http://127.0.0.1:3000`)
  }
  return url.href.replace(/\/$/, '')
}

/** `--stop-grace <seconds>` in ms (default 5 s): a number of seconds from 0 to MAX_STOP_GRACE_SEC. */
function stopGraceOf (given, fail) {
  if (given === undefined) return DEFAULT_GRACE_MS
  const text = String(given).trim()
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN
  if (!(seconds <= MAX_STOP_GRACE_SEC)) {
    throw fail(`--stop-grace must be the seconds an app may take to stop after SIGTERM, from 0 to ${MAX_STOP_GRACE_SEC} (e.g. 5); received '${given}'`)
  }
  return Math.round(seconds * 1000)
}

/**
 * The app of `values` (parseArgs' values, or the same names from JavaScript): a frozen `{ app, cmd, url, starts,
 * stopGraceMs }`, `starts` when nodebench starts it (--app, --cmd), `stopGraceMs` --stop-grace's. Throws
 * NB_ERR_USAGE, prefixed with `command`, for a combination no command takes. `learnsPort`: the command learns the
 * port a Node.js app listens on by itself (flame's profilers), so its --cmd needs neither --url nor {port}.
 */
function appTargetOf (values, { command, learnsPort = false, appOption = '--app' }) {
  const fail = (message) => usageError(message, command)
  if (values.app !== undefined && (values.cmd !== undefined || values.url !== undefined)) {
    throw fail('--app excludes --cmd and --url: either nodebench starts an app directory (--app), or you say how to start ' +
      'yours (--cmd) or where it runs (--url)')
  }
  const url = values.url === undefined ? null : baseUrl(values.url, fail)
  const stopGraceMs = stopGraceOf(values['stop-grace'], fail)
  const cmd = values.cmd === undefined ? null : String(values.cmd)
  if (cmd !== null && cmd.trim() === '') throw fail('--cmd is empty; expected the command that starts your app')
  if (cmd !== null && url === null && !cmd.includes('{port}') && !learnsPort) {
    throw fail('--cmd needs --url, the base URL the started app answers on (e.g. http://127.0.0.1:3000), ' +
      'or a {port} placeholder (it then answers on http://127.0.0.1:{port})')
  }
  let app = null
  if (cmd === null && url === null) {
    app = values.app !== undefined ? appDirectory(String(values.app), fail, appOption) : defaultApp()
    if (app === null) {
      throw fail(`no app to ${VERBS[command] ?? 'start'}: give --app <dir>, or --cmd "<command>" with --url <base> ` +
        '(or a {port} placeholder), or --url alone')
    }
  }
  return Object.freeze({ app, cmd, url, starts: app !== null || cmd !== null, stopGraceMs })
}

/**
 * `--app <dir>` (or `option`, e.g. compare's --app-a) as an absolute path, once it is known to be an app folder
 * nodebench can start.
 */
function appDirectory (given, fail, option = '--app') {
  const dir = path.resolve(given)
  const shown = given === dir ? dir : `'${given}' (${dir})`
  let stats
  try {
    stats = fs.statSync(dir)
  } catch {
    throw fail(`${option} ${shown}: no such folder; expected the folder of an app with a server.js (or name yours with --cmd)`)
  }
  if (!stats.isDirectory()) throw fail(`${option} ${shown} is a file, not a folder; to start a script, use --cmd "node ${given} --port {port}"`)
  // A folder with a workload and no server.js is one whose workload names only other servers (its `targets`,
  // examples/baseline); should its workload need the app after all, starting it says what is missing.
  if (!fs.existsSync(path.join(dir, 'server.js')) && workloadFileIn(dir) === null) throw fail(noServerScript(shown, option))
  return dir
}

function noServerScript (shown, option = '--app') {
  return `${option} ${shown} has no server.js: ${option} starts an app folder's server.js --port <p> --processes <n>; ` +
    'for any other start command, use --cmd "<command>" with {port}'
}

/** The workload of `values` for `target`: --workload, else the one in the app's directory, else the current one's. */
function workloadOf (values, target) {
  return loadWorkload(workloadFileOf(values.workload === undefined ? undefined : String(values.workload), target.app))
}

/** `target`'s command with {port} and {processes} filled in. */
function commandLine (target, { port, processes }) {
  let command = target.cmd.replaceAll('{processes}', String(processes))
  if (port !== null && port !== undefined) command = command.replaceAll('{port}', String(port))
  return command
}

/** Where `target`'s app answers when it listens on `port`: --url with that port, else http://127.0.0.1:<port>. */
function baseAt (target, port) {
  const url = new URL(target.url ?? 'http://127.0.0.1')
  url.port = String(port)
  return url.href.replace(/\/$/, '')
}

/** `text` split into words as a POSIX shell would for a plain command: quotes and backslashes, nothing else. */
function shellWords (text) {
  const words = []
  let word = null
  let quote = null
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quote === "'") {
      if (char === "'") quote = null
      else word += char
    } else if (quote === '"') {
      if (char === '"') quote = null
      else if (char === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i]
      else word += char
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word)
      word = null
    } else {
      word ??= ''
      if (char === "'" || char === '"') quote = char
      else if (char === '\\' && i + 1 < text.length) word += text[++i]
      else word += char
    }
  }
  if (quote !== null) return null
  if (word !== null) words.push(word)
  return words
}

const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~]/

/**
 * `target` as a Node.js script and its arguments, which a profiler runs with this process's Node.js: for an app
 * directory `server.js --port 0`, for --cmd its words after `node` (a `node` or a path to a Node.js binary),
 * {port} still in them. Throws NB_ERR_USAGE (prefixed with `command`) for a target that is not one: an app at
 * --url alone, or a command that is not `node <script> [args]` (`instead`: what works, said after it).
 */
function nodeCommand (target, { command, what, instead = null }) {
  const fail = (message) => usageError(message, command)
  if (target.app !== null) return [path.join(target.app, 'server.js'), '--port', '0']
  if (target.cmd === null) {
    throw fail(`${what} an app nodebench starts itself, under the profiler: give --app <dir> or --cmd "node <script> ...", ` +
      'not --url alone')
  }
  const words = shellWords(target.cmd.trim())
  const plain = words !== null && words.every((word) => !SHELL_SYNTAX.test(word.replaceAll('{port}', '').replaceAll('{processes}', '')))
  if (plain && words.length > 0 && (words[0] === 'node' || words[0] === process.execPath || path.basename(words[0]) === 'node')) words.shift()
  if (!plain || words.length === 0 || !/\.[cm]?js$/.test(words[0])) {
    throw fail('--cmd must be a Node.js script and its arguments, e.g. "node server.js --port {port}" (the profilers run ' +
      `it with nodebench's Node.js); received '${target.cmd}'${instead === null ? '' : `; ${instead}`}`)
  }
  return words
}

module.exports = {
  APP_TARGET_OPTIONS, appTargetOf, workloadOf, commandLine, baseAt, nodeCommand, shellWords, noServerScript
}
