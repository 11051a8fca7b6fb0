'use strict'

// Where a variant's extra instructions go, function by function: the self cost of every function in one window
// of instructions.js's kept dumps, the variant's less its baseline's, per request (and per timed segment or per
// exported span), largest first.
//
//   node benchmarks/instructions.js --node 24 --checkpoints 60000,80000,100000 \
//     --variants bare,nodebench-breakdown,nodebench-1 --keep-dumps /tmp/dumps
//   node benchmarks/functions.js --dumps /tmp/dumps --variant nodebench-1 --baseline nodebench-breakdown
//                                [--window 100000] [--top 30] [--event D1mr] [--json]
//
// --event reads another of the dump's events than the instructions (Ir): with dumps kept by instructions.js
// --cache-sim, the cache misses (I1mr D1mr D1mw ILmr DLmr DLmw) or mispredicted branches (Bcm Bim) by function.
//
// callgrind knows V8's generated code only by address; V8's code map of the process (perf.map, written by
// --perf-basic-prof and kept beside the dumps) names it: `handleRequest middleware/lib/wrap-layer.js:121`. An
// address V8 reused for other code in the run takes the name the map gives it last. Costs are self costs
// (callgrind_annotate --inclusive=no): a function's callees are their own rows, so the rows add up to the window's
// total, and the difference of the totals is the last row.

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { execFile } = require('node:child_process')
const { runScript } = require('./harness')

const DEFAULT_TOP = 30
// callgrind's events: instructions, data reads and writes, L1 and last-level misses, branches and mispredictions.
const EVENTS = Object.freeze(['Ir', 'Dr', 'Dw', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw', 'Bc', 'Bcm', 'Bi', 'Bim'])

const USAGE = 'usage: node benchmarks/functions.js --dumps <dir> --variant <name> --baseline <name> [--window <requests>] [--top N] [--event Ir] [--json]'

function parseArguments (argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      dumps: { type: 'string' },
      variant: { type: 'string' },
      baseline: { type: 'string' },
      window: { type: 'string' },
      top: { type: 'string', default: String(DEFAULT_TOP) },
      event: { type: 'string', default: 'Ir' },
      json: { type: 'boolean', default: false }
    },
    strict: true
  })
  for (const name of ['dumps', 'variant', 'baseline']) {
    if (values[name] === undefined) throw new TypeError(`--${name} is required; ${USAGE}`)
  }
  const window = values.window === undefined ? null : Number(values.window)
  if (window !== null && !(Number.isInteger(window) && window > 0)) {
    throw new TypeError(`--window must be the request count a window ends at (a checkpoint); received ${values.window}`)
  }
  const top = Number(values.top)
  if (!Number.isInteger(top) || top < 1) throw new TypeError(`--top must be a whole number of at least 1; received ${values.top}`)
  if (!EVENTS.includes(values.event)) throw new TypeError(`--event must be one of ${EVENTS.join(', ')}; received ${values.event}`)
  const { variant, baseline, event, json } = values
  return { dumps: path.resolve(values.dumps), variant, baseline, window, top, event, json }
}

/** A kept run: its windows.json (instructions.js) and the window ending at `to` (the last when null). */
function keptRun (dumps, variant, to) {
  const dir = path.join(dumps, variant)
  let described
  try {
    described = JSON.parse(fs.readFileSync(path.join(dir, 'windows.json'), 'utf8'))
  } catch (err) {
    throw new Error(`${dir}: no windows.json (${err.code ?? err.message}); keep the dumps with instructions.js --keep-dumps ${dumps}`)
  }
  const windows = described.windows
  const window = to === null ? windows[windows.length - 1] : windows.find((candidate) => candidate.to === to)
  if (window === undefined) {
    throw new Error(`${variant}: no window ends at ${to}; its windows end at ${windows.map((w) => w.to).join(', ')}`)
  }
  return { dir, described, window }
}

/** V8's code map (perf.map lines "<start hex> <size hex> <name>"), sorted by address, for lookUp(). */
function readCodeMap (file) {
  if (!fs.existsSync(file)) return []
  const entries = []
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/i.exec(line)
    if (match !== null) entries.push({ start: parseInt(match[1], 16), size: parseInt(match[2], 16), name: match[3] })
  }
  // Stable: of two entries at one address, the later one (the code V8 put there last) sorts last and wins.
  return entries.sort((a, b) => a.start - b.start)
}

