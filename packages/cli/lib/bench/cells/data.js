'use strict'

const { isNumber, processesText } = require('../../render/format')
const { findingsOf, notesOf } = require('./findings')
const { databaseNotes } = require('../database')
const { valuesText } = require('../../kernel/sweep')
const { findNamed } = require('../owners/dominant')
const { workloadOf, scenarioLabel, dominantOf } = require('./workload')
const { htmlVsJson, table1, functionWaits, dominance, responseSizes, sizeRatios } = require('../study/data')

// The figures both renderers of the bench report show, derived once from a results.json (schema 1 to 3).
// Nothing here trusts an optional field: a failed cell, a missing cell, a cell without a breakdown or a
// run of only some scenarios and process counts all give a smaller summary, never an exception.
//
// What the run is compared with comes from the workload results.json describes (kernel/workload.js,
// describeWorkload): each scenario's label and dominant function, and its `reference` figures (the study's
// Table 1 shares and response sizes for examples/mongo-admin). A workload without them gives a report of
// the run alone.

/** The latency percentiles a cell records, in the order the charts draw them. */
const PERCENTILES = Object.freeze([
  Object.freeze({ key: 'p50', label: 'p50' }),
  Object.freeze({ key: 'p75', label: 'p75' }),
  Object.freeze({ key: 'p90', label: 'p90' }),
  Object.freeze({ key: 'p97_5', label: 'p97.5' }),
  Object.freeze({ key: 'p99', label: 'p99' }),
  Object.freeze({ key: 'max', label: 'max' })
])

/** { mean, min, max } from what the runner wrote (an object, or a bare number); null when unusable. */
function rateOf (value) {
  if (isNumber(value)) return { mean: value, min: value, max: value }
  if (value === null || typeof value !== 'object' || !isNumber(value.mean)) return null
  return {
    mean: value.mean,
    min: isNumber(value.min) ? value.min : value.mean,
    max: isNumber(value.max) ? value.max : value.mean
  }
}

/** The breakdown operation of a cell: its snapshot's operation with the cell's method, route and format. */
function operationOf (cell) {
  const wanted = cell.operation
  const operations = cell.breakdown && Array.isArray(cell.breakdown.operations) ? cell.breakdown.operations : []
  if (!wanted) return null
  const matches = (o) => o.method === wanted.method && o.route === wanted.route && o.format === wanted.format
  return operations.find(matches) || null
}

/** What a cell keeps of its top segment: name, kind, share and the other names it is known by. */
function topSummary (top) {
  if (!top) return null
  return { name: top.name, kind: top.kind, share: top.share, aliases: Array.isArray(top.aliases) ? top.aliases : [] }
}

/** The segment with the largest share (a function that runs twice in a path is two segments). */
function topSegment (operation) {
  if (!operation || !Array.isArray(operation.segments) || operation.segments.length === 0) return null
  return operation.segments.reduce((best, segment) => (segment.share > best.share ? segment : best))
}

/** The share of the segment `name` names (dominant.js: its name, an alias or a plain form of its name). */
function shareOf (operation, name) {
  const segment = findNamed(operation, name)
  return segment === null ? null : segment.share
}

/**
 * Responses a cell's figures include that its operation should not give: anything but 2xx and the status the
 * runner expected (`expectedStatus`: 302 for an HTML form's POST, which autocannon counts as non-2xx). Without
 * one, a 3xx answering an HTML POST is taken as that redirect.
 */
function responsesOf (cell, method, format) {
  const expectedStatus = Number.isInteger(cell.expectedStatus) ? cell.expectedStatus : null
  const isRedirect = (status) => status >= 300 && status < 400 &&
    (expectedStatus === null ? method === 'POST' && format === 'html' : status === expectedStatus)
  const non2xx = isNumber(cell.non2xx) ? cell.non2xx : 0
  const codes = cell.statusCodes && typeof cell.statusCodes === 'object' ? cell.statusCodes : null
  if (codes === null || Object.keys(codes).length === 0) {
    const redirected = isRedirect(expectedStatus === null ? 302 : expectedStatus)
    return {
      unexpected: redirected ? 0 : non2xx,
      redirects: redirected ? non2xx : 0,
      unexpectedCodes: {},
      codesKnown: false
    }
  }
  let unexpected = 0
  let redirects = 0
  const unexpectedCodes = {}
  for (const [code, count] of Object.entries(codes)) {
    const status = Number(code)
    if (isRedirect(status)) redirects += count
    else if (!(status >= 200 && status < 300) && status !== expectedStatus) {
      unexpected += count
      unexpectedCodes[code] = count
    }
  }
  return { unexpected, redirects, unexpectedCodes, codesKnown: true }
}

