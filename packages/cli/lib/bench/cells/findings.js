'use strict'

const { isNumber, formatCount, formatGain, processesText, listText, statusCodesText } = require('../../render/format')
const { mean } = require('../../kernel/statistics')
const { jsonAgainstHtml, collectionReadRatio, dominantFunction, sizes } = require('../study/findings')
const { largestShares } = require('../owners/findings')

// What the bench report says in words. Every sentence is computed from the summary's figures: a finding
// the data does not support (a ratio with a failed side, a trend over one process count) is not written;
// the sentence says what could not be compared instead.

function scaling (summary) {
  const measuredCounts = [...new Set(summary.cells.filter((c) => c.measured).map((c) => c.processes))]
    .sort((a, b) => a - b)
  if (measuredCounts.length < 2) {
    return `Only ${measuredCounts.length ? processesText(measuredCounts[0]) : 'no process count'} measured: how throughput grows with processes is not shown.`
  }
  const series = summary.scaling
  if (series.length === 0) return 'No operation was measured at two process counts: how throughput grows with processes is not shown.'
  const first = series.map((s) => ({ ...s, step: s.steps[0] }))
  const stepNames = [...new Set(first.map((s) => `from ${s.step.from} to ${s.step.to}`))]
  const lowest = first.reduce((a, b) => (b.step.gain < a.step.gain ? b : a))
  const highest = first.reduce((a, b) => (b.step.gain > a.step.gain ? b : a))
  let sentence = `Going ${listText(stepNames)} processes changed requests per second by ${formatGain(mean(first.map((s) => s.step.gain)))} ` +
    `on average over ${first.length} operation-format series (from ${formatGain(lowest.step.gain)} for ${lowest.label} (${lowest.format}) ` +
    `to ${formatGain(highest.step.gain)} for ${highest.label} (${highest.format})).`
  const withLater = series.filter((s) => s.steps.length > 1)
  if (withLater.length === 0) {
    sentence += ` Only ${listText(measuredCounts.map(String))} processes were measured, so the study's diminishing returns after the first step are not tested here.`
  } else {
    const later = withLater.flatMap((s) => s.steps.slice(1).map((step) => step.gain))
    const firstLargest = withLater.filter((s) => s.steps.slice(1).every((step) => step.gain <= s.steps[0].gain))
    sentence += ` Later steps changed it by ${formatGain(mean(later))} per step on average; the first step was the largest in ` +
      `${firstLargest.length} of ${withLater.length} series (the study: the largest gain from 1 to 2 processes, diminishing after).`
  }
  const cores = summary.machine.cores
  if (isNumber(cores)) {
    const crowded = summary.processes.filter((count) => count >= cores)
    if (crowded.length) {
      sentence += ` This machine has ${cores} cores: at ${listText(crowded.map(String))} processes the app's workers alone fill them, beside autocannon and the database.`
    }
  }
  return sentence
}

function problems (summary) {
  const failed = summary.allCells.filter((c) => c.failed)
  const unexpected = summary.allCells.filter((c) =>
    c.measured && (c.responses.unexpected > 0 || c.errors > 0 || c.timeouts > 0))
  const parts = []
  if (failed.length) {
    parts.push(`${failed.length} cell${failed.length === 1 ? '' : 's'} failed (${listText(failed.map((c) => c.title))}) and ` +
      `${failed.length === 1 ? 'is' : 'are'} left out of the charts and comparisons`)
  }
  if (unexpected.length) {
    parts.push(`${unexpected.length} cell${unexpected.length === 1 ? '' : 's'} had errors or non-2xx responses that count in ` +
      `${unexpected.length === 1 ? 'its' : 'their'} figures (${listText(unexpected.map((c) => c.title))})`)
  }
  return parts.length ? `${parts.join('; ')}: see "What limits these figures".` : null
}

/** "What this shows": sentences computed from the summary. */
function findingsOf (summary) {
  // The study's findings are checked for a workload that carries the study as its reference
  // (examples/mongo-admin); any other workload gets the sentences about its own figures.
  if (summary.reference.source === null) {
    return [scaling(summary), largestShares(summary), sizes(summary), problems(summary)]
      .filter((sentence) => sentence !== null)
  }
  return [
    jsonAgainstHtml(summary), collectionReadRatio(summary), scaling(summary), dominantFunction(summary), sizes(summary),
    problems(summary)
  ]
    .filter((sentence) => sentence !== null)
}

/** The cells a run's configuration asks for; a scenario that varies its processes (sweep.js) runs its own counts. */
function expectedCells (config) {
  const lists = [config.scenarios, config.formats, config.processes]
  if (!lists.every(Array.isArray)) return []
  const processesOf = (scenario) => {
    const varied = config.vary && config.vary[scenario] && config.vary[scenario].processes
    return Array.isArray(varied) ? varied : config.processes
  }
  return config.scenarios.flatMap((scenario) => config.formats.flatMap((format) =>
    processesOf(scenario).map((processes) => ({ scenario, format, processes: Number(processes) }))))
}

/** [scenario, requests] pairs from `config.amount`: one number for all, or one per scenario (null: by duration). */
function amountsOf (amount, scenarios) {
  if (isNumber(amount)) return scenarios.map((scenario) => [scenario, amount])
  if (amount === null || typeof amount !== 'object') return []
  return Object.entries(amount).filter(([, value]) => isNumber(value))
}