function lookUp (codeMap, address) {
  let low = 0
  let high = codeMap.length - 1
  let found = null
  while (low <= high) {
    const middle = (low + high) >> 1
    if (codeMap[middle].start <= address) {
      found = codeMap[middle]
      low = middle + 1
    } else {
      high = middle - 1
    }
  }
  return found !== null && address < found.start + found.size ? found.name : null
}

/**
 * A function's name for the table: V8's map name without its tier marks and with paths from the package or
 * project (`handleRequest middleware/lib/wrap-layer.js:121`), a C++ function without its arguments.
 */
function displayName (name, root) {
  // V8's tier ("~" interpreted, "^" Sparkplug, "+" Maglev, "*" Turbofan, "'" after it: optimized with context).
  let shown = name
    .replace(/^(JS|LazyCompile|Function|Builtin|Script):[*~^+]?'?/, '')
    .replace(/'\d+$/, '')
  shown = shown.split(root + path.sep).join('')
  shown = shown.replace(/(^|\s)(\S*\/)?node_modules\//g, '$1')
  if (shown.includes('::')) shown = withoutArguments(shown)
  return shown
}

/** A C++ name without its argument list and template arguments, which make one function many rows. */
function withoutArguments (name) {
  let text = name.replace(/ const$/, '')
  if (text.endsWith(')')) {
    let depth = 0
    for (let i = text.length - 1; i >= 0; i--) {
      if (text[i] === ')') depth++
      else if (text[i] === '(' && --depth === 0) {
        text = text.slice(0, i)
        break
      }
    }
  }
  let plain = ''
  let depth = 0
  for (const char of text) {
    if (char === '<') depth++
    if (depth === 0) plain += char
    if (char === '>' && depth > 0 && --depth === 0) plain += '<>'
  }
  return plain
}

// "123,456 (12.34%)  file:function [object]"
const SELF_LINE = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S[^[]*?)(?: \[(.*)\])?$/

/** Self instructions by displayed function name, from callgrind_annotate's text for one dump. */
function selfCosts (annotated, codeMap, root) {
  const costs = new Map()
  let total = null
  for (const line of annotated.split('\n')) {
    const match = SELF_LINE.exec(line)
    if (match === null) continue
    const instructions = Number(match[1].replace(/,/g, ''))
    if (match[2].trim() === 'PROGRAM TOTALS') {
      total = instructions
      continue
    }
    // A dump made while the program runs lists the functions on the stack at that moment (main, node::Start,
    // the event loop) with the whole window as their own: not a cost of theirs.
    if (instructions === total) continue
    const where = match[2].trim()
    const fn = where.slice(where.indexOf(':') + 1).replace(/'\d+$/, '')
    // Generated code has no object file ("???"); an address in a library is that library's.
    const address = match[3] === '???' ? /^0x([0-9a-f]+)$/i.exec(fn) : null
    const name = address !== null
      ? lookUp(codeMap, parseInt(address[1], 16)) ?? 'generated code not in perf.map'
      : /^0x[0-9a-f]+$/i.test(fn) && match[3] !== undefined ? `${fn} in ${path.basename(match[3])}` : fn
    const shown = displayName(name, root)
    costs.set(shown, (costs.get(shown) ?? 0) + instructions)
  }
  if (total === null) throw new Error('callgrind_annotate printed no PROGRAM TOTALS')
  return { total, costs }
}

function annotate (file, event = 'Ir') {
  return new Promise((resolve, reject) => {
    execFile('callgrind_annotate', ['--inclusive=no', '--threshold=100', `--show=${event}`, `--sort=${event}`, file], { maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => err ? reject(new Error(`callgrind_annotate ${file} failed: ${err.message} ${stderr}`)) : resolve(stdout))
  })
}

// Whose code a function is, for the totals under the table: a difference in Node.js's or the app's own code is
// mostly V8 inlining differently around nodebench's (a function's cost moving into or out of its callers).
const GROUPS = Object.freeze([
  ['nodebench', (name) => /(^|\s)(middleware\/lib|packages\/[\w-]+\/lib)\//.test(name)],
  ["Node.js's JavaScript", (name) => / node:/.test(name)],
  ['the app and its packages', (name) => / \S+\.[cm]?js:\d+/.test(name)],
  ["V8's builtins", (name) => name.startsWith('Builtins_')],
  ["V8's runtime and collector", (name) => name.startsWith('v8::') || name.startsWith('heap::') || name.startsWith('cppgc::')],
  ['generated code not in perf.map', (name) => name === 'generated code not in perf.map'],
  ['C and C++ of Node.js, libuv, libc', () => true]
])

function groupOf (name) {
  return GROUPS.find(([, test]) => test(name))[0]
}

/**
 * The variant's self cost over the baseline's per request in the same window, by function, largest first:
 * `{ requests, unit, perUnit, rows: [{ name, perRequest, variant, baseline }], rest, total }`. `unit` is what
 * the variant adds one of per request (spans when it exported any, else timed segments), `perUnit` the number
 * of them per request.
 */
function compare (variantRun, baselineRun, variantCosts, baselineCosts, top) {
  const requests = variantRun.window.to - variantRun.window.from
  if (baselineRun.window.to - baselineRun.window.from !== requests || baselineRun.window.to !== variantRun.window.to) {
    throw new Error('the variant and the baseline must be read in the same window')
  }
  const names = new Set([...variantCosts.costs.keys(), ...baselineCosts.costs.keys()])
  const rows = [...names].map((name) => {
    const variant = (variantCosts.costs.get(name) ?? 0) / requests
    const baseline = (baselineCosts.costs.get(name) ?? 0) / requests
    return { name, perRequest: variant - baseline, variant, baseline }
  }).sort((a, b) => Math.abs(b.perRequest) - Math.abs(a.perRequest))
  const total = (variantCosts.total - baselineCosts.total) / requests
  const groups = GROUPS.map(([group]) => ({ group, perRequest: 0 }))
  for (const row of rows) groups.find((entry) => entry.group === groupOf(row.name)).perRequest += row.perRequest
  const shown = rows.slice(0, top)
  const rest = total - shown.reduce((sum, row) => sum + row.perRequest, 0)
  const { spansPerRequest, segmentsPerRequest } = variantRun.described
  const unit = spansPerRequest ? 'span' : segmentsPerRequest ? 'segment' : null
  const perUnit = unit === 'span' ? spansPerRequest : unit === 'segment' ? segmentsPerRequest : null
  const { from, to } = variantRun.window
  return { requests, from, to, unit, perUnit, rows: shown, rest, total, groups }
}

function render (options, result) {
  const perUnit = (value) => result.unit === null ? '' : Math.round(value / result.perUnit).toLocaleString('en-US').padStart(12)
  const unitHead = result.unit === null ? '' : `per ${result.unit}`.padStart(12)
  const lines = [
    `${options.variant} over ${options.baseline}, self ${(options.event ?? 'Ir') === 'Ir' ? 'instructions' : options.event}, requests ${result.from} to ${result.to}` +
      (result.unit === null ? '' : ` (${result.perUnit.toFixed(2)} ${result.unit}s a request)`),
    `${'per request'.padStart(12)}${unitHead}  function`
  ]
  const row = (value, name) => `${Math.round(value).toLocaleString('en-US').padStart(12)}${perUnit(value)}  ${name}`
  for (const { name, perRequest } of result.rows) lines.push(row(perRequest, name))
  lines.push(row(result.rest, 'the other functions'))
  lines.push(row(result.total, 'in all'))
  lines.push('', 'by whose code it is (every function)')
  for (const { group, perRequest } of result.groups) lines.push(row(perRequest, group))
  return lines.join('\n')
}

async function main (options) {
  const root = path.resolve(__dirname, '..', '..')
  const runs = [options.variant, options.baseline].map((variant) => keptRun(options.dumps, variant, options.window))
  if (runs[1].window.to !== runs[0].window.to) throw new Error('the variant and the baseline were not kept with the same checkpoints')
  const costs = await Promise.all(runs.map(async (run) =>
    selfCosts(await annotate(path.join(run.dir, run.window.file), options.event), readCodeMap(path.join(run.dir, 'perf.map')), root)))
  const result = compare(runs[0], runs[1], costs[0], costs[1], options.top)
  process.stdout.write(options.json ? JSON.stringify({ schema: 1, ...options, ...result }, null, 2) + '\n' : render(options, result) + '\n')
}

if (require.main === module) runScript('functions', parseArguments, main)

module.exports = { parseArguments, readCodeMap, lookUp, displayName, selfCosts, compare, render, groupOf }
