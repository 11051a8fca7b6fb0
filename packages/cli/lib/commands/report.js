'use strict'

const { parseReportArguments } = require('../report/config')
const { runReport, runTrace } = require('../api')
const { renderReport } = require('../report/render')
const { waterfallText } = require('../render/waterfall')
const { displayPath } = require('../kernel/paths')

// `nodebench report --source jaeger|prometheus|app`: the options (report/config.js), then runReport
// (lib/api.js), and the breakdown's tables on stdout (or the snapshot with --json); report.html (from Jaeger by
// default, else with --out) with each operation's exemplar requests drawn as waterfalls. `report --trace <id>`:
// one trace's waterfall as text.

async function runReportCommand (parsed, { stdout, stderr, env }) {
  const onProgress = (message) => stderr.write(`nodebench report: ${message}\n`)
  for (const notice of parsed.notices ?? []) onProgress(notice)
  if (parsed.trace !== undefined) {
    onProgress(`reading trace ${parsed.trace} from Jaeger at ${parsed.jaeger}`)
    const waterfall = await runTrace(parsed)
    stdout.write(parsed.format === 'json' ? JSON.stringify(waterfall, null, 2) + '\n' : waterfallText(waterfall))
    return 0
  }
  const { snapshot, jaegerUi, page } = await runReport(parsed, { env, onProgress })
  stdout.write(parsed.format === 'json' ? JSON.stringify(snapshot, null, 2) + '\n' : renderReport(snapshot, { ...parsed, jaegerUi, page }))
  if (page !== null) stderr.write(`nodebench report: ${displayPath(page)}\n`)
  return 0
}

module.exports = { parseReportArguments, runReportCommand }