/** "What limits these figures": every failed, missing, erroring or otherwise limited cell, never hidden. */
function notesOf (summary) {
  const notes = []
  const { cells, config, machine } = summary
  for (const cell of cells.filter((c) => c.failed)) {
    notes.push({ kind: 'failed', text: `${cell.title}: failed: ${cell.failure}. Left out of the charts, the averages and the comparisons.` })
  }
  const measuredCell = (e) => cells.some((c) =>
    c.scenario === e.scenario && c.format === e.format && c.processes === e.processes)
  const missing = expectedCells(config).filter((e) => !measuredCell(e))
  if (missing.length) {
    const names = missing.map((e) => `${labelOf(summary, e.scenario)} (${e.format}), ${processesText(e.processes)}`)
    notes.push({ kind: 'missing', text: `Configured but not in the results (the run stopped early?): ${listText(names)}.` })
  }
  for (const cell of cells.filter((c) => c.measured)) {
    if (cell.responses.unexpected > 0) {
      const codes = cell.responses.codesKnown ? ` (${statusCodesText(cell.responses.unexpectedCodes)})` : ''
      const first = cell.firstUnexpected === null ? '' : ` The first: ${cell.firstUnexpected}.`
      notes.push({ kind: 'non2xx', text: `${cell.title}: ${formatCount(cell.responses.unexpected)} of ${formatCount(cell.requests)} responses were not 2xx${codes}; its requests/s and latency include them.${first}` })
    }
    if (cell.errors > 0 || cell.timeouts > 0) {
      notes.push({ kind: 'errors', text: `${cell.title}: ${formatCount(cell.errors)} connection errors and ${formatCount(cell.timeouts)} timeouts.` })
    }
    if (!cell.operation) {
      notes.push({ kind: 'breakdown', text: `${cell.title}: no breakdown of its operation was recorded, so its time shares are missing.` })
    }
    const breakdown = cell.breakdown || {}
    if (breakdown.warning) notes.push({ kind: 'breakdown', text: `${cell.title}: breakdown: ${breakdown.warning}` })
    if (breakdown.missingProcesses) notes.push({ kind: 'breakdown', text: `${cell.title}: ${breakdown.missingProcesses} worker(s) did not send their breakdown in time.` })
    const serving = Array.isArray(breakdown.processes) ? breakdown.processes.filter((p) => p.requests > 0).length : null
    if (serving !== null && cell.processes > 1 && serving < cell.processes) {
      notes.push({ kind: 'processes', text: `${cell.title}: only ${serving} of ${cell.processes} workers served requests.` })
    }
  }
  const redirected = cells.filter((c) => c.measured && c.responses.redirects > 0)
  if (redirected.length) {
    const total = redirected.reduce((sum, c) => sum + c.responses.redirects, 0)
    notes.push({
      kind: 'redirects',
      text: `An HTML form's POST is answered by a redirect (302), as in Mongo-Express: autocannon counts these ${formatCount(total)} ` +
      `responses of ${listText([...new Set(redirected.map((c) => `${c.label} (${c.format})`))])} as non-2xx; they are the expected answer, not failures.`
    })
  }
  if (isNumber(machine.cores)) {
    const over = summary.processes.filter((count) => count > machine.cores)
    if (over.length) notes.push({ kind: 'cores', text: `${listText(over.map(String))} processes is more than this machine's ${machine.cores} cores: those cells measure processes sharing cores.` })
  }
  const repetitions = summary.reference.repetitions
  if (isNumber(config.reps) && repetitions !== null && config.reps < repetitions) {
    notes.push({ kind: 'repetitions', text: `Each cell ran ${config.reps} time${config.reps === 1 ? '' : 's'} (the study averaged ${repetitions} runs)${config.reps === 1 ? ': min and max are that one run' : ''}.` })
  }
  // What the workload declares per scenario (for examples/mongo-admin: what the study sent).
  const declared = (scenario, key) => {
    const described = summary.workload.scenarios[scenario]
    return described && isNumber(described[key]) ? described[key] : null
  }
  const amounts = amountsOf(config.amount, summary.scenarios.map((s) => s.name))
  const fewer = amounts.filter(([scenario, amount]) => declared(scenario, 'amount') !== null && amount !== declared(scenario, 'amount'))
  if (fewer.length) {
    notes.push({
      kind: 'workload',
      text: `Requests per repetition: ${listText(fewer.map(([scenario, amount]) => `${formatCount(amount)} for ${labelOf(summary, scenario)} ` +
      `(the workload's full run: ${formatCount(declared(scenario, 'amount'))})`))}${config.quick ? ' (quick run)' : ''}.`
    })
  } else if (isNumber(config.duration)) {
    const full = summary.scenarios.filter((s) => declared(s.name, 'amount') !== null).map((s) => `${formatCount(declared(s.name, 'amount'))} for ${s.label}`)
    notes.push({ kind: 'workload', text: `Each repetition ran for ${config.duration} s${full.length ? `; the workload's full run sends ${listText(full)}` : ''}.` })
  }
  const connections = config.connections && typeof config.connections === 'object' ? config.connections : {}
  for (const [scenario, count] of Object.entries(connections)) {
    const workloadCount = declared(scenario, 'connections')
    if (workloadCount !== null && count !== workloadCount) {
      notes.push({ kind: 'workload', text: `${labelOf(summary, scenario)} used ${count} connections; the workload declares ${workloadCount}.` })
    }
  }
  return notes
}

function labelOf (summary, scenario) {
  const described = summary.scenarios.find((s) => s.name === scenario)
  return described ? described.label : scenario
}

module.exports = { findingsOf, notesOf }