/** The failures of a cell's repetitions by class (kernel/load-observer.js), summed. */
function failuresOf (raw) {
  const failures = {}
  for (const rep of Array.isArray(raw.reps) ? raw.reps : []) {
    for (const [kind, count] of Object.entries((rep && rep.failures) || {})) {
      if (isNumber(count)) failures[kind] = (failures[kind] || 0) + count
    }
  }
  return failures
}

/** How a cell's processes served: `N processes` (node:cluster) or `N instances behind nginx (balancer)`. */
function topologyText (topology, processes, balancer) {
  if (topology !== 'nginx') return processesText(processes)
  return `${processes} instance${processes === 1 ? '' : 's'} behind nginx${balancer ? ` (${balancer})` : ''}`
}

function normalizeCell (raw, workload) {
  const scenario = String(raw.scenario)
  const format = String(raw.format)
  const processes = Number(raw.processes)
  // Results written before topologies existed are node:cluster cells.
  const topology = raw.topology === 'nginx' ? 'nginx' : 'cluster'
  const balancer = typeof raw.balancer === 'string' ? raw.balancer : null
  const label = scenarioLabel(workload, scenario)
  const requestsPerSec = rateOf(raw.requestsPerSec)
  const failed = raw.status !== 'ok'
  // A cell is drawn and compared only when it finished and has figures.
  const measured = !failed && requestsPerSec !== null
  const method = (raw.operation && raw.operation.method) || 'GET'
  const operation = operationOf(raw)
  const top = topSegment(operation)
  const studyFunction = dominantOf(workload, scenario)
  // A swept cell's values (kernel/sweep.js); its process count is said as the topology's.
  const values = raw.values && typeof raw.values === 'object' && !Array.isArray(raw.values) ? raw.values : {}
  const { processes: _processes, ...shownValues } = values
  const valuesPart = Object.keys(shownValues).length ? `${valuesText(shownValues)}, ` : ''
  return {
    scenario,
    label,
    format,
    processes,
    topology,
    balancer,
    values,
    title: `${label} (${format}), ${valuesPart}${topologyText(topology, processes, balancer)}`,
    status: failed ? 'failed' : 'ok',
    failed,
    failure: failed ? String(raw.failure || `the runner recorded status ${JSON.stringify(raw.status ?? null)}`) : null,
    measured,
    method,
    route: (raw.operation && raw.operation.route) || null,
    connections: isNumber(raw.connections) ? raw.connections : null,
    amount: isNumber(raw.amount) ? raw.amount : null,
    duration: isNumber(raw.duration) ? raw.duration : null,
    repetitions: Array.isArray(raw.reps) ? raw.reps.length : 0,
    requestsPerSec,
    latencyMs: raw.latencyMs && typeof raw.latencyMs === 'object' ? raw.latencyMs : {},
    requests: isNumber(raw.requests) ? raw.requests : null,
    errors: isNumber(raw.errors) ? raw.errors : 0,
    timeouts: isNumber(raw.timeouts) ? raw.timeouts : 0,
    non2xx: isNumber(raw.non2xx) ? raw.non2xx : 0,
    statusCodes: raw.statusCodes || {},
    expectedStatus: Number.isInteger(raw.expectedStatus) ? raw.expectedStatus : null,
    // The first answer a request did not expect, as words (kernel/request-flow.js); results before schema 3 have none.
    firstUnexpected: typeof raw.firstUnexpected === 'string' ? raw.firstUnexpected : null,
    responses: responsesOf(raw, method, format),
    bytesPerResponse: isNumber(raw.bytesPerResponse) ? raw.bytesPerResponse : null,
    breakdown: raw.breakdown || null,
    operation,
    top: topSummary(top),
    studyFunction,
    studyFunctionShare: studyFunction ? shareOf(operation, studyFunction) : null,
    failures: failuresOf(raw),
    findMax: raw.findMax && typeof raw.findMax === 'object' ? raw.findMax : null,
    elasticity: (Array.isArray(raw.reps) ? raw.reps : []).map((rep, index) => ({ rep: index + 1, ...rep }))
      .filter((rep) => rep.elasticity && Array.isArray(rep.timeline)),
    instances: Array.isArray(raw.instances) ? raw.instances : []
  }
}

/** Known names first, in the workload's order, then any others in the order they appear. */
function ordered (known, ...lists) {
  const seen = new Set(lists.flat().filter((item) => item !== undefined && item !== null).map(String))
  return [...known.filter((item) => seen.delete(item)), ...seen]
}

