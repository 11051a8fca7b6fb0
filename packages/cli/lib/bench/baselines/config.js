'use strict'

const { commandOptions } = require('../../command-options')
const { BASELINE_KINDS, runTargets } = require('../../kernel/targets')

// The servers a bench run measures beside the app (kernel/targets.js): the workload's targets and the ceilings
// --baseline-targets adds. Their cells are the plan's (kernel/plan.js); servers.js starts them (bare-server.js
// for nodebench's own bare node:http and Express); the report's section is index.js.

const { usageError, listOf } = commandOptions('bench')

/**
 * `{ targets, targetNotes }` of a bench run on the app `target` (kernel/app-target.js) with `workload`: the
 * targets in run order, and what the run says of those it leaves out. Throws NB_ERR_USAGE (exit 2).
 */
function baselinesOf (values, workload, target) {
  const kinds = values['baseline-targets'] === undefined ? [] : listOf(values['baseline-targets'], 'baseline-targets', BASELINE_KINDS)
  const { targets, notes } = runTargets(workload.targets, kinds, { appStarts: target.starts })
  if (!target.starts && targets.some((t) => t.kind === 'app-untraced')) {
    throw usageError('the workload\'s app-untraced target needs an app nodebench starts (--app, or --cmd): it starts the app with NODEBENCH=off')
  }
  return { targets, targetNotes: notes }
}

module.exports = { baselinesOf }
