'use strict'

const { isNumber } = require('../../render/format')
const { isNamed, findNamed } = require('../owners/dominant')
const { referenceOf, scenarioLabel, dominantOf } = require('../cells/workload')

// The figures of the run set beside its workload's reference (the study's, for examples/mongo-admin): HTML
// beside JSON, the study's Table 1 (the share of its longest-running function), which function owns each
// cell's time, and response sizes. summarize (cells/data.js) computes them into the summary.

function find (cells, scenario, format, processes) {
  return cells.find((c) => c.scenario === scenario && c.format === format && c.processes === processes)
}

function sideOf (cell) {
  if (!cell || !cell.measured) return null
  return {
    requestsPerSec: cell.requestsPerSec.mean,
    latencyMeanMs: isNumber(cell.latencyMs.mean) ? cell.latencyMs.mean : null
  }
}

/** HTML beside JSON per operation and process count; `jsonOverHtml` is null when a side is missing. */
function htmlVsJson (cells, scenarios, processes, workload) {
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
        label: scenarioLabel(workload, scenario),
        processes: count,
        html: htmlSide,
        json: jsonSide,
        missing: both ? null : [['html', html], ['json', json]].filter(([, c]) => !c || !c.measured).map(([f, c]) => `${f} ${c ? 'failed' : 'not measured'}`),
        jsonOverHtml: both ? jsonSide.requestsPerSec / htmlSide.requestsPerSec : null,
        htmlOverJsonLatency: both && htmlSide.latencyMeanMs !== null && jsonSide.latencyMeanMs
          ? htmlSide.latencyMeanMs / jsonSide.latencyMeanMs
          : null
      })
    }
  }
  return rows
}

/**
 * The reference's shares of the dominant function (the study's Table 1) beside the same share here, per
 * process count: scenarios that name a dominant function.
 */
function table1 (cells, scenarios, formats, workload) {
  const rows = []
  for (const scenario of scenarios) {
    const dominant = dominantOf(workload, scenario)
    if (dominant === null) continue
    for (const format of formats) {
      const here = {}
      const top = {}
      const ofFormat = cells.filter((c) => c.scenario === scenario && c.format === format)
      for (const cell of ofFormat.filter((c) => c.measured && c.operation)) {
        here[cell.processes] = cell.studyFunctionShare === null ? null : cell.studyFunctionShare * 100
        top[cell.processes] = cell.top
      }
      const studyShares = referenceOf(workload, scenario, 'shares', format) || {}
      const failed = ofFormat.filter((c) => c.failed).map((c) => c.processes)
      const label = scenarioLabel(workload, scenario)
      rows.push({ scenario, label, format, function: dominant, here, top, failed, study: { ...studyShares } })
    }
  }
  return rows
}

/**
 * Beside Table 1: how much of the study's function (the segment a scenario's `dominant` names) was waiting on
 * its dependencies, per measured cell: the function's share of the response time, and each system's part of the
 * function's own time (`mongodb`, and whatever other systems its calls name: an outgoing call, rendering), each
 * with the calls it made (`find users`). Empty when no cell's function waited on anything (a run recorded
 * before dependencies were, or a function that calls nothing).
 */
function functionWaits (cells, scenarios, formats, workload) {
  const rows = []
  for (const scenario of scenarios) {
    const dominant = dominantOf(workload, scenario)
    if (dominant === null) continue
    for (const format of formats) {
      const measured = cells
        .filter((c) => c.scenario === scenario && c.format === format && c.measured && c.operation)
        .sort((a, b) => a.processes - b.processes)
      for (const cell of measured) {
        const segment = findNamed(cell.operation, dominant)
        if (segment === null || segment.share <= 0) continue
        const systems = new Map()
        for (const dependency of Array.isArray(segment.dependencies) ? segment.dependencies : []) {
          let system = systems.get(dependency.system)
          if (system === undefined) systems.set(dependency.system, (system = { share: 0, calls: [] }))
          const part = dependency.share / segment.share
          system.share += part
          const { operation, target, count } = dependency
          system.calls.push({ operation, target, count, part })
        }
        const waited = [...systems.values()].reduce((sum, system) => sum + system.share, 0)
        rows.push({
          scenario,
          label: scenarioLabel(workload, scenario),
          format,
          processes: cell.processes,
          function: dominant,
          segment: segment.name,
          share: segment.share,
          systems: Object.fromEntries(systems),
          rest: Math.max(0, 1 - waited)
        })
      }
    }
  }
  return rows.some((row) => Object.keys(row.systems).length > 0) ? rows : []
}

/** Which function owns each measured cell's time, here and in the study. */
function dominance (cells, workload) {
  return cells.filter((c) => c.measured && c.top).map((c) => {
    const studyTable = referenceOf(workload, c.scenario, 'shares', c.format)
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
      matches: c.studyFunction !== null && isNamed(c.top, c.studyFunction)
    }
  })
}

/** Bytes per response per operation and format (the lowest process count measured), beside the study's. */
function responseSizes (cells, scenarios, formats, workload) {
  const rows = []
  for (const scenario of scenarios) {
    for (const format of formats) {
      const sizes = cells
        .filter((c) => c.scenario === scenario && c.format === format && c.measured && c.bytesPerResponse !== null)
        .sort((a, b) => a.processes - b.processes).map((c) => c.bytesPerResponse)
      if (sizes.length === 0) continue
      const studyBytes = referenceOf(workload, scenario, 'bytes', format)
      rows.push({
        scenario,
        label: scenarioLabel(workload, scenario),
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

module.exports = { htmlVsJson, table1, functionWaits, dominance, responseSizes, sizeRatios }
