'use strict'

const { SCENARIOS, SCENARIO_NAMES, FORMATS, PROCESSES, TABLE_1, RESPONSE_BYTES } = require('./study')
const { isNumber, processesText } = require('./report-format')
const { findingsOf, notesOf } = require('./report-findings')

// The figures both renderers of the bench report show, derived once from a results.json (schema 1).
// Nothing here trusts an optional field: a failed cell, a missing cell, a cell without a breakdown or a
// run of only some scenarios and process counts all give a smaller summary, never an exception.

/** The latency percentiles a cell records, in the order the charts draw them. */
const PERCENTILES = Object.freeze([
  Object.freeze({ key: 'p50', label: 'p50' }),
  Object.freeze({ key: 'p75', label: 'p75' }),
  Object.freeze({ key: 'p90', label: 'p90' }),
  Object.freeze({ key: 'p97_5', label: 'p97.5' }),
  Object.freeze({ key: 'p99', label: 'p99' }),
  Object.freeze({ key: 'max', label: 'max' })
])

function scenarioLabel (scenario) {
  return SCENARIOS[scenario] ? SCENARIOS[scenario].label : scenario
}

/** { mean, min, max } from what the runner wrote (an object, or a bare number); null when unusable. */
function rateOf (value) {
  if (isNumber(value)) return { mean: value, min: value, max: value }
  if (value === null || typeof value !== 'object' || !isNumber(value.mean)) return null
  return { mean: value.mean, min: isNumber(value.min) ? value.min : value.mean, max: isNumber(value.max) ? value.max : value.mean }
}

/** The breakdown operation of a cell: its snapshot's operation with the cell's method, route and format. */
function operationOf (cell) {
  const wanted = cell.operation
  const operations = cell.breakdown && Array.isArray(cell.breakdown.operations) ? cell.breakdown.operations : []
  if (!wanted) return null
  return operations.find((o) => o.method === wanted.method && o.route === wanted.route && o.format === wanted.format) || null
}

/** The segment with the largest share (a function that runs twice in a path is two segments). */
function topSegment (operation) {
  if (!operation || !Array.isArray(operation.segments) || operation.segments.length === 0) return null
  return operation.segments.reduce((best, segment) => (segment.share > best.share ? segment : best))
}

function shareOf (operation, name) {
  if (!operation || !Array.isArray(operation.segments)) return null
  const shares = operation.segments.filter((s) => s.name === name).map((s) => s.share)
  return shares.length ? Math.max(...shares) : null
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
    return { unexpected: redirected ? 0 : non2xx, redirects: redirected ? non2xx : 0, unexpectedCodes: {}, codesKnown: false }
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

function normalizeCell (raw) {
  const scenario = String(raw.scenario)
  const format = String(raw.format)
  const processes = Number(raw.processes)
  const study = SCENARIOS[scenario] || null
  const requestsPerSec = rateOf(raw.requestsPerSec)
  const failed = raw.status !== 'ok'
  // A cell is drawn and compared only when it finished and has figures.
  const measured = !failed && requestsPerSec !== null
  const method = (raw.operation && raw.operation.method) || (study && study.method) || 'GET'
  const operation = operationOf(raw)
  const top = topSegment(operation)
  const studyFunction = study ? study.dominant : null
  return {
    scenario,
    label: scenarioLabel(scenario),
    format,
    processes,
    title: `${scenarioLabel(scenario)} (${format}), ${processesText(processes)}`,
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
    responses: responsesOf(raw, method, format),
    bytesPerResponse: isNumber(raw.bytesPerResponse) ? raw.bytesPerResponse : null,
    breakdown: raw.breakdown || null,
    operation,
    top: top ? { name: top.name, kind: top.kind, share: top.share } : null,
    studyFunction,
    studyFunctionShare: studyFunction ? shareOf(operation, studyFunction) : null
  }
}

/** Known names first, in the study's order, then any others in the order they appear. */
function ordered (known, ...lists) {
  const seen = new Set(lists.flat().filter((item) => item !== undefined && item !== null).map(String))
  return [...known.filter((item) => seen.delete(item)), ...seen]
}

function find (cells, scenario, format, processes) {
  return cells.find((c) => c.scenario === scenario && c.format === format && c.processes === processes)
}

/** requests/s per process count of each operation and format, measured cells only. */
function throughputSeries (cells, scenarios, formats) {
  const series = []
  for (const scenario of scenarios) {
    for (const format of formats) {
      const points = cells.filter((c) => c.scenario === scenario && c.format === format && c.measured)
        .sort((a, b) => a.processes - b.processes)
        .map((c) => ({ processes: c.processes, ...c.requestsPerSec }))
      const left = cells.filter((c) => c.scenario === scenario && c.format === format && c.failed)
      series.push({ scenario, label: scenarioLabel(scenario), format, points, failed: left })
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
    steps: s.points.slice(1).map((point, i) => ({ from: s.points[i].processes, to: point.processes, gain: point.mean / s.points[i].mean }))
  }))
}

function sideOf (cell) {
  if (!cell || !cell.measured) return null
  return { requestsPerSec: cell.requestsPerSec.mean, latencyMeanMs: isNumber(cell.latencyMs.mean) ? cell.latencyMs.mean : null }
}

