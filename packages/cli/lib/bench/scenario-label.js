'use strict'

// How the report and the terminal name a scenario: the workload's label for it, with its name beside when
// another scenario has the same label (two cases of one route, as a register and a register whose email is
// taken), so no two headings read the same.

/** `scenarios`: results.json's workload.scenarios (name -> { label, ... }); `name` a scenario's name. */
function scenarioLabel (scenarios, name) {
  const described = scenarios && Object.hasOwn(scenarios, name) ? scenarios[name] : null
  const label = described && typeof described.label === 'string' ? described.label : name
  const shared = Object.entries(scenarios ?? {})
    .some(([other, about]) => other !== name && about && about.label === label)
  return shared && label !== name ? `${label} [${name}]` : label
}

module.exports = { scenarioLabel }
