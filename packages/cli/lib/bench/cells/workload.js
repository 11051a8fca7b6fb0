'use strict'

const { scenarioLabel: labelOfScenario } = require('../scenario-label')

// The workload a results.json describes (kernel/workload.js, describeWorkload), as the report reads it: each
// scenario's label and dominant function, and its `reference` figures.

/** The workload's description of its scenarios and reference, from results.json; empty when absent. */
function workloadOf (results) {
  const workload = results && results.workload && typeof results.workload === 'object' ? results.workload : {}
  const scenarios = workload.scenarios && typeof workload.scenarios === 'object' ? workload.scenarios : {}
  const reference = workload.reference && typeof workload.reference === 'object' ? workload.reference : null
  return {
    name: typeof workload.name === 'string' ? workload.name : null,
    file: typeof workload.file === 'string' ? workload.file : null,
    formats: Array.isArray(workload.formats) ? workload.formats.map(String) : [],
    scenarios,
    reference,
    scenario: (name) => (Object.hasOwn(scenarios, name) && scenarios[name] && typeof scenarios[name] === 'object' ? scenarios[name] : null)
  }
}

/** A scenario's reference figure: `reference[kind][format]` of the workload's scenario, or null. */
function referenceOf (workload, scenario, kind, format) {
  const described = workload.scenario(scenario)
  const table = described && described.reference && described.reference[kind]
  return table && typeof table === 'object' && table[format] !== undefined ? table[format] : null
}

function scenarioLabel (workload, scenario) {
  return labelOfScenario(workload.scenarios, scenario)
}

function dominantOf (workload, scenario) {
  const described = workload.scenario(scenario)
  return described && typeof described.dominant === 'string' ? described.dominant : null
}

module.exports = { workloadOf, referenceOf, scenarioLabel, dominantOf }