/** HTML beside JSON per operation and process count; `jsonOverHtml` is null when a side is missing. */
function htmlVsJson (cells, scenarios, processes) {
  const rows = []
  for (const scenario of scenarios) {
    for (const count of processes) {
      const html = find(cells, scenario, 'html', count)
      const json = find(cells, scenario, 'json', count)
      if (!html && !json) continue
      const htmlSide = sideOf(html)
      const jsonSide = sideOf(json)
      const both = htmlSide !== null && jsonSide !== null
      rows.push({
        scenario,
        label: scenarioLabel(scenario),
        processes: count,
        html: htmlSide,
        json: jsonSide,
        missing: both ? null : [['html', html], ['json', json]].filter(([, c]) => !c || !c.measured).map(([f, c]) => `${f} ${c ? 'failed' : 'not measured'}`),
        jsonOverHtml: both ? jsonSide.requestsPerSec / htmlSide.requestsPerSec : null,
        htmlOverJsonLatency: both && htmlSide.latencyMeanMs !== null && jsonSide.latencyMeanMs ? htmlSide.latencyMeanMs / jsonSide.latencyMeanMs : null
      })
    }
  }
  return rows
}

/** The study's Table 1 beside the same share here: the study's dominant function, per process count. */
function table1 (cells, scenarios, formats) {
  const rows = []
  for (const scenario of scenarios) {
    const study = SCENARIOS[scenario]
    if (!study) continue
    for (const format of formats) {
      const here = {}
      const top = {}
      for (const cell of cells.filter((c) => c.scenario === scenario && c.format === format && c.measured && c.operation)) {
        here[cell.processes] = cell.studyFunctionShare === null ? null : cell.studyFunctionShare * 100
        top[cell.processes] = cell.top
      }
      const studyShares = (TABLE_1[scenario] && TABLE_1[scenario][format]) || {}
      const failed = cells.filter((c) => c.scenario === scenario && c.format === format && c.failed).map((c) => c.processes)
      rows.push({ scenario, label: study.label, format, function: study.dominant, here, top, failed, study: { ...studyShares } })
    }
  }
  return rows
}

/** Which function owns each measured cell's time, here and in the study. */
function dominance (cells) {
  return cells.filter((c) => c.measured && c.top).map((c) => {
    const studyTable = TABLE_1[c.scenario] && TABLE_1[c.scenario][c.format]
    return {
      scenario: c.scenario,
      label: c.label,
      format: c.format,
      processes: c.processes,
      title: c.title,
      hereFunction: c.top.name,
      hereShare: c.top.share,
      studyFunction: c.studyFunction,
      studyFunctionShare: c.studyFunctionShare,
      studyPercent: studyTable && isNumber(studyTable[c.processes]) ? studyTable[c.processes] : null,
      matches: c.studyFunction !== null && c.top.name === c.studyFunction
    }
  })
}

/** Bytes per response per operation and format (the lowest process count measured), beside the study's. */
function responseSizes (cells, scenarios, formats) {
  const rows = []
  for (const scenario of scenarios) {
    for (const format of formats) {
      const sizes = cells.filter((c) => c.scenario === scenario && c.format === format && c.measured && c.bytesPerResponse !== null)
        .sort((a, b) => a.processes - b.processes).map((c) => c.bytesPerResponse)
      if (sizes.length === 0) continue
      const studyBytes = RESPONSE_BYTES[scenario] ? RESPONSE_BYTES[scenario][format] : undefined
      rows.push({
        scenario,
        label: scenarioLabel(scenario),
        format,
        bytes: sizes[0],
        varies: sizes.some((size) => size !== sizes[0]),
        studyBytes: isNumber(studyBytes) ? studyBytes : null
      })
    }
  }
  return rows
}

/** HTML bytes / JSON bytes per operation, here and in the study. */
function sizeRatios (sizes) {
  const ratios = []
  for (const scenario of new Set(sizes.map((s) => s.scenario))) {
    const html = sizes.find((s) => s.scenario === scenario && s.format === 'html')
    const json = sizes.find((s) => s.scenario === scenario && s.format === 'json')
    if (!html || !json || !json.bytes) continue
    ratios.push({
      scenario,
      label: html.label,
      here: html.bytes / json.bytes,
      study: html.studyBytes !== null && json.studyBytes ? html.studyBytes / json.studyBytes : null
    })
  }
  return ratios
}

/**
 * Everything the report shows, derived from a results.json object.
 * @param {object} results what `nodebench bench` wrote (schema 1)
 */
function summarize (results) {
  const config = (results && results.config) || {}
  const machine = (results && results.machine) || {}
  const rawCells = Array.isArray(results && results.cells) ? results.cells : []
  const cells = rawCells.map(normalizeCell)
  const scenarios = ordered(SCENARIO_NAMES, config.scenarios || [], cells.map((c) => c.scenario))
  const formats = ordered(FORMATS, config.formats || [], cells.map((c) => c.format))
  const processes = [...new Set([...(config.processes || []), ...cells.map((c) => c.processes)].map(Number).filter(Number.isFinite))].sort((a, b) => a - b)
  const throughput = throughputSeries(cells, scenarios, formats)
  const sizes = responseSizes(cells, scenarios, formats)
  const summary = {
    schema: results && results.schema,
    createdAt: (results && results.createdAt) || null,
    durationSec: results && isNumber(results.durationSec) ? results.durationSec : null,
    machine,
    config,
    scenarios: scenarios.map((name) => ({ name, label: scenarioLabel(name), studyFunction: SCENARIOS[name] ? SCENARIOS[name].dominant : null })),
    formats,
    processes,
    studyProcesses: [...PROCESSES],
    cells,
    throughput,
    scaling: scalingSteps(throughput),
    htmlVsJson: htmlVsJson(cells, scenarios, processes),
    table1: table1(cells, scenarios, formats),
    dominance: dominance(cells),
    responseSizes: sizes,
    sizeRatios: sizeRatios(sizes)
  }
  summary.notes = notesOf(summary)
  summary.findings = findingsOf(summary)
  return summary
}

module.exports = { summarize, PERCENTILES, scenarioLabel }
