'use strict'

const { codes, NodebenchError } = require('@nodebench/errors')

// Sweeps: a workload varies values over lists, and every combination of a scenario's values is a cell of its
// own (the KIT study's reads of 1,000 to 300,000 documents on four and eight back-ends):
//
//   vary: { documents: [1000, 10000, 100000, 300000], backends: [4, 8] }
//   vary: { documents: { values: [1000, 10000, 100000, 300000], quick: [1000, 5000] } }   // bench --quick's own
//
// at the workload's top (every scenario) or in a scenario (its own names over the workload's). A value fills
// `{name}` in the scenario's paths, headers and body, in `--cmd`, and in the workload's `start.args` and
// `start.env` (what an --app's server.js gets), so a back-end count is the topology's value. Two names are the
// cell's own fields: `processes` (the app's process count, instead of the run's --processes) and `connections`
// (the load's concurrency: the study's concurrent requests). `bench --vary documents=1000,10000` replaces a
// name's list for the run wherever it takes more than one value (a name with one value is a scenario's fixed one:
// a whole read's zero back-ends). Every mistake is NB_ERR_WORKLOAD, one line (exit 2: read before the run).

const VALUE_NAME = /^[A-Za-z_$][\w$]*$/
// The varied names that are a cell's own fields, with their bounds (those of --processes and --connections).
const CELL_FIELDS = Object.freeze({
  processes: Object.freeze({ min: 1, max: 64 }),
  connections: Object.freeze({ min: 1, max: 10_000 })
})

function sweepError (message) {
  return new NodebenchError(codes.NB_ERR_WORKLOAD, message)
}

function isPlainObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A list of values: distinct finite numbers or non-empty strings, at least one; null when it is not one. */
function valueList (list) {
  if (!Array.isArray(list) || list.length === 0) return null
  const ok = list.every((value) => (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.trim() !== ''))
  return ok && new Set(list).size === list.length ? Object.freeze([...list]) : null
}

function checkField (name, list, fail, where) {
  const bounds = CELL_FIELDS[name]
  if (bounds === undefined) return
  const bad = list.find((value) => !Number.isInteger(value) || value < bounds.min || value > bounds.max)
  if (bad !== undefined) fail(`${where}.${name} is the cell's ${name}: whole numbers from ${bounds.min} to ${bounds.max}; received ${JSON.stringify(bad)}`)
}

/**
 * A workload's or a scenario's `vary`, checked: a frozen `{ [name]: { values, quick } }` (`quick`: the list
 * `bench --quick` takes, default `values`), or null when `source` is undefined. `describe` shows a bad value.
 */
function checkVary (source, { where, fail, describe }) {
  if (source === undefined) return null
  if (!isPlainObject(source) || Object.keys(source).length === 0) {
    fail(`${where} must be an object of value names to lists, e.g. { documents: [1000, 10000] }; received ${describe(source)}`)
  }
  const vary = {}
  for (const [name, entry] of Object.entries(source)) {
    if (!VALUE_NAME.test(name)) fail(`${where}: '${name}' is not a value name (letters, digits, _ and $, as in a {name} placeholder)`)
    const plain = valueList(entry)
    let values = plain
    let quick = plain
    if (plain === null && isPlainObject(entry) && Object.keys(entry).every((key) => key === 'values' || key === 'quick')) {
      values = valueList(entry.values)
      quick = entry.quick === undefined ? values : valueList(entry.quick)
    }
    if (values === null || quick === null) {
      fail(`${where}.${name} must be a non-empty list of distinct numbers or strings, or { values, quick } of two such lists; received ${describe(entry)}`)
    }
    checkField(name, values, fail, where)
    checkField(name, quick, fail, where)
    vary[name] = Object.freeze({ values, quick })
  }
  return Object.freeze(vary)
}

/** A scenario's varied names: the workload's, with the scenario's own in their place or after them. */
function scenarioVary (workloadVary, ownVary) {
  if (workloadVary === null && ownVary === null) return null
  return Object.freeze({ ...workloadVary, ...ownVary })
}

/** `--vary documents=1000,10000` (repeatable, or a list from JavaScript) -> `{ documents: [1000, 10000] }`. */
function parseVaryOption (given) {
  if (given === undefined) return {}
  const items = Array.isArray(given) ? given : [given]
  const lists = {}
  for (const item of items) {
    const match = /^\s*([^=\s]+)\s*=(.*)$/.exec(String(item))
    if (match === null) throw sweepError(`--vary '${item}': expected name=value,value (e.g. --vary documents=1000,10000)`)
    const [, name, text] = match
    if (!VALUE_NAME.test(name)) throw sweepError(`--vary '${item}': '${name}' is not a value name (letters, digits, _ and $)`)
    const values = text.split(',').map((value) => value.trim()).filter(Boolean)
      .map((value) => (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value))
    if (values.length === 0) throw sweepError(`--vary ${name}= is empty; expected a comma-separated list of values`)
    if (Object.hasOwn(lists, name)) throw sweepError(`--vary ${name} is given twice; give its values once, comma-separated`)
    const list = valueList(values)
    if (list === null) throw sweepError(`--vary ${name}: the values must be distinct; received ${text}`)
    checkField(name, list, (message) => { throw sweepError(message) }, '--vary')
    lists[name] = list
  }
  return lists
}