/** requests/s per process count of each operation and format, measured cells only. */
function throughputSeries (cells, scenarios, formats, workload) {
  const series = []
  for (const scenario of scenarios) {
    for (const format of formats) {
      const points = cells.filter((c) => c.scenario === scenario && c.format === format && c.measured)
        .sort((a, b) => a.processes - b.processes)
        .map((c) => ({ processes: c.processes, ...c.requestsPerSec }))
      const left = cells.filter((c) => c.scenario === scenario && c.format === format && c.failed)
      series.push({ scenario, label: scenarioLabel(workload, scenario), format, points, failed: left })
    }
  }
  return series
}

/** From each measured process count to the next: requests/s at the second / at the first. */
function scalingSteps (series) {
  return series.filter((s) => s.points.length >= 2).map((s) => ({
    scenario: s.scenario,
    label: s.label,
    format: s.format,
    steps: s.points.slice(1).map((point, i) => ({
      from: s.points[i].processes,
      to: point.processes,
      gain: point.mean / s.points[i].mean
    }))
  }))
}

/**
 * Everything the report shows, derived from a results.json object.
 * @param {object} results what `nodebench bench` wrote (schema 1 to 3)
 */
function summarize (results) {
  const config = (results && results.config) || {}
  const machine = (results && results.machine) || {}
  const workload = workloadOf(results)
  const rawCells = Array.isArray(results && results.cells) ? results.cells : []
  const allCells = rawCells.map((raw) => normalizeCell(raw, workload))
  // The study's comparisons (throughput by processes, HTML against JSON, Table 1) are drawn from one
  // topology, the run's first; the scale-out section sets the topologies beside each other.
  const topologies = ordered(Array.isArray(config.topologies) ? config.topologies : ['cluster'], allCells.map((c) => c.topology))
  const primaryTopology = topologies[0]
  const cells = allCells.filter((c) => c.topology === primaryTopology)
  const scenarios = ordered(Object.keys(workload.scenarios), config.scenarios || [], cells.map((c) => c.scenario))
  const formats = ordered(workload.formats, config.formats || [], cells.map((c) => c.format))
  const processCounts = [...(config.processes || []), ...cells.map((c) => c.processes)]
    .map(Number).filter(Number.isFinite)
  const processes = [...new Set(processCounts)].sort((a, b) => a - b)
  // A swept cell (kernel/sweep.js) differs from its neighbours by its values, not only its processes: the
  // comparisons by process count leave it to the sweep section (sweeps/).
  const unswept = cells.filter((c) => Object.keys(c.values).length === 0)
  const throughput = throughputSeries(unswept, scenarios, formats, workload)
  const sizes = responseSizes(cells, scenarios, formats, workload)
  const reference = workload.reference
  const summary = {
    schema: results && results.schema,
    createdAt: (results && results.createdAt) || null,
    durationSec: results && isNumber(results.durationSec) ? results.durationSec : null,
    machine,
    config,
    workload: { name: workload.name, file: workload.file, scenarios: workload.scenarios },
    reference: {
      source: reference && typeof reference.source === 'string' ? reference.source : null,
      findings: reference && Array.isArray(reference.findings) ? reference.findings.map(String) : [],
      // What introduces those findings in the report.
      intro: reference && typeof reference.source === 'string' ? `The study found (${reference.source}):` : 'The reference found:',
      repetitions: reference && isNumber(reference.repetitions) ? reference.repetitions : null
    },
    scenarios: scenarios.map((name) => ({
      name, label: scenarioLabel(workload, name), studyFunction: dominantOf(workload, name)
    })),
    formats,
    processes,
    studyProcesses: reference && Array.isArray(reference.processes)
      ? reference.processes.map(Number).filter(Number.isFinite)
      : [],
    cells,
    allCells,
    // The cells of the servers beside the app (baselines/ shows them).
    targetCells: Array.isArray(results && results.targetCells)
      ? { total: results.targetCells.length, failed: results.targetCells.filter((cell) => cell && cell.status !== 'ok').length }
      : { total: 0, failed: 0 },
    topologies,
    primaryTopology,
    throughput,
    scaling: scalingSteps(throughput),
    htmlVsJson: htmlVsJson(unswept, scenarios, processes, workload),
    table1: table1(cells, scenarios, formats, workload),
    functionWaits: functionWaits(cells, scenarios, formats, workload),
    dominance: dominance(cells, workload),
    responseSizes: sizes,
    sizeRatios: sizeRatios(sizes)
  }
  // What the report compares the run with: a reference (the study's figures), and HTML against JSON when the
  // run measured both. Without them, their sections and charts are left out, not drawn empty.
  summary.hasReference = reference !== null || Object.values(workload.scenarios).some((s) => s && s.reference)
  summary.comparesFormats = ['html', 'json'].every((format) => cells.some((c) => c.format === format && c.measured))
  summary.notes = [...notesOf(summary), ...databaseNotes(results)]
  summary.findings = findingsOf(summary)
  return summary
}

module.exports = { summarize, topologyText, PERCENTILES }