/** Whether a varied name takes more than one value (else it is a fixed value of the scenario's, kept by --vary). */
function sweeps (entry) {
  return entry.values.length > 1 || entry.quick.length > 1
}

/**
 * Every combination of `vary`'s lists (`quick`: bench --quick's; `overrides`: --vary's, for the names that take
 * more than one value), the first name outermost; [{}] without any.
 */
function combinationsOf (vary, { quick = false, overrides = {} } = {}) {
  let combinations = [{}]
  for (const [name, entry] of Object.entries(vary ?? {})) {
    const list = (sweeps(entry) ? overrides[name] : undefined) ?? (quick ? entry.quick : entry.values)
    combinations = combinations.flatMap((combination) => list.map((value) => ({ ...combination, [name]: value })))
  }
  return combinations.map((combination) => Object.freeze(combination))
}

/**
 * The run's sweep: for each of its `scenarios`, the combinations of its values (`quick`, and `overrides` from
 * --vary, which must each name a value some scenario of the run varies). Returns `{ byScenario: { [scenario]:
 * combination[] }, names: { [name]: values[] } }` (`names`: each varied name's values over the run, in order).
 */
function sweepOf (workload, scenarios, { quick = false, overrides = {} } = {}) {
  const varied = new Set(scenarios.flatMap((scenario) => Object.entries(workload.scenarios[scenario].vary ?? {})
    .filter(([, entry]) => sweeps(entry)).map(([name]) => name)))
  for (const name of Object.keys(overrides)) {
    if (!varied.has(name)) {
      throw sweepError(`--vary ${name}: no scenario of this run varies it` +
        (varied.size ? `; the run varies ${[...varied].join(', ')}` : '; the workload has no vary'))
    }
  }
  // A name the workload varies over numbers takes numbers from --vary too: 'abc' would reach the app as NaN.
  for (const [name, list] of Object.entries(overrides)) {
    const given = scenarios.flatMap((scenario) => {
      const entry = workload.scenarios[scenario].vary?.[name]
      return entry === undefined || !sweeps(entry) ? [] : [...entry.values, ...entry.quick]
    })
    const text = list.find((value) => typeof value !== 'number')
    if (given.every((value) => typeof value === 'number') && text !== undefined) {
      throw sweepError(`--vary ${name}: the workload varies ${name} over numbers (${[...new Set(given)].join(', ')}); received '${text}'`)
    }
  }
  const byScenario = {}
  for (const scenario of scenarios) {
    byScenario[scenario] = combinationsOf(workload.scenarios[scenario].vary, { quick, overrides })
  }
  return { byScenario, names: valuesByName(Object.values(byScenario).flat()) }
}

/** Each varied name's values over `combinations`, in order. */
function valuesByName (combinations) {
  const names = {}
  for (const combination of combinations) {
    for (const [name, value] of Object.entries(combination)) {
      names[name] ??= []
      if (!names[name].includes(value)) names[name].push(value)
    }
  }
  return names
}

/**
 * What a run's results say of its sweep (`byScenario`, sweepOf's): per scenario, each varied name's values in
 * the run; a scenario that varies none left out ({} without sweeps).
 */
function variedByScenario (byScenario = {}) {
  return Object.fromEntries(Object.entries(byScenario)
    .map(([scenario, combinations]) => [scenario, valuesByName(combinations)])
    .filter(([, names]) => Object.keys(names).length > 0))
}

/** `text` with each `{name}` of `values` filled in; other braces left as they are (a shell's own). */
function fillValues (text, values) {
  return text.replace(/\{([A-Za-z_$][\w$]*)\}/g, (whole, name) => (Object.hasOwn(values, name) ? String(values[name]) : whole))
}

/** A cell's values as words: `documents 1000, backends 4`; '' without any. */
function valuesText (values) {
  return Object.entries(values ?? {}).map(([name, value]) => `${name} ${typeof value === 'number' ? value.toLocaleString('en-US') : value}`).join(', ')
}

module.exports = {
  checkVary,
  scenarioVary,
  parseVaryOption,
  combinationsOf,
  sweepOf,
  variedByScenario,
  fillValues,
  valuesText,
  CELL_FIELDS
}
